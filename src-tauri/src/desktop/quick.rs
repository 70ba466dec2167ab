//! The quick window: a small always-on-top window the global shortcut (or the tray) opens, for
//! a question without switching windows. It is the same page as the main window (the page
//! tells them apart by the window's label), made hidden soon after start when a shortcut or
//! the tray can open it (or at its first opening), then shown and hidden.
//! "Open in the main window" hands its conversation over to the main window.

use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager, Runtime, WebviewUrl, WebviewWindowBuilder};
use ts_rs::TS;

/// The quick window's label (its capability names it too).
pub const LABEL: &str = "quick";

/// Tells the main window's page to open a conversation (payload: its id).
pub const OPEN_CONVERSATION_EVENT: &str = "desktop:open-conversation";

/// Tells the quick window's page it was shown again (to focus its composer).
pub const SHOWN_EVENT: &str = "desktop:quick-shown";

/// The longest text taken from the selection or the clipboard, in characters.
const CONTEXT_LIMIT: usize = 20_000;

/// Shows the quick window (making it the first time) or, when it has the focus, hides it.
pub fn toggle<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(LABEL) {
        let shown = window.is_visible().unwrap_or(false);
        if shown && window.is_focused().unwrap_or(false) {
            let _ = window.hide();
            return;
        }
        let _ = window.show();
        let _ = window.set_focus();
        let _ = app.emit_to(LABEL, SHOWN_EVENT, ());
        return;
    }
    crate::startup::mark("quick window asked for");
    make(app, true);
}

/// How long after start the quick window is made, hidden (see [`prepare`]): after the main
/// window's own start-up work. `SWITCHBOARD_QUICK_PREPARE_AFTER_MS` changes it (the benchmark
/// measures the app before and after).
pub fn prepare_after() -> std::time::Duration {
    let ms = std::env::var("SWITCHBOARD_QUICK_PREPARE_AFTER_MS").ok();
    let ms = ms.and_then(|ms| ms.parse().ok()).unwrap_or(3000);
    std::time::Duration::from_millis(ms)
}

/// Makes the quick window hidden, so that the shortcut only has to show a page already
/// painted (a first opening that makes it takes some 200 ms; showing it, some 65 ms). It
/// shares the main window's web process, so this costs some 11 MB.
pub fn prepare<R: Runtime>(app: &AppHandle<R>) {
    if app.get_webview_window(LABEL).is_none() {
        make(app, false);
    }
}

/// Makes the quick window, shown or hidden. On Linux its webview shares the main window's web
/// process (a related view): a process of its own would cost some 40 MB more.
fn make<R: Runtime>(app: &AppHandle<R>, visible: bool) {
    #[cfg(target_os = "linux")]
    if let Some(main) = app.get_webview_window("main") {
        let app = app.clone();
        let asked = main.with_webview(move |main_view| {
            let made = (builder(&app, visible))
                .with_related_view(main_view.inner())
                .build();
            if let Err(error) = made {
                tracing::warn!(%error, "cannot open the quick window");
            }
        });
        if let Err(error) = asked {
            tracing::warn!(%error, "cannot open the quick window");
        }
        return;
    }
    if let Err(error) = builder(app, visible).build() {
        tracing::warn!(%error, "cannot open the quick window");
    }
}

fn builder<R: Runtime>(
    app: &AppHandle<R>,
    visible: bool,
) -> WebviewWindowBuilder<'_, R, AppHandle<R>> {
    WebviewWindowBuilder::new(app, LABEL, WebviewUrl::App("index.html".into()))
        .visible(visible)
        .title("Switchboard")
        .inner_size(620.0, 460.0)
        .min_inner_size(420.0, 260.0)
        .always_on_top(true)
        .skip_taskbar(true)
        .center()
        .focused(visible)
}

/// Hides the quick window (Escape in it).
pub fn hide<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window(LABEL) {
        let _ = window.hide();
    }
}

/// Hides the quick window and shows conversation `id` in the main window.
pub fn open_in_main<R: Runtime>(app: &AppHandle<R>, id: &str) -> tauri::Result<()> {
    hide(app);
    super::tray::show_main(app);
    app.emit_to("main", OPEN_CONVERSATION_EVENT, id)
}

/// Text the quick window can add to a question, each only when the user picks it.
#[derive(Clone, Debug, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct QuickContext {
    /// The current text selection (X11's PRIMARY selection), if any.
    pub selection: Option<String>,
    /// The clipboard's text, if any.
    pub clipboard: Option<String>,
}

/// Reads the selection and the clipboard (blocking: call off the async threads). Empty or
/// unreadable ones are left out; long ones are cut at [`CONTEXT_LIMIT`] characters.
pub fn context() -> QuickContext {
    let Ok(mut clipboard) = arboard::Clipboard::new() else {
        return QuickContext::default();
    };
    let clipboard_text = clipboard.get_text().ok();
    #[cfg(target_os = "linux")]
    let selection = {
        use arboard::{GetExtLinux, LinuxClipboardKind};
        let get = clipboard.get().clipboard(LinuxClipboardKind::Primary);
        get.text().ok()
    };
    #[cfg(not(target_os = "linux"))]
    let selection = None;
    QuickContext {
        selection: selection.and_then(bounded),
        clipboard: clipboard_text.and_then(bounded),
    }
}

/// `text` without surrounding blanks, at most [`CONTEXT_LIMIT`] characters; `None` if empty.
fn bounded(text: String) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    Some(text.chars().take(CONTEXT_LIMIT).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_text_is_trimmed_cut_and_left_out_when_empty() {
        assert_eq!(bounded("  \n ".into()), None);
        assert_eq!(bounded("  hello \n".into()).as_deref(), Some("hello"));
        let long = "字".repeat(CONTEXT_LIMIT + 5);
        assert_eq!(
            bounded(long).map(|t| t.chars().count()),
            Some(CONTEXT_LIMIT)
        );
    }
}
