//! The app on the desktop beyond its main window: the tray icon and its menu ([`tray`]), the
//! global shortcut that opens the quick window ([`quick`]), keeping the app in the tray when
//! the main window closes, and starting on login. Owns the per-machine settings of Settings →
//! General → Desktop (they never sync) and what became of applying them.

pub mod quick;
pub mod tray;
pub mod update;

use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use switchboard_engine::Engine;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_autostart::AutoLaunchManager;
use tauri_plugin_global_shortcut::{GlobalShortcut, Shortcut};
use ts_rs::TS;

/// The settings key holding [`DesktopSettings`].
const SETTINGS_KEY: &str = "desktop";

/// The quick window's shortcut when none was chosen.
pub const DEFAULT_SHORTCUT: &str = "Ctrl+Alt+Space";

/// What the user chose for the app on this machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct DesktopSettings {
    /// The global shortcut that opens the quick window (`Ctrl+Alt+Space`); empty: none.
    pub shortcut: String,
    /// Whether the tray icon is shown.
    pub tray: bool,
    /// Whether closing the main window keeps the app running in the tray.
    pub close_to_tray: bool,
}

impl Default for DesktopSettings {
    fn default() -> Self {
        Self {
            shortcut: DEFAULT_SHORTCUT.into(),
            tray: true,
            close_to_tray: false,
        }
    }
}

/// The settings and what became of them on this desktop.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DesktopStatus {
    /// The settings in effect (a shortcut that could not be taken is not among them).
    pub settings: DesktopSettings,
    /// Why the last shortcut asked for is not in effect, if it is not.
    pub shortcut_error: Option<String>,
    /// Whether this desktop shows tray icons; when not, why (the app works without).
    pub tray_note: Option<String>,
    /// Whether the app starts when the user logs in.
    pub start_on_login: bool,
    /// Why starting on login cannot be read or changed here, if it cannot.
    pub start_on_login_error: Option<String>,
}

/// The desktop state the tray, the shortcut and the close handler share.
#[derive(Default)]
pub struct Desktop {
    settings: Mutex<DesktopSettings>,
    shortcut_error: Mutex<Option<String>>,
    tray_note: Mutex<Option<String>>,
}

impl Desktop {
    /// The settings in effect.
    pub fn settings(&self) -> DesktopSettings {
        self.settings.lock().map(|s| s.clone()).unwrap_or_default()
    }

    fn set_settings(&self, settings: DesktopSettings) {
        if let Ok(mut held) = self.settings.lock() {
            *held = settings;
        }
    }

    fn note_shortcut(&self, error: Option<String>) {
        if let Ok(mut held) = self.shortcut_error.lock() {
            *held = error;
        }
    }

    fn note_tray(&self, note: Option<String>) {
        if let Ok(mut held) = self.tray_note.lock() {
            *held = note;
        }
    }

    /// Whether closing the main window should hide it instead: the user chose so and a tray
    /// host is there to bring it back.
    pub fn keeps_running_in_tray(&self) -> bool {
        let settings = self.settings();
        let tray_host = self.tray_note.lock().map(|n| n.is_none()).unwrap_or(false);
        settings.tray && settings.close_to_tray && tray_host
    }
}

/// Closing the main window hides it when the app stays in the tray; otherwise the app ends
/// with it (a hidden quick window does not keep it running).
pub fn on_window_event<R: Runtime>(window: &tauri::Window<R>, event: &tauri::WindowEvent) {
    if window.label() != "main" {
        return;
    }
    match event {
        tauri::WindowEvent::CloseRequested { api, .. }
            if (window.try_state::<Desktop>()).is_some_and(|d| d.keeps_running_in_tray()) =>
        {
            api.prevent_close();
            let _ = window.hide();
        }
        tauri::WindowEvent::Destroyed => window.app_handle().exit(0),
        _ => {}
    }
}

/// Reads the stored settings (defaults when none or unreadable; the reason is logged).
pub async fn load(engine: &Engine) -> DesktopSettings {
    match engine.store().setting(SETTINGS_KEY).await {
        Ok(Some(value)) => serde_json::from_value(value).unwrap_or_else(|error| {
            tracing::warn!(%error, "the desktop settings are unreadable; defaults used");
            DesktopSettings::default()
        }),
        Ok(None) => DesktopSettings::default(),
        Err(error) => {
            tracing::warn!(%error, "cannot read the desktop settings; defaults used");
            DesktopSettings::default()
        }
    }
}

