//! Commands of Settings → Sync: set sync up (WebDAV or a synced folder, optionally encrypted),
//! sync now, see where it stands, take back or dismiss what a conflict set aside, stop.

use switchboard_engine::sync::{SyncOverview, SyncReport, SyncSetup};
use switchboard_engine::{Engine, EngineError};
use tauri::State;

use super::CmdResult;

/// How sync is set up, the other devices, changes waiting, the last sync and the conflicts.
#[tauri::command]
pub async fn sync_overview(engine: State<'_, Engine>) -> CmdResult<SyncOverview> {
    Ok(engine.sync().overview().await.map_err(EngineError::from)?)
}

/// Sets sync up (the folder is checked with the passphrase first) and syncs once.
#[tauri::command]
pub async fn sync_setup(engine: State<'_, Engine>, setup: SyncSetup) -> CmdResult<SyncReport> {
    Ok(engine
        .sync()
        .setup(setup)
        .await
        .map_err(EngineError::from)?)
}

/// Syncs now.
#[tauri::command]
pub async fn sync_now(engine: State<'_, Engine>) -> CmdResult<SyncReport> {
    Ok(engine.sync().sync_now().await.map_err(EngineError::from)?)
}

/// Stops syncing this machine; the data here and in the sync folder stay.
#[tauri::command]
pub async fn sync_off(engine: State<'_, Engine>) -> CmdResult<()> {
    Ok(engine
        .sync()
        .disconnect()
        .await
        .map_err(EngineError::from)?)
}

/// Takes back what conflict `id` set aside (a new edit, synced like any other).
#[tauri::command]
pub async fn use_sync_conflict(engine: State<'_, Engine>, id: String) -> CmdResult<()> {
    Ok(engine
        .store()
        .use_sync_conflict(&id)
        .await
        .map_err(EngineError::from)?)
}

/// Forgets conflict `id`.
#[tauri::command]
pub async fn dismiss_sync_conflict(engine: State<'_, Engine>, id: String) -> CmdResult<()> {
    Ok(engine
        .store()
        .dismiss_sync_conflict(&id)
        .await
        .map_err(EngineError::from)?)
}
