//! Commands about the app itself.

use switchboard_engine::{AppInfo, Engine, ErrorKind};
use tauri::{AppHandle, Manager, Runtime, State};
use tauri_plugin_opener::Opener;

use super::CmdResult;
use crate::error::IpcError;

/// Version, directories and schema version of the running app.
#[tauri::command]
pub async fn app_info(engine: State<'_, Engine>) -> CmdResult<AppInfo> {
    Ok(engine.info().await?)
}

/// Opens an http(s) or mailto link from rendered content in the system browser or mail
/// client; the webview itself never navigates. Any other scheme is refused.
#[tauri::command]
pub fn open_external<R: Runtime>(app: AppHandle<R>, url: String) -> CmdResult<()> {
    let parsed = url::Url::parse(&url)
        .map_err(|e| IpcError::invalid(format!("{url:?} is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https" | "mailto") {
        return Err(IpcError::invalid(format!(
            "only http, https and mailto links open outside the app, not {:?}",
            parsed.scheme()
        )));
    }
    let opener = app.try_state::<Opener<R>>().ok_or_else(|| IpcError {
        kind: ErrorKind::Internal,
        message: "no opener is available to open links".into(),
    })?;
    opener
        .open_url(parsed.as_str(), None::<&str>)
        .map_err(|e| IpcError {
            kind: ErrorKind::Io,
            message: format!("cannot open {url}: {e}"),
        })
}

/// Opens a file a knowledge base indexed (a citation's source) with the system's default app;
/// any other path is refused, since the path comes from a model's tool result.
#[tauri::command]
pub async fn open_knowledge_file<R: Runtime>(
    app: AppHandle<R>,
    engine: tauri::State<'_, switchboard_engine::Engine>,
    path: String,
) -> CmdResult<()> {
    let file = engine.knowledge().indexed_file(&path).await?;
    let opener = app.try_state::<Opener<R>>().ok_or_else(|| IpcError {
        kind: ErrorKind::Internal,
        message: "no opener is available to open files".into(),
    })?;
    let cannot = |e: tauri_plugin_opener::Error| IpcError {
        kind: ErrorKind::Io,
        message: format!("cannot open {path}: {e}"),
    };
    // Documents open in their app; code, scripts and pages are shown in their folder instead
    // (a script's default app may run it).
    if is_document(&file) {
        opener
            .open_path(file.to_string_lossy(), None::<&str>)
            .map_err(cannot)
    } else {
        opener.reveal_item_in_dir(&file).map_err(cannot)
    }
}

/// Whether `path` is a document a default app only shows (Markdown, text, PDF, Word, EPUB).
fn is_document(path: &std::path::Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    matches!(
        ext.as_deref(),
        Some(
            "md" | "markdown"
                | "txt"
                | "text"
                | "pdf"
                | "docx"
                | "epub"
                | "rst"
                | "org"
                | "csv"
                | "tsv"
                | "log"
        )
    )
}
