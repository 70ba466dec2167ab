// Model providers: presets, add, list, key, settings, remove, models, test, a local Ollama
// (src-tauri/src/commands/providers.rs). Keys go in; only their masked status comes back.
import type { ConnectionTest, ModelInfo, NewProvider, ProviderSettings, ProviderView } from '../bindings';
import * as commands from './commands';

export { detectOllama, listPresets, listProviders } from './commands';

export function addProvider(input: NewProvider): Promise<ProviderView> {
  return commands.addProvider({ input });
}

/** Sets, or with `null` forgets, a provider's key; only its masked status comes back. */
export function setProviderKey(id: string, key: string | null): Promise<ProviderView> {
  return commands.setProviderKey({ id, key });
}

/** Replaces a provider's settings: default model, tool mode per model, strict tools. */
export function setProviderSettings(id: string, settings: ProviderSettings): Promise<ProviderView> {
  return commands.setProviderSettings({ id, settings });
}

export function removeProvider(id: string): Promise<void> {
  return commands.removeProvider({ id });
}

export function providerModels(id: string): Promise<ModelInfo[]> {
  return commands.providerModels({ id });
}

export function testProvider(id: string): Promise<ConnectionTest> {
  return commands.testProvider({ id });
}
