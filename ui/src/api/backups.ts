// The database's backups (src-tauri/src/commands/backups.rs).
import type { BackupInfo, BackupsOverview } from '../bindings';
import * as commands from './commands';

export { backupNow, backupsOverview, cancelRestore } from './commands';

/** Has backup `name` restored at the next start, once it has passed its check. */
export function restoreBackup(name: string): Promise<BackupInfo> {
  return commands.restoreBackup({ name });
}

/** Removes backup `name`. */
export function removeBackup(name: string): Promise<void> {
  return commands.removeBackup({ name });
}

/** A backup every `everyHours` hours (0: none), the newest `keep` kept. */
export function setBackupSchedule(everyHours: number, keep: number): Promise<BackupsOverview> {
  return commands.setBackupSchedule({ everyHours, keep });
}
