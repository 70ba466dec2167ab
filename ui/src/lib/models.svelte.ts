// The built-in model's models folder as the UI sees it: the models with their GGUF facts,
// which one is the built-in provider's default (read from the provider store), import, remove,
// set as default, the tool-use probe of a model just added, and one download at a time with its progress, cancel and error.
import * as api from '../api';
import type { CatalogueModel, IpcError, LocalModel, ModelDownloadProgress } from '../bindings';
import { probes } from './probes.svelte';
import { providers } from './providers.svelte';

/** The running (or last failed) download. */
export type Download = { url: string; progress: ModelDownloadProgress };

class ModelStore {
  list = $state<LocalModel[]>([]);
  /** The recommended models (empty until loaded). */
  catalogue = $state<CatalogueModel[]>([]);
  loaded = $state(false);
  download = $state<Download | null>(null);
  downloadError = $state<IpcError | null>(null);
  #cancelled = false;

  async load(): Promise<void> {
    const [list, catalogue] = await Promise.all([api.listModels(), api.modelCatalogue()]);
    this.list = list;
    this.catalogue = catalogue;
    this.loaded = true;
  }

  /** Whether the catalogue model's file is in the models folder. */
  has(entry: CatalogueModel): boolean {
    return this.list.some((m) => m.name === entry.file);
  }

  /** The built-in provider's default model, if there is such a provider and default. */
  get defaultName(): string | null {
    const local = providers.views.find((v) => v.provider.kind === 'local');
    return local?.provider.settings.defaultModel ?? null;
  }

  async importFile(path: string): Promise<LocalModel> {
    const model = await api.importModel(path);
    await this.load();
    this.#probe(model.name);
    return model;
  }

  /** A model just added gets the tool-use probe (in the background), when there is a
   * built-in provider to run it with. */
  #probe(name: string): void {
    const local = providers.views.find((v) => v.provider.kind === 'local');
    if (local) probes.ensure(local.provider.id, name);
  }

  async remove(name: string): Promise<void> {
    await api.removeModel(name);
    this.list = this.list.filter((m) => m.name !== name);
  }

  /** Makes `name` the built-in provider's default; the provider store is reloaded (the
   * provider may have been added just now). */
  async setDefault(name: string): Promise<void> {
    await api.setDefaultLocalModel(name);
    await providers.load();
  }

  /** Downloads `url`; the error, if any, is kept in `downloadError` (a cancel is not one). */
  async startDownload(url: string, sha256: string | null): Promise<void> {
    if (this.download) return;
    this.downloadError = null;
    this.#cancelled = false;
    this.download = { url, progress: { received: 0, total: null } };
    try {
      const model = await api.downloadModel(url, sha256, (progress) => {
        if (this.download) this.download = { url, progress };
      });
      await this.load();
      this.#probe(model.name);
    } catch (error) {
      const failure = api.toIpcError(error);
      if (!this.#cancelled) this.downloadError = failure;
    } finally {
      this.download = null;
    }
  }

  cancelDownload(): Promise<void> {
    this.#cancelled = true;
    return api.cancelModelDownload();
  }

  reset(): void {
    this.list = [];
    this.catalogue = [];
    this.loaded = false;
    this.download = null;
    this.downloadError = null;
  }
}

export const models = new ModelStore();
