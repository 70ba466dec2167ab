// The desktop side of the fake backend: Settings → Desktop's status and the commands that
// change it (a shortcut "another app holds" is refused, keeping the old one, as the shell does),
// and the quick window's commands.
import type { CheckOutcome, DesktopSettings, DesktopStatus, IpcError, QuickContext, UpdateProgress, UpdateSettings } from '../bindings';
import { UNHANDLED } from './fakeServers';

/** A shortcut the fake treats as taken by another app. */
export const TAKEN_SHORTCUT = 'Ctrl+Alt+T';

/** The update side: the settings, what a check finds, and how an install goes (the steps sent
 * on its channel, then its version or its error). */
export type UpdateFake = { settings: UpdateSettings; check: CheckOutcome | IpcError; steps: UpdateProgress[]; install: string | IpcError };

export type DesktopFake = { status: DesktopStatus; context: QuickContext; update: UpdateFake };

const isError = (value: unknown): value is IpcError => typeof value === 'object' && value !== null && 'kind' in value;

/** Sends `steps` on the channel the command was given, the way Tauri does. */
function sendOn(channel: unknown, steps: UpdateProgress[]) {
  const id = (channel as { id: number }).id;
  const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } }).__TAURI_INTERNALS__;
  steps.forEach((message, index) => internals.runCallback(id, { index, message }));
}

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
    update: {
      settings: { automatic: true },
      check: { type: 'upToDate', current: '0.1.0', offered: '0.1.0' },
      steps: [],
      install: '0.2.0',
    },
  };
}

export function desktopCommand(state: DesktopFake, cmd: string, args: Record<string, unknown>): unknown {
  switch (cmd) {
    case 'desktop_status':
      return structuredClone(state.status);
    case 'set_desktop_settings': {
      const wanted = args.settings as DesktopSettings;
      if (wanted.shortcut === TAKEN_SHORTCUT) {
        throw { kind: 'invalid_input', message: `${TAKEN_SHORTCUT} could not be taken: another app holds it. ${state.status.settings.shortcut} is kept` } satisfies IpcError;
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
    case 'restart_app':
      return null;
    case 'update_settings':
      return structuredClone(state.update.settings);
    case 'set_update_settings':
      state.update.settings = { ...(args.settings as UpdateSettings) };
      return structuredClone(state.update.settings);
    case 'check_for_update':
      if (isError(state.update.check)) throw state.update.check;
      return structuredClone(state.update.check);
    case 'install_update':
      sendOn(args.onProgress, state.update.steps);
      if (isError(state.update.install)) throw state.update.install;
      return state.update.install;
    default:
      return UNHANDLED;
  }
}
