// The database's backups for Settings → Backups: the engine's commands (through `api`).
export { backupNow, backupsOverview, cancelRestore, removeBackup, restoreBackup, setBackupSchedule } from '../api';
