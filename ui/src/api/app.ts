// The app itself (src-tauri/src/commands/app.rs).
import type { IpcError } from '../bindings';
import * as commands from './commands';

export { appInfo } from './commands';

/**
 * Opens an http(s) or mailto link in the system browser/mail client, never in the webview.
 * Anything else is refused here already, before it reaches the engine (which refuses it too).
 */
export async function openExternal(url: string): Promise<void> {
  if (!/^(https?:\/\/|mailto:)/i.test(url)) {
    throw { kind: 'invalid_input', message: `not an http(s) or mailto link: ${url}` } satisfies IpcError;
  }
  await commands.openExternal({ url });
}

/** Opens a file a knowledge base indexed (a citation's source) in its default app. */
export function openKnowledgeFile(path: string): Promise<void> {
  return commands.openKnowledgeFile({ path });
}
