//! Commands over export and import: write conversations to a chosen file or folder, and
//! preview or carry out an import.

use std::path::Path;

use switchboard_engine::Engine;
use switchboard_engine::export::{
    ExportProgress, ExportRequest, ExportSummary, ImportResult, export, import_file,
};
use tauri::State;
use tauri::ipc::Channel;

use super::CmdResult;

/// Exports conversations as the request says (format, scope, options, destination),
/// reporting progress about every 1% of the conversations on `on_progress`.
#[tauri::command]
pub async fn export_conversations(
    engine: State<'_, Engine>,
    request: ExportRequest,
    on_progress: Channel<ExportProgress>,
) -> CmdResult<ExportSummary> {
    let progress = |done, total| {
        let p = ExportProgress { done, total };
        if p.worth_reporting() {
            // A closed window only loses the progress, not the export.
            let _ = on_progress.send(p);
        }
    };
    Ok(export(engine.store(), &request, progress).await?)
}

/// What importing the file would change, without changing anything.
#[tauri::command]
pub async fn preview_import(engine: State<'_, Engine>, path: String) -> CmdResult<ImportResult> {
    Ok(import_file(engine.store(), Path::new(&path), true).await?)
}

/// Imports the file, merging by id.
#[tauri::command]
pub async fn import_conversations(
    engine: State<'_, Engine>,
    path: String,
) -> CmdResult<ImportResult> {
    Ok(import_file(engine.store(), Path::new(&path), false).await?)
}
