//! Saving an artifact (an HTML, SVG or Mermaid block of an answer, previewed in the sandboxed
//! frame) to the file the user chose in the save dialog.

use std::path::Path;

use switchboard_engine::ErrorKind;

use super::CmdResult;
use crate::error::IpcError;

/// The largest artifact written (as large as a document the frame serves).
const MAX_BYTES: usize = 8 << 20;
/// The extensions an artifact is saved under.
const EXTENSIONS: [&str; 5] = ["html", "htm", "svg", "mmd", "txt"];

/// Writes `contents` to `path`, a file the user chose: an absolute path whose extension is one
/// an artifact is saved under (never a script's or a program's), at most 8 MiB.
#[tauri::command]
pub async fn save_artifact(path: String, contents: String) -> CmdResult<()> {
    let file = Path::new(&path);
    let extension = (file.extension().and_then(|e| e.to_str()))
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if !file.is_absolute() || !EXTENSIONS.contains(&extension.as_str()) {
        return Err(IpcError::invalid(format!(
            "an artifact is saved as an absolute .html, .svg, .mmd or .txt file, not {path:?}"
        )));
    }
    if contents.len() > MAX_BYTES {
        return Err(IpcError::invalid(format!(
            "the artifact is {} bytes, more than the {MAX_BYTES} saved",
            contents.len()
        )));
    }
    tokio::fs::write(file, contents)
        .await
        .map_err(|e| IpcError {
            kind: ErrorKind::Io,
            message: format!("cannot write {path}: {e}"),
        })
}
