//! Commands of Settings → Backups: the database's backups and their schedule; take one now,
//! have one restored at the next start (the database of the moment is kept first), forget
//! that, remove one.

use serde_json::json;
use switchboard_engine::Engine;
use switchboard_engine::backups::{self, BackupInfo, BackupReason, BackupsOverview};
use tauri::State;

use super::CmdResult;
use crate::error::IpcError;

/// The backups, the schedule, and what a restore did at this start.
#[tauri::command]
pub async fn backups_overview(engine: State<'_, Engine>) -> CmdResult<BackupsOverview> {
    Ok(engine.backups_overview().await?)
}

/// Takes a backup now.
#[tauri::command]
pub async fn backup_now(engine: State<'_, Engine>) -> CmdResult<BackupInfo> {
    let taken = engine.backups().take(engine.store(), BackupReason::Manual);
    Ok(taken.await.map_err(switchboard_engine::EngineError::from)?)
}

/// Has backup `name` restored at the next start, once it has passed its check.
#[tauri::command]
pub async fn restore_backup(engine: State<'_, Engine>, name: String) -> CmdResult<BackupInfo> {
    let scheduled = engine.backups().schedule_restore(&name);
    Ok(scheduled
        .await
        .map_err(switchboard_engine::EngineError::from)?)
}

/// Forgets a scheduled restore.
#[tauri::command]
pub fn cancel_restore(engine: State<'_, Engine>) -> CmdResult<()> {
    let cancelled = engine.backups().cancel_restore();
    Ok(cancelled.map_err(switchboard_engine::EngineError::from)?)
}

/// Removes backup `name`.
#[tauri::command]
pub fn remove_backup(engine: State<'_, Engine>, name: String) -> CmdResult<()> {
    let removed = engine.backups().remove(&name);
    Ok(removed.map_err(switchboard_engine::EngineError::from)?)
}

/// Sets the schedule: a backup every `every_hours` hours (0: none), the newest `keep` kept.
#[tauri::command]
pub async fn set_backup_schedule(
    engine: State<'_, Engine>,
    every_hours: u64,
    keep: u64,
) -> CmdResult<BackupsOverview> {
    if keep == 0 || every_hours > 24 * 365 {
        return Err(IpcError {
            kind: switchboard_engine::ErrorKind::InvalidInput,
            message: "keep at least one backup, and back up at least once a year".into(),
        });
    }
    let store = engine.store();
    store
        .set_setting(backups::EVERY_HOURS, &json!(every_hours))
        .await?;
    store.set_setting(backups::KEEP, &json!(keep)).await?;
    Ok(engine.backups_overview().await?)
}
