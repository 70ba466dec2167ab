// Installing servers, as the UI sees it: the registry browser's state (search, pages by cursor,
// the cached listing when the registry cannot be reached), a registry entry's install form and
// plan, the bundle being previewed, the install links waiting for confirmation, and updates of
// servers installed from a registry. Each install refreshes the server list.
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import * as api from '../api';
import type { BundleInstall, BundlePreview, InstallOption, InstallPlan, InstallRequest, Installed, LinkPreview, RegistryEntry, RegistryPage, ServerRecord, UpdatePlan } from '../bindings';
import { toIpcError } from './errors.svelte';
import { chooseBundleFile } from './fileDialog';
import { servers } from './servers.svelte';

/** The event the shell sends when an install link arrives (src-tauri/src/links.rs). */
export const LINK_EVENT = 'install-link';

class RegistryBrowser {
  query = $state('');
  page = $state<RegistryPage | null>(null);
  /** The cursors of the pages before this one (the first page's is null). */
  private cursors: (string | null)[] = [];
  pageNumber = $state(1);
  loading = $state(false);
  /** Why the registry could not be read (the cached listing is shown instead, when there is one). */
  error = $state<string | null>(null);

  /** The registry URL in use (a setting; empty until read). */
  url = $state('');

  /** Reads the registry URL setting. */
  async loadUrl(): Promise<void> {
    this.url = await api.registryUrl();
  }

  /** Sets the registry URL (empty: the official one) and searches it. */
  async setUrl(url: string): Promise<void> {
    await api.setRegistryUrl(url.trim());
    await this.loadUrl();
    await this.search(this.query);
  }

  /** The first page of entries matching `query`. */
  search(query: string): Promise<void> {
    this.query = query;
    this.cursors = [];
    return this.load(null);
  }

  /** The page after this one. */
  next(): Promise<void> {
    const cursor = this.page?.nextCursor;
    if (!cursor) return Promise.resolve();
    this.cursors.push(this.currentCursor);
    return this.load(cursor);
  }

  /** The page before this one. */
  previous(): Promise<void> {
    if (this.cursors.length === 0) return Promise.resolve();
    const cursor = this.cursors.pop() ?? null;
    return this.load(cursor);
  }

  get hasPrevious(): boolean {
    return this.pageNumber > 1;
  }

  private currentCursor: string | null = null;

  private async load(cursor: string | null): Promise<void> {
    // A new attempt replaces the last one's error: never "Asking the registry…" beside it.
    this.error = null;
    this.loading = true;
    try {
      this.page = await api.registrySearch(this.query, cursor);
      this.currentCursor = cursor;
      this.pageNumber = this.cursors.length + 1;
      this.error = null;
    } catch (error) {
      const why = toIpcError(error).message;
      await this.fallBackToCache();
      this.error = why;
    } finally {
      this.loading = false;
    }
  }

  private async fallBackToCache(): Promise<void> {
    try {
      const cached = await api.registryCached();
      if (cached) {
        this.page = cached;
        this.cursors = [];
        this.pageNumber = 1;
      }
    } catch {
      // The error above is what the user sees.
    }
  }

  reset(): void {
    this.url = '';
    this.query = '';
    this.page = null;
    this.cursors = [];
    this.currentCursor = null;
    this.pageNumber = 1;
    this.loading = false;
    this.error = null;
  }
}

export const registry = new RegistryBrowser();

/** The ways `entry` can be installed, each with its form. */
export function installOptions(entry: RegistryEntry): Promise<InstallOption[]> {
  return api.registryInstallOptions(entry);
}

/** What installing `entry` would save and run; saves nothing. */
export function planInstall(entry: RegistryEntry, request: InstallRequest): Promise<InstallPlan> {
  return api.planRegistryInstall(entry, request);
}

/** Installs `entry` as the plan with `digest` showed; the server list is read again. */
export async function installEntry(entry: RegistryEntry, request: InstallRequest, digest: string): Promise<Installed> {
  const installed = await api.installFromRegistry(entry, request, digest);
  await servers.load();
  return installed;
}

