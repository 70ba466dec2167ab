// The backups side of the fake backend: the overview Settings → Backups reads and the commands
// that change it, kept in memory as the engine keeps them on disk.
import type { BackupInfo, BackupsOverview, IpcError } from '../bindings';
import { UNHANDLED } from './fakeServers';

export function emptyBackups(): BackupsOverview {
  return { backups: [], folder: '/home/test/.local/share/switchboard/backups', everyHours: 24, keep: 7, restored: null, restoreFailed: null };
}

let taken = 0;

export function backupCommand(state: BackupsOverview, cmd: string, args: Record<string, unknown>): unknown {
  const named = (): BackupInfo => {
    const found = state.backups.find((b) => b.name === args.name);
    if (!found) throw { kind: 'not_found', message: `there is no backup named ${JSON.stringify(args.name)}` } satisfies IpcError;
    return found;
  };
  switch (cmd) {
    case 'backups_overview':
      return structuredClone(state);
    case 'backup_now': {
      const createdMs = Date.UTC(2026, 11, 6, 9, 0) + ++taken * 60_000;
      const backup: BackupInfo = { name: `switchboard-${createdMs}-manual.db`, createdMs, reason: 'manual', bytes: 262_144, pendingRestore: false };
      state.backups.unshift(backup);
      return backup;
    }
    case 'restore_backup': {
      const chosen = named();
      for (const b of state.backups) b.pendingRestore = b === chosen;
      return chosen;
    }
    case 'cancel_restore':
      for (const b of state.backups) b.pendingRestore = false;
      return null;
    case 'remove_backup':
      named();
      state.backups = state.backups.filter((b) => b.name !== args.name);
      return null;
    case 'set_backup_schedule':
      state.everyHours = Number(args.everyHours);
      state.keep = Number(args.keep);
      return structuredClone(state);
    default:
      return UNHANDLED;
  }
}
