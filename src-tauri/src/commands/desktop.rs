//! Commands of the desktop integration (see `crate::desktop`): Settings → General → Desktop
//! (the quick window's shortcut, the tray, closing to the tray, starting on login) and the
//! quick window's own (its context, hiding it, handing its conversation to the main window).

use switchboard_engine::{Engine, ErrorKind};
use tauri::{AppHandle, Runtime, State};

use super::CmdResult;
use crate::desktop::{self, DesktopSettings, DesktopStatus, quick};
use crate::error::IpcError;

/// The desktop settings and what became of them (a shortcut another app holds, no tray).
#[tauri::command]
pub fn desktop_status<R: Runtime>(app: AppHandle<R>) -> DesktopStatus {
    desktop::status(&app)
}

/// Changes the desktop settings; a shortcut that cannot be taken leaves the old one.
#[tauri::command]
pub async fn set_desktop_settings<R: Runtime>(
    app: AppHandle<R>,
    engine: State<'_, Engine>,
    settings: DesktopSettings,
) -> CmdResult<DesktopStatus> {
    desktop::change(&app, &engine, settings)
        .await
        .map_err(|e| IpcError::invalid(e.to_string()))
}

/// Turns starting on login on or off.
#[tauri::command]
pub fn set_start_on_login<R: Runtime>(app: AppHandle<R>, on: bool) -> CmdResult<DesktopStatus> {
    desktop::set_start_on_login(&app, on).map_err(|m| IpcError::new(ErrorKind::Io, m))?;
    Ok(desktop::status(&app))
}

/// The text selection and the clipboard, for the quick window to offer as context.
#[tauri::command]
pub async fn quick_context() -> CmdResult<quick::QuickContext> {
    tokio::task::spawn_blocking(quick::context)
        .await
        .map_err(|e| IpcError {
            kind: ErrorKind::Internal,
            message: format!("the clipboard could not be read: {e}"),
        })
}

/// Hides the quick window.
#[tauri::command]
pub fn hide_quick_window<R: Runtime>(app: AppHandle<R>) {
    quick::hide(&app);
}

/// Hides the quick window and opens conversation `conversation_id` in the main window.
#[tauri::command]
pub fn open_in_main_window<R: Runtime>(
    app: AppHandle<R>,
    conversation_id: String,
) -> CmdResult<()> {
    quick::open_in_main(&app, &conversation_id).map_err(|e| IpcError {
        kind: ErrorKind::Internal,
        message: format!("the main window could not be asked to open the conversation: {e}"),
    })
}
