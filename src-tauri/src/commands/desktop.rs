//! Commands of the desktop integration (see `crate::desktop`): Settings → General → Desktop
//! (the quick window's shortcut, the tray, closing to the tray, starting on login), the quick
//! window's own (its context, hiding it, handing its conversation to the main window), and
//! updates (checking, installing with progress, restarting).

use switchboard_engine::{Engine, ErrorKind};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, Runtime, State};

use super::CmdResult;
use crate::desktop::update::{self, CheckOutcome, UpdateProgress, UpdateSettings, Updates};
use crate::desktop::{self, DesktopSettings, DesktopStatus, quick};
use crate::error::IpcError;

/// The desktop settings and what became of them (a shortcut another app holds, no tray).
#[tauri::command]
pub async fn desktop_status<R: Runtime>(app: AppHandle<R>) -> CmdResult<DesktopStatus> {
    Ok(desktop::status(&app).await)
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
pub async fn set_start_on_login<R: Runtime>(
    app: AppHandle<R>,
    on: bool,
) -> CmdResult<DesktopStatus> {
    desktop::set_start_on_login(&app, on).map_err(|m| IpcError::new(ErrorKind::Io, m))?;
    Ok(desktop::status(&app).await)
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

/// The update settings and this version.
#[tauri::command]
pub fn update_settings<R: Runtime>(app: AppHandle<R>) -> UpdateSettings {
    (app.try_state::<Updates>()).map_or_else(UpdateSettings::default, |u| u.settings())
}

/// Turns automatic update checks on or off.
#[tauri::command]
pub async fn set_update_settings<R: Runtime>(
    app: AppHandle<R>,
    engine: State<'_, Engine>,
    settings: UpdateSettings,
) -> CmdResult<UpdateSettings> {
    (update::change(&app, &engine, settings).await).map_err(|m| IpcError::new(ErrorKind::Io, m))
}

/// Asks the update feed for a newer version.
#[tauri::command]
pub async fn check_for_update<R: Runtime>(app: AppHandle<R>) -> CmdResult<CheckOutcome> {
    (update::check(&app, update::TIMEOUT, None).await).map_err(failed)
}

/// Downloads, verifies and installs the update the last check found, reporting each step on
/// `on_progress`; the new version runs after a restart.
#[tauri::command]
pub async fn install_update<R: Runtime>(
    app: AppHandle<R>,
    on_progress: Channel<UpdateProgress>,
) -> CmdResult<String> {
    let progress = move |step| {
        let _ = on_progress.send(step);
    };
    (update::install(&app, update::TIMEOUT, progress).await).map_err(failed)
}

/// Restarts the app (after an update was installed).
#[tauri::command]
pub fn restart_app<R: Runtime>(app: AppHandle<R>) {
    app.restart();
}

fn failed(failure: update::UpdateFailure) -> IpcError {
    IpcError::new(ErrorKind::ProviderUnavailable, failure.to_string())
}
