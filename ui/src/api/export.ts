// Export and import of conversations (src-tauri/src/commands/export.rs).
import { Channel } from '@tauri-apps/api/core';
import type { ExportProgress, ExportRequest, ExportSummary, ImportResult } from '../bindings';
import * as commands from './commands';

/** Exports conversations as `request` says; progress arrives on `onProgress`. */
export function exportConversations(request: ExportRequest, onProgress: (progress: ExportProgress) => void): Promise<ExportSummary> {
  return commands.exportConversations({ request, onProgress: new Channel<ExportProgress>(onProgress) });
}

/** What importing the file would change, without changing anything. */
export function previewImport(path: string): Promise<ImportResult> {
  return commands.previewImport({ path });
}

/** Imports the file, merging by conversation and message id. */
export function importConversations(path: string): Promise<ImportResult> {
  return commands.importConversations({ path });
}
