//! The tray icon and its menu: open the window, a new chat, the quick window, pause or resume
//! every MCP server, quit. On Linux the icon is a StatusNotifier item; a desktop without a
//! tray host ([`host_missing`]) still gets the app, and Settings says why there is no icon.

use switchboard_engine::Engine;
use tauri::menu::{Menu, MenuEvent, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Emitter, Manager, Runtime};

/// The tray icon's id.
const TRAY: &str = "switchboard";

/// Asks the main window's page to open a new chat.
pub const NEW_CHAT_EVENT: &str = "desktop:new-chat";

/// The menu items' ids.
const OPEN: &str = "open";
const NEW_CHAT: &str = "new-chat";
const QUICK: &str = "quick";
const PAUSE: &str = "pause";
const QUIT: &str = "quit";

/// Shows the tray icon (made on first use) or hides it. A failure is logged: the app works
/// without a tray.
pub fn show<R: Runtime>(app: &AppHandle<R>, visible: bool) {
    if let Some(tray) = app.tray_by_id(TRAY) {
        if let Err(error) = tray.set_visible(visible) {
            tracing::warn!(%error, "cannot change the tray icon");
        }
        return;
    }
    if visible && let Err(error) = build(app) {
        tracing::warn!(%error, "cannot show the tray icon");
    }
}

/// The menu's pause item, whose text says what it does next.
struct PauseItem<R: Runtime>(MenuItem<R>);

fn build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    let item = |id: &str, text: &str| MenuItem::with_id(app, id, text, true, None::<&str>);
    let pause = item(PAUSE, "Pause all servers")?;
    let menu = Menu::with_items(
        app,
        &[
            &item(OPEN, "Open Switchboard")?,
            &item(NEW_CHAT, "New chat")?,
            &item(QUICK, "Quick window")?,
            &PredefinedMenuItem::separator(app)?,
            &pause,
            &PredefinedMenuItem::separator(app)?,
            &item(QUIT, "Quit Switchboard")?,
        ],
    )?;
    let mut builder = TrayIconBuilder::with_id(TRAY)
        .tooltip("Switchboard")
        .menu(&menu)
        .on_menu_event(on_menu);
    if let Some(icon) = app.default_window_icon() {
        builder = builder.icon(icon.clone());
    }
    builder.build(app)?;
    app.manage(PauseItem(pause));
    Ok(())
}

fn on_menu<R: Runtime>(app: &AppHandle<R>, event: MenuEvent) {
    match event.id().as_ref() {
        OPEN => show_main(app),
        NEW_CHAT => {
            show_main(app);
            if let Err(error) = app.emit_to("main", NEW_CHAT_EVENT, ()) {
                tracing::warn!(%error, "cannot ask for a new chat");
            }
        }
        QUICK => super::quick::toggle(app),
        PAUSE => pause_or_resume(app),
        QUIT => app.exit(0),
        _ => {}
    }
}

/// Shows, unminimizes and focuses the main window.
pub fn show_main<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// Stops every running server, or starts the enabled ones again; the menu item says which
/// comes next.
fn pause_or_resume<R: Runtime>(app: &AppHandle<R>) {
    let Some(engine) = app.try_state::<Engine>().map(|e| e.inner().clone()) else {
        return;
    };
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let paused = match engine.mcp().toggle_pause().await {
            Ok(paused) => paused,
            Err(error) => {
                tracing::warn!(%error, "cannot start the servers again");
                false
            }
        };
        let text = if paused {
            "Resume servers"
        } else {
            "Pause all servers"
        };
        if let Some(item) = app.try_state::<PauseItem<R>>() {
            let _ = item.0.set_text(text);
        }
    });
}

/// Why this desktop shows no tray icons, when it shows none: on Linux a tray host either
/// registers `org.kde.StatusNotifierWatcher` on the session bus (KDE; GNOME with its
/// AppIndicator extension) or owns the X display's `_NET_SYSTEM_TRAY_S<screen>` selection (an
/// XEmbed tray, which the icon falls back to).
pub async fn host_missing() -> Option<String> {
    const PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);
    match tokio::time::timeout(PATIENCE, ask_for_host()).await {
        Ok(found) => found,
        Err(_) => Some("the desktop did not say within 2 s whether it has a tray".into()),
    }
}

async fn ask_for_host() -> Option<String> {
    #[cfg(target_os = "linux")]
    {
        let watcher = status_notifier_watcher().await;
        if watcher.is_ok() {
            return None;
        }
        if let Ok(Ok(())) = tokio::task::spawn_blocking(xembed_tray).await {
            return None;
        }
        watcher.err()
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// `Ok` when a StatusNotifierWatcher is on the session bus; otherwise why not.
#[cfg(target_os = "linux")]
async fn status_notifier_watcher() -> Result<(), String> {
    const WATCHER: &str = "org.kde.StatusNotifierWatcher";
    match crate::handover::bus_name_owned(WATCHER).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(
            "this desktop has no tray host (no StatusNotifierWatcher and no system tray; on GNOME, the AppIndicator extension adds one)"
                .into(),
        ),
        Err(error) => Err(format!("the tray host could not be asked for: {error}")),
    }
}

/// `Ok` when an XEmbed system tray owns the X display's tray selection.
#[cfg(target_os = "linux")]
fn xembed_tray() -> Result<(), String> {
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::ConnectionExt as _;
    let (connection, screen) = x11rb::connect(None).map_err(|e| e.to_string())?;
    let name = format!("_NET_SYSTEM_TRAY_S{screen}");
    let atom = (connection.intern_atom(false, name.as_bytes()))
        .map_err(|e| e.to_string())?
        .reply()
        .map_err(|e| e.to_string())?
        .atom;
    let owner = (connection.get_selection_owner(atom))
        .map_err(|e| e.to_string())?
        .reply()
        .map_err(|e| e.to_string())?
        .owner;
    let _ = connection.flush();
    if owner == x11rb::NONE {
        Err("no XEmbed system tray".into())
    } else {
        Ok(())
    }
}