/// Applies the stored settings at start: the tray, then the shortcut. Failures are kept for
/// Settings to show; the app runs without what failed.
pub async fn start<R: Runtime>(app: &AppHandle<R>, engine: &Engine) {
    let settings = load(engine).await;
    let Some(desktop) = app.try_state::<Desktop>() else {
        return;
    };
    // Asking D-Bus and X11 for a tray host is left off the start-up path.
    let asking = app.clone();
    tauri::async_runtime::spawn(async move {
        let note = tray::host_missing().await;
        if let Some(desktop) = asking.try_state::<Desktop>() {
            desktop.note_tray(note);
        }
    });
    if settings.tray {
        tray::show(app, true);
    }
    let error = register(app, "", &settings.shortcut).err();
    if let Some(error) = &error {
        tracing::warn!(%error, "the quick window's shortcut is not in effect");
    }
    let reachable = settings.tray || (error.is_none() && !settings.shortcut.is_empty());
    desktop.note_shortcut(error);
    desktop.set_settings(settings);
    if reachable {
        let app = app.clone();
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(quick::prepare_after()).await;
            quick::prepare(&app);
        });
    }
}

/// The settings and what became of them; whether there is a tray host is asked again (one
/// may have started since).
pub async fn status<R: Runtime>(app: &AppHandle<R>) -> DesktopStatus {
    let tray_note = tray::host_missing().await;
    if let Some(desktop) = app.try_state::<Desktop>() {
        desktop.note_tray(tray_note);
    }
    let (start_on_login, start_on_login_error) = match app.try_state::<AutoLaunchManager>() {
        Some(launcher) => match launcher.is_enabled() {
            Ok(on) => (on, None),
            Err(error) => (false, Some(error.to_string())),
        },
        None => (false, Some(UNAVAILABLE.into())),
    };
    let Some(desktop) = app.try_state::<Desktop>() else {
        return DesktopStatus {
            settings: DesktopSettings::default(),
            shortcut_error: Some(UNAVAILABLE.into()),
            tray_note: Some(UNAVAILABLE.into()),
            start_on_login,
            start_on_login_error,
        };
    };
    DesktopStatus {
        settings: desktop.settings(),
        shortcut_error: desktop.shortcut_error.lock().ok().and_then(|e| e.clone()),
        tray_note: desktop.tray_note.lock().ok().and_then(|n| n.clone()),
        start_on_login,
        start_on_login_error,
    }
}

/// What a process without the desktop parts (the terminal commands' tests) says of them.
const UNAVAILABLE: &str = "this process runs without the desktop integration";

/// Why a change of the desktop settings was not made.
#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    /// The shortcut is not one the system can register, or another app holds it.
    #[error("{0}")]
    Shortcut(String),
    /// Closing to the tray needs a tray.
    #[error(
        "closing to the tray needs the tray icon, and this desktop shows none ({0}); the window would have no way back"
    )]
    NoTray(String),
    /// The settings could not be stored.
    #[error("the desktop settings could not be saved: {0}")]
    Store(String),
    /// This process runs without the desktop integration.
    #[error("{UNAVAILABLE}")]
    Unavailable,
}

/// Changes the settings: a new shortcut is taken first (when another app holds it, the old
/// one stays and the error says so), then the tray, then the settings are stored.
pub async fn change<R: Runtime>(
    app: &AppHandle<R>,
    engine: &Engine,
    wanted: DesktopSettings,
) -> Result<DesktopStatus, DesktopError> {
    let desktop = app
        .try_state::<Desktop>()
        .ok_or(DesktopError::Unavailable)?;
    let current = desktop.settings();
    let wanted = DesktopSettings {
        shortcut: wanted.shortcut.trim().to_owned(),
        ..wanted
    };
    let tray_note = desktop.tray_note.lock().ok().and_then(|n| n.clone());
    if let (true, Some(note)) = (wanted.close_to_tray && wanted.tray, tray_note) {
        return Err(DesktopError::NoTray(note));
    }
    if wanted.shortcut != current.shortcut {
        register(app, &current.shortcut, &wanted.shortcut).map_err(DesktopError::Shortcut)?;
        desktop.note_shortcut(None);
    }
    if wanted.tray != current.tray {
        tray::show(app, wanted.tray);
    }
    let value = serde_json::to_value(&wanted).map_err(|e| DesktopError::Store(e.to_string()))?;
    (engine.store().set_setting(SETTINGS_KEY, &value).await)
        .map_err(|e| DesktopError::Store(e.to_string()))?;
    desktop.set_settings(wanted);
    Ok(status(app).await)
}

