// The desktop side of the fake backend: Settings → Desktop's status and the commands that
// change it (a shortcut "another app holds" is refused, keeping the old one, as the shell does),
// and the quick window's commands.
import type { DesktopSettings, DesktopStatus, IpcError, QuickContext } from '../bindings';
import { UNHANDLED } from './fakeServers';

/** A shortcut the fake treats as taken by another app. */
export const TAKEN_SHORTCUT = 'Ctrl+Alt+T';

export type DesktopFake = { status: DesktopStatus; context: QuickContext };

export function defaultDesktop(): DesktopFake {
  return {
    status: {
      settings: { shortcut: 'Ctrl+Alt+Space', tray: true, closeToTray: false },
      shortcutError: null,
      trayNote: null,
      startOnLogin: false,
      startOnLoginError: null,
    },
    context: { selection: null, clipboard: null },
  };
}

export function desktopCommand(state: DesktopFake, cmd: string, args: Record<string, unknown>): unknown {
  switch (cmd) {
    case 'desktop_status':
      return structuredClone(state.status);
    case 'set_desktop_settings': {
      const wanted = args.settings as DesktopSettings;
      if (wanted.shortcut === TAKEN_SHORTCUT) {
        throw { kind: 'invalid_input', message: `${TAKEN_SHORTCUT} could not be taken; another app may be using it (already registered). ${state.status.settings.shortcut} is kept` } satisfies IpcError;
      }
      if (wanted.closeToTray && state.status.trayNote) {
        throw { kind: 'invalid_input', message: `closing to the tray needs the tray icon, and this desktop shows none (${state.status.trayNote})` } satisfies IpcError;
      }
      state.status.settings = { ...wanted };
      state.status.shortcutError = null;
      return structuredClone(state.status);
    }
    case 'set_start_on_login':
      state.status.startOnLogin = args.on as boolean;
      return structuredClone(state.status);
    case 'quick_context':
      return structuredClone(state.context);
    case 'hide_quick_window':
    case 'open_in_main_window':
      return null;
    default:
      return UNHANDLED;
  }
}
