// Sync between machines for Settings → Sync: the engine's commands (through `api`).
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import type { SyncReport } from '../bindings';
export { dismissSyncConflict, syncNow, syncOff, syncOverview, syncSetup, useSyncConflict } from '../api';

/** The event a finished sync sends. */
export const SYNC_EVENT = 'sync';

/** Calls `handle` with every finished sync's report until the returned function is called. */
export function onSynced(handle: (report: SyncReport) => void): () => void {
  const stop: Promise<UnlistenFn> = listen<SyncReport>(SYNC_EVENT, ({ payload }) => handle(payload));
  return () => void stop.then((unlisten) => unlisten()).catch(() => undefined);
}