/// Turns starting on login on or off.
pub fn set_start_on_login<R: Runtime>(app: &AppHandle<R>, on: bool) -> Result<(), String> {
    let launcher = (app.try_state::<AutoLaunchManager>()).ok_or(UNAVAILABLE.to_owned())?;
    let changed = if on {
        launcher.enable()
    } else {
        launcher.disable()
    };
    changed.map_err(|e| format!("starting on login could not be changed: {e}"))
}

/// Replaces shortcut `old` (empty: none) by `new` (empty: none). When `new` cannot be taken,
/// `old` stays registered and the error names the shortcut and why.
fn register<R: Runtime>(app: &AppHandle<R>, old: &str, new: &str) -> Result<(), String> {
    let shortcuts = (app.try_state::<GlobalShortcut<R>>()).ok_or(UNAVAILABLE.to_owned())?;
    let parsed = match new {
        "" => None,
        text => Some(parse(text)?),
    };
    if let Some(old) = (!old.is_empty()).then(|| parse(old).ok()).flatten() {
        let _ = shortcuts.unregister(old);
    }
    let Some(shortcut) = parsed else {
        return Ok(());
    };
    match shortcuts.register(shortcut) {
        Ok(()) => Ok(()),
        Err(error) => {
            if let Some(old) = (!old.is_empty()).then(|| parse(old).ok()).flatten() {
                let _ = shortcuts.register(old);
            }
            Err(taken(new, old, &error.to_string()))
        }
    }
}

/// Parses a shortcut as Settings writes it (`Ctrl+Alt+Space`, `Super+Shift+K`).
pub fn parse(text: &str) -> Result<Shortcut, String> {
    text.parse::<Shortcut>().map_err(|error| {
        format!("\"{text}\" is not a shortcut this system can use ({error}); write it like Ctrl+Alt+Space")
    })
}

/// The message for a shortcut the system refused (usually: another app holds it).
fn taken(new: &str, old: &str, error: &str) -> String {
    let kept = if old.is_empty() {
        "No shortcut is set".to_owned()
    } else {
        format!("{old} is kept")
    };
    let why = if error.to_lowercase().contains("already registered") {
        "another app holds it".to_owned()
    } else {
        format!("the system refused it: {error}")
    };
    format!("{new} could not be taken: {why}. {kept}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_shortcut_and_common_ones_parse() {
        for text in [DEFAULT_SHORTCUT, "Super+Shift+K", "ctrl+alt+q", "Alt+F9"] {
            assert!(parse(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn a_shortcut_that_is_not_one_says_how_to_write_it() {
        let error = parse("Ctrl+Banana").unwrap_err();
        assert!(
            error.contains("Ctrl+Banana") && error.contains("Ctrl+Alt+Space"),
            "{error}"
        );
    }

    #[test]
    fn a_refused_shortcut_says_which_one_stays() {
        let said = taken(
            "Ctrl+Alt+K",
            "Ctrl+Alt+Space",
            "HotKey already registered: …",
        );
        assert_eq!(
            said,
            "Ctrl+Alt+K could not be taken: another app holds it. Ctrl+Alt+Space is kept"
        );
        let other = taken("Ctrl+Alt+K", "", "no keycode");
        assert_eq!(
            other,
            "Ctrl+Alt+K could not be taken: the system refused it: no keycode. No shortcut is set"
        );
    }

    #[test]
    fn settings_saved_before_a_field_existed_read_with_its_default() {
        let read: DesktopSettings = serde_json::from_str(r#"{"tray":false}"#).unwrap();
        assert_eq!(read.shortcut, DEFAULT_SHORTCUT);
        assert!(!read.tray && !read.close_to_tray);
    }
}
