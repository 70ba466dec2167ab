// Provider settings state: the presets, the configured providers with their key status (never
// the key), and per-provider results of "test connection" and "fetch models".
import * as api from '../api';
import type {
  ConnectionTest,
  IpcError,
  LocalOllama,
  ModelInfo,
  NewProvider,
  Preset,
  ProviderSettings,
  ProviderView,
} from '../bindings';

/** The outcome of the last test, fetch or key change of one provider. */
export type Check<T> = { state: 'idle' } | { state: 'busy' } | { state: 'ok'; value: T } | { state: 'failed'; error: IpcError };

class ProviderStore {
  presets = $state<Preset[]>([]);
  views = $state<ProviderView[]>([]);
  tests = $state<Record<string, Check<ConnectionTest>>>({});
  models = $state<Record<string, Check<ModelInfo[]>>>({});
  loading = $state(false);
  loaded = $state(false);
  #pending: Promise<void> | null = null;

  /** Loads the providers unless they are: callers at the same time share one load, and after
   * a failure the next call tries again. */
  ensureLoaded(): Promise<void> {
    if (this.loaded) return Promise.resolve();
    this.#pending ??= this.load().finally(() => (this.#pending = null));
    return this.#pending;
  }

  async load(): Promise<void> {
    this.loading = true;
    try {
      const [presets, views] = await Promise.all([api.listPresets(), api.listProviders()]);
      this.presets = presets;
      this.views = views;
      this.loaded = true;
    } finally {
      this.loading = false;
    }
  }

  presetOf(view: ProviderView): Preset | undefined {
    return this.presets.find((p) => p.id === view.provider.settings.preset);
  }

  #replace(view: ProviderView): void {
    this.views = this.views.map((v) => (v.provider.id === view.provider.id ? view : v));
  }

  async add(input: NewProvider): Promise<ProviderView> {
    const view = await api.addProvider(input);
    this.views = [...this.views, view];
    return view;
  }

  async setKey(id: string, key: string | null): Promise<void> {
    this.#replace(await api.setProviderKey(id, key));
  }

  /** The model a provider answers with when a chat names none: its set default, else one the
   * engine chooses (its only model, the last used, the first listed) and keeps as the default. */
  async defaultModelOf(id: string): Promise<string | null> {
    const view = this.views.find((v) => v.provider.id === id);
    const set = view?.provider.settings.defaultModel;
    if (set) return set;
    const chosen = await api.providerDefaultModel(id);
    if (chosen && view) {
      const settings = { ...view.provider.settings, defaultModel: chosen };
      this.#replace({ ...view, provider: { ...view.provider, settings } });
    }
    return chosen;
  }

  async setSettings(id: string, settings: ProviderSettings): Promise<void> {
    this.#replace(await api.setProviderSettings(id, settings));
  }

  async remove(id: string): Promise<void> {
    await api.removeProvider(id);
    this.views = this.views.filter((v) => v.provider.id !== id);
  }

  async test(id: string): Promise<void> {
    this.tests = { ...this.tests, [id]: { state: 'busy' } };
    this.tests = { ...this.tests, [id]: await settle(api.testProvider(id)) };
  }

  async fetchModels(id: string): Promise<void> {
    this.models = { ...this.models, [id]: { state: 'busy' } };
    this.models = { ...this.models, [id]: await settle(api.providerModels(id)) };
  }

  /** A provider's models as its API lists them (not kept: see `fetchModels` for that). */
  modelsOf(id: string): Promise<ModelInfo[]> {
    return api.providerModels(id);
  }

  /** A local Ollama on 127.0.0.1:11434 and its models, or null when none answers at once. */
  detectOllama(): Promise<LocalOllama | null> {
    return api.detectOllama();
  }

  reset(): void {
    this.presets = [];
    this.views = [];
    this.tests = {};
    this.models = {};
    this.loading = false;
    this.loaded = false;
    this.#pending = null;
  }
}

async function settle<T>(job: Promise<T>): Promise<Check<T>> {
  try {
    return { state: 'ok', value: await job };
  } catch (error) {
    return { state: 'failed', error: api.toIpcError(error) };
  }
}

export const providers = new ProviderStore();
