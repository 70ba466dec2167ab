// The app on the desktop beyond its main window (src-tauri/src/commands/desktop.rs): the
// quick window's shortcut, the tray, closing to the tray, starting on login, and the quick
// window's own commands.
import { Channel } from '@tauri-apps/api/core';
import type { DesktopSettings, DesktopStatus, UpdateProgress, UpdateSettings } from '../bindings';
import * as commands from './commands';

export { checkForUpdate, desktopStatus, hideQuickWindow, quickContext, restartApp, updateSettings } from './commands';

/** Turns automatic update checks on or off. */
export function setUpdateSettings(settings: UpdateSettings): Promise<UpdateSettings> {
  return commands.setUpdateSettings({ settings });
}

/** Downloads, verifies and installs the update the last check found; `onProgress` hears each
 * step. Resolves with the version installed (it runs after a restart). */
export function installUpdate(onProgress: (step: UpdateProgress) => void): Promise<string> {
  return commands.installUpdate({ onProgress: new Channel<UpdateProgress>(onProgress) });
}

/** Changes the desktop settings; a shortcut that cannot be taken leaves the old one. */
export function setDesktopSettings(settings: DesktopSettings): Promise<DesktopStatus> {
  return commands.setDesktopSettings({ settings });
}

/** Turns starting on login on or off. */
export function setStartOnLogin(on: boolean): Promise<DesktopStatus> {
  return commands.setStartOnLogin({ on });
}

/** Hides the quick window and opens conversation `conversationId` in the main window. */
export function openInMainWindow(conversationId: string): Promise<void> {
  return commands.openInMainWindow({ conversationId });
}
