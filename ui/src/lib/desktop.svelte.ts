// The app on the desktop: what it knows about itself (`appInfo`: name, version), opening
// links outside the webview (`openExternal`: http(s) and mailto only, in the system browser or
// mail client), and the desktop integration — the quick window, the tray, starting on login.
// Components reach these through here, not through the api/ modules.
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import { appInfo as readAppInfo } from '../api';
import type { AppInfo } from '../bindings';

export { openExternal, openKnowledgeFile } from '../api';

let info: Promise<AppInfo> | null = null;

/** The app's name, version and folders: asked once, shared by whoever shows them (a failed
 * answer is asked for again next time). */
export function appInfo(): Promise<AppInfo> {
  info ??= readAppInfo().catch((error: unknown) => {
    info = null;
    throw error;
  });
  return info;
}

/** Forgets the app info read (tests start each from a new backend). */
export function forgetAppInfo(): void {
  info = null;
}
export { desktopStatus, hideQuickWindow, openInMainWindow, quickContext, setDesktopSettings, setStartOnLogin } from '../api';
export { checkForUpdate, installUpdate, restartApp, setUpdateSettings, updateSettings } from '../api';

/** A newer version was found by the automatic check (payload: `AvailableUpdate`). */
export const UPDATE_AVAILABLE_EVENT = 'update:available';

/** The quick window's label (src-tauri/src/desktop/quick.rs). */
export const QUICK_WINDOW = 'quick';

/** The main window is asked to open a conversation (its id). */
export const OPEN_CONVERSATION_EVENT = 'desktop:open-conversation';
/** The main window is asked for a new chat (the tray's "New chat"). */
export const NEW_CHAT_EVENT = 'desktop:new-chat';
/** The quick window was shown again. */
export const QUICK_SHOWN_EVENT = 'desktop:quick-shown';

/** Whether this page is the quick window's (Tauri tells each page its window's label). */
export function isQuickWindow(): boolean {
  const internals = (globalThis as { __TAURI_INTERNALS__?: { metadata?: { currentWindow?: { label?: string } } } }).__TAURI_INTERNALS__;
  return internals?.metadata?.currentWindow?.label === QUICK_WINDOW;
}

/** Calls `handle` on every `name` event (with its payload) until the returned function is called. */
export function onDesktopEvent<T>(name: string, handle: (payload: T) => void): () => void {
  const stop: Promise<UnlistenFn> = listen<T>(name, ({ payload }) => handle(payload));
  return () => void stop.then((unlisten) => unlisten()).catch(() => undefined);
}