/** The bundle being previewed: its file and what it is. */
export type OpenBundle = { path: string; preview: BundlePreview };

class Bundles {
  open = $state<OpenBundle | null>(null);
  /** Why the last bundle opened could not be read. */
  error = $state<string | null>(null);

  /** Reads the bundle at `path` and shows its preview. */
  async preview(path: string): Promise<void> {
    try {
      this.open = { path, preview: await api.previewBundle(path) };
      this.error = null;
    } catch (error) {
      this.open = null;
      this.error = toIpcError(error).message;
    }
  }

  /** Asks for a `.mcpb` file, then previews it. */
  async pick(): Promise<void> {
    const path = await chooseBundleFile();
    if (path) await this.preview(path);
  }

  /** Installs the open bundle; the server list is read again. */
  async install(request: BundleInstall): Promise<Installed> {
    if (!this.open) throw new Error('no bundle is open');
    const installed = await api.installBundle(this.open.path, request, this.open.preview.digest);
    await servers.load();
    return installed;
  }

  close(): void {
    this.open = null;
    this.error = null;
  }
}

export const bundles = new Bundles();

/** An install link waiting for the user: what it would save, or why it was refused. */
export type PendingLink = { link: string; preview: LinkPreview | null; error: string | null };

class Links {
  pending = $state<PendingLink[]>([]);
  /** What the last confirmed link installed, until the user closes it. */
  result = $state<Installed | null>(null);

  /** Reads what the shell received: each install link is queued for confirmation, a bundle
   * file (`--open-bundle`, a double-clicked `.mcpb`) opens its preview. */
  async take(): Promise<void> {
    for (const link of await api.takeOpenedLinks()) {
      if (!link.startsWith('switchboard:')) {
        await bundles.preview(link);
        continue;
      }
      try {
        this.pending = [...this.pending, { link, preview: await api.previewInstallLink(link), error: null }];
      } catch (error) {
        this.pending = [...this.pending, { link, preview: null, error: toIpcError(error).message }];
      }
    }
  }

  /** Installs the first waiting link's server (the user confirmed it and ticked the
   * loader-style variables it sets, `acceptedRiskyEnv`). */
  async confirm(acceptedRiskyEnv: string[] = []): Promise<Installed> {
    const first = this.pending[0];
    if (!first?.preview) throw new Error('no install link is waiting');
    const installed = await api.installFromLink(first.link, acceptedRiskyEnv);
    this.pending = this.pending.slice(1);
    this.result = installed;
    await servers.load();
    return installed;
  }

  /** Drops the first waiting link; nothing is saved. */
  cancel(): void {
    this.pending = this.pending.slice(1);
  }
}

export const links = new Links();

/** Takes the links waiting now and those announced later; returns the function that stops. */
export async function listenInstallLinks(): Promise<UnlistenFn> {
  const unlisten = await listen(LINK_EVENT, () => void links.take().catch(() => undefined));
  await links.take();
  return unlisten;
}

class Updates {
  /** Updates available, by server id. */
  available = $state<Record<string, UpdatePlan>>({});

  /** Asks the registry about each server installed from one (failures are skipped). */
  async check(records: ServerRecord[]): Promise<void> {
    const fromRegistry = records.filter((r) => r.config.source?.kind === 'registry');
    for (const record of fromRegistry) {
      try {
        const plan = await api.checkServerUpdate(record.id);
        const { [record.id]: _, ...rest } = this.available;
        this.available = plan ? { ...rest, [record.id]: plan } : rest;
      } catch {
        // Offline or the registry is gone: no badge.
      }
    }
  }

  /** Applies server `id`'s update as shown (its plan's digest); the server list is read again. */
  async apply(id: string, digest = this.available[id]?.digest ?? ''): Promise<Installed> {
    const installed = await api.applyServerUpdate(id, digest);
    const { [id]: _, ...rest } = this.available;
    this.available = rest;
    await servers.load();
    return installed;
  }
}

export const updates = new Updates();

/** Forgets everything (tests). */
export function resetInstall(): void {
  registry.reset();
  bundles.close();
  links.pending = [];
  links.result = null;
  updates.available = {};
}
