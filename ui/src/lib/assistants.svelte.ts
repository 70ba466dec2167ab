// The assistants: named presets a new chat starts from (icon, system prompt, provider and model,
// chat settings, servers and tools). Loaded once and kept in the engine's order (by name); the
// default one, the shipped starters, and export and import as a file.
import * as api from '../api';
import type { Assistant, AssistantDraft, AssistantImport, ChatSettings, Starter } from '../bindings';
import { chooseAssistantsExport, chooseImportFile } from './fileDialog';

/** An empty assistant, for the editor's "New assistant". */
export function blankDraft(): AssistantDraft {
  return { name: '', icon: '🤖', systemPrompt: '', settings: {} as ChatSettings };
}

/** The editable fields of a stored assistant. */
export function draftOf(a: Assistant): AssistantDraft {
  return {
    name: a.name,
    icon: a.icon,
    systemPrompt: a.systemPrompt,
    providerId: a.providerId ?? undefined,
    model: a.model ?? undefined,
    settings: structuredClone($state.snapshot(a.settings)) as ChatSettings,
  };
}

class AssistantStore {
  items = $state<Assistant[]>([]);
  defaultId = $state<string | null>(null);
  starters = $state<Starter[]>([]);
  loaded = $state(false);
  #pending: Promise<void> | null = null;

  /** Loads the list unless it is loaded; callers at the same time share one load. */
  ensureLoaded(): Promise<void> {
    if (this.loaded) return Promise.resolve();
    this.#pending ??= this.load().finally(() => (this.#pending = null));
    return this.#pending;
  }

  async load(): Promise<void> {
    const [items, defaultId, starters] = await Promise.all([
      api.listAssistants(),
      api.defaultAssistant(),
      api.assistantStarters(),
    ]);
    this.items = items;
    this.defaultId = defaultId;
    this.starters = starters;
    this.loaded = true;
  }

  /** Forgets everything (tests). */
  reset(): void {
    this.items = [];
    this.defaultId = null;
    this.starters = [];
    this.loaded = false;
    this.#pending = null;
  }

  find(id: string | null | undefined): Assistant | undefined {
    return id ? this.items.find((a) => a.id === id) : undefined;
  }

  #put(a: Assistant): Assistant {
    const others = this.items.filter((x) => x.id !== a.id);
    this.items = [...others, a].sort((x, y) => x.name.localeCompare(y.name, undefined, { sensitivity: 'base' }));
    return a;
  }

  async create(draft: AssistantDraft): Promise<Assistant> {
    return this.#put(await api.createAssistant(draft));
  }

  async update(id: string, draft: AssistantDraft): Promise<Assistant> {
    return this.#put(await api.updateAssistant(id, draft));
  }

  async duplicate(id: string): Promise<Assistant> {
    return this.#put(await api.duplicateAssistant(id));
  }

  async remove(id: string): Promise<void> {
    await api.deleteAssistant(id);
    this.items = this.items.filter((a) => a.id !== id);
    if (this.defaultId === id) this.defaultId = null;
  }

  async setDefault(id: string | null): Promise<void> {
    await api.setDefaultAssistant(id);
    this.defaultId = id;
  }

  async addStarter(key: string, lang: string): Promise<Assistant> {
    return this.#put(await api.addStarterAssistant(key, lang));
  }

  /** Asks where, then writes every assistant there; the count, or null when cancelled. */
  async exportAll(): Promise<number | null> {
    const path = await chooseAssistantsExport();
    if (path === null) return null;
    return api.exportAssistants([], path);
  }

  /** Asks for a file, imports its assistants and reloads; null when cancelled. */
  async importFile(): Promise<AssistantImport | null> {
    const path = await chooseImportFile();
    if (path === null) return null;
    const done = await api.importAssistants(path);
    await this.load();
    return done;
  }
}

export const assistants = new AssistantStore();
