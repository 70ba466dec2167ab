//! Commands about the app itself.

use switchboard_engine::{AppInfo, Engine};
use tauri::State;

use super::CmdResult;

/// Version, directories and schema version of the running app.
#[tauri::command]
pub async fn app_info(engine: State<'_, Engine>) -> CmdResult<AppInfo> {
    Ok(engine.info().await?)
}
