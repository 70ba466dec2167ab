// Sync between machines (src-tauri/src/commands/sync.rs).
import type { SyncReport, SyncSetup } from '../bindings';
import * as commands from './commands';

export { syncNow, syncOff, syncOverview } from './commands';

/** Sets sync up (the folder is checked with the passphrase first) and syncs once. */
export function syncSetup(setup: SyncSetup): Promise<SyncReport> {
  return commands.syncSetup({ setup });
}

/** Takes back what conflict `id` set aside. */
export function useSyncConflict(id: string): Promise<void> {
  return commands.useSyncConflict({ id });
}

/** Forgets conflict `id`. */
export function dismissSyncConflict(id: string): Promise<void> {
  return commands.dismissSyncConflict({ id });
}
