// The built-in model's models folder (src-tauri/src/commands/models.rs; only in builds with the
// `local` feature, except the catalogue).
import { Channel } from '@tauri-apps/api/core';
import type { LocalModel, ModelDownloadProgress, ProviderView } from '../bindings';
import * as commands from './commands';

export { cancelModelDownload, listModels, modelCatalogue } from './commands';

/** Copies a `.gguf` file from disk into the models folder. */
export function importModel(path: string): Promise<LocalModel> {
  return commands.importModel({ path });
}

/** Deletes a model from the models folder. */
export function removeModel(name: string): Promise<void> {
  return commands.removeModel({ name });
}

/** Downloads a `.gguf` from `url` (checked against `sha256` when given); progress arrives on `onProgress`. */
export function downloadModel(
  url: string,
  sha256: string | null,
  onProgress: (progress: ModelDownloadProgress) => void,
): Promise<LocalModel> {
  return commands.downloadModel({ url, sha256, onProgress: new Channel<ModelDownloadProgress>(onProgress) });
}

/** Makes a model the built-in provider's default (adding that provider when there is none). */
export function setDefaultLocalModel(name: string): Promise<ProviderView> {
  return commands.setDefaultLocalModel({ name });
}
