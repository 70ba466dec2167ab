// The app on the desktop beyond its main window (src-tauri/src/commands/desktop.rs): the
// quick window's shortcut, the tray, closing to the tray, starting on login, and the quick
// window's own commands.
import type { DesktopSettings, DesktopStatus } from '../bindings';
import * as commands from './commands';

export { desktopStatus, hideQuickWindow, quickContext } from './commands';

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
