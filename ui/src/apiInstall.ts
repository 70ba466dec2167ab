// Typed wrappers around the install commands (src-tauri/src/commands/install.rs): the MCP
// Registry, MCP Bundles and install links. Like api.ts, every function rejects with an
// `IpcError`; only the stores in lib/ call them.
import { call } from './api';
import type {
  BundleInstall,
  BundlePreview,
  InstallOption,
  InstallPlan,
  InstallRequest,
  Installed,
  LinkPreview,
  RegistryEntry,
  RegistryPage,
  UpdatePlan,
} from './bindings';

/** A page of the registry's latest entries matching `query`, after `cursor`. */
export function registrySearch(query: string, cursor: string | null): Promise<RegistryPage> {
  return call<RegistryPage>('registry_search', { query, cursor });
}

/** The last listing fetched (marked cached), or null when there is none. */
export function registryCached(): Promise<RegistryPage | null> {
  return call<RegistryPage | null>('registry_cached');
}

/** The registry URL in use. */
export function registryUrl(): Promise<string> {
  return call<string>('registry_url');
}

/** Sets the registry URL (empty: the official registry). */
export function setRegistryUrl(url: string): Promise<void> {
  return call<void>('set_registry_url', { url });
}

/** The ways `entry` can be installed, each with its form. */
export function registryInstallOptions(entry: RegistryEntry): Promise<InstallOption[]> {
  return call<InstallOption[]>('registry_install_options', { entry });
}

/** What installing `entry` would save and run (its runtime looked for); saves nothing. */
export function planRegistryInstall(entry: RegistryEntry, request: InstallRequest): Promise<InstallPlan> {
  return call<InstallPlan>('plan_registry_install', { entry, request });
}

/** Installs `entry`: saved, started, its tools listed. */
export function installFromRegistry(entry: RegistryEntry, request: InstallRequest): Promise<Installed> {
  return call<Installed>('install_from_registry', { entry, request });
}

/** What updating server `id` would change; null when it is up to date. */
export function checkServerUpdate(id: string): Promise<UpdatePlan | null> {
  return call<UpdatePlan | null>('check_server_update', { id });
}

/** Applies the update `checkServerUpdate` showed. */
export function applyServerUpdate(id: string): Promise<Installed> {
  return call<Installed>('apply_server_update', { id });
}

/** What the bundle at `path` is and asks for; unpacks nothing. */
export function previewBundle(path: string): Promise<BundlePreview> {
  return call<BundlePreview>('preview_bundle', { path });
}

/** Installs the bundle at `path` with the user's values. */
export function installBundle(path: string, request: BundleInstall): Promise<Installed> {
  return call<Installed>('install_bundle', { path, request });
}

/** What install link `link` would save, for the confirmation; saves nothing. */
export function previewInstallLink(link: string): Promise<LinkPreview> {
  return call<LinkPreview>('preview_install_link', { link });
}

/** Installs the server of `link`, after the user confirmed it. */
export function installFromLink(link: string): Promise<Installed> {
  return call<Installed>('install_from_link', { link });
}

/** The install links the app was opened with and not yet shown. */
export function takeOpenedLinks(): Promise<string[]> {
  return call<string[]>('take_opened_links');
}
