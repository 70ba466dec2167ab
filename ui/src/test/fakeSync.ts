// The sync side of the fake backend: the overview Settings → Sync reads and the commands that
// change it, kept in memory as the engine keeps them in the database.
import type { IpcError, SyncOverview, SyncReport, SyncSetup } from '../bindings';
import { UNHANDLED } from './fakeServers';

export function noSync(): SyncOverview {
  return { settings: null, device: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', deviceName: 'laptop', lastSync: null, pending: 0, lastReport: null, lastError: null, peers: [], conflicts: [] };
}

const REPORT: SyncReport = { pulled: 12, pushed: 3, conflicts: 0, waiting: 0, batchesIn: 1, batchesOut: 1, bytesUp: 2048, bytesDown: 8192, requests: 7, millis: 120 };

export function syncCommand(state: SyncOverview, cmd: string, args: Record<string, unknown>): unknown {
  switch (cmd) {
    case 'sync_overview':
      return structuredClone(state);
    case 'sync_setup': {
      const setup = args.setup as SyncSetup;
      if (setup.passphrase === 'wrong passphrase') throw { kind: 'invalid_input', message: 'the passphrase does not open this sync folder' } satisfies IpcError;
      state.settings = { target: setup.target, encrypted: !!setup.passphrase, everyMinutes: setup.everyMinutes ?? 15, timeoutSecs: 60 };
      state.lastSync = Date.UTC(2026, 11, 6, 9, 0);
      state.lastReport = REPORT;
      return REPORT;
    }
    case 'sync_now':
      state.lastReport = { ...REPORT, pulled: 1, pushed: 0 };
      return state.lastReport;
    case 'sync_off':
      state.settings = null;
      return null;
    case 'use_sync_conflict':
    case 'dismiss_sync_conflict':
      state.conflicts = state.conflicts.filter((c) => c.id !== args.id);
      return null;
    default:
      return UNHANDLED;
  }
}
