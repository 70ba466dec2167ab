// The native file pickers (tauri-plugin-dialog) for export, import and roots. Each resolves to
// the chosen path, or null when the user closes the picker; a failure rejects with the plugin's
// error as is (the caller shows it through `toIpcError`, once).
import { open, save } from '@tauri-apps/plugin-dialog';
import type { ExportFormat } from '../bindings';

const EXTENSIONS: Record<ExportFormat, string> = { md: 'md', json: 'json', html: 'html' };

/** A file name from a conversation title: no path separators or control characters. */
export function fileStem(title: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = title.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return cleaned.slice(0, 80) || 'conversation';
}

/** Asks where to write an export: a file, or a folder when `folder` is set. */
export function chooseExportDestination(format: ExportFormat, folder: boolean, stem: string): Promise<string | null> {
  if (folder) return open({ directory: true, multiple: false });
  const extension = EXTENSIONS[format];
  return save({ defaultPath: `${stem}.${extension}`, filters: [{ name: extension.toUpperCase(), extensions: [extension] }] });
}

/** Asks for a file to import (Switchboard JSON, or a ChatGPT or Claude export). */
export function chooseImportFile(): Promise<string | null> {
  return open({ multiple: false, directory: false, filters: [{ name: 'JSON', extensions: ['json'] }] });
}

/** Asks for folders to add as roots (several may be chosen); empty when the picker is closed. */
export async function chooseFolders(): Promise<string[]> {
  const chosen = await open({ directory: true, multiple: true });
  if (chosen === null) return [];
  return Array.isArray(chosen) ? chosen : [chosen];
}

/** Asks for a `.gguf` model file to import. */
export function chooseModelFile(): Promise<string | null> {
  return open({ multiple: false, directory: false, filters: [{ name: 'GGUF', extensions: ['gguf'] }] });
}

/** Asks where to write the assistants file. */
export function chooseAssistantsExport(): Promise<string | null> {
  return save({ defaultPath: 'assistants.json', filters: [{ name: 'JSON', extensions: ['json'] }] });
}

/** Asks for files to attach to a message (images, PDFs, text and code); empty when closed. */
export async function chooseAttachments(): Promise<string[]> {
  const chosen = await open({ multiple: true, directory: false });
  if (chosen === null) return [];
  return Array.isArray(chosen) ? chosen : [chosen];
}

/** Asks for an MCP Bundle (`.mcpb`) to preview and install. */
export function chooseBundleFile(): Promise<string | null> {
  return open({ multiple: false, directory: false, filters: [{ name: 'MCP Bundle', extensions: ['mcpb'] }] });
}

/** Asks where to save an artifact of the given extension (html, svg or mmd). */
export function chooseArtifactDestination(extension: string): Promise<string | null> {
  return save({ defaultPath: `artifact.${extension}`, filters: [{ name: extension.toUpperCase(), extensions: [extension] }] });
}

/** Asks for one folder (the synced folder sync writes in). */
export async function chooseFolder(): Promise<string | null> {
  const chosen = await open({ directory: true, multiple: false });
  return Array.isArray(chosen) ? (chosen[0] ?? null) : chosen;
}
