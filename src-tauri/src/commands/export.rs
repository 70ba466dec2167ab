//! Commands over export and import: write conversations to a chosen file or folder, and
//! preview or carry out an import.

use std::path::Path;

use switchboard_engine::Engine;
use switchboard_engine::export::{ExportRequest, ExportSummary, ImportResult, export, import_file};
use tauri::State;

use super::CmdResult;

/// Exports conversations as the request says (format, scope, options, destination).
#[tauri::command]
pub async fn export_conversations(
    engine: State<'_, Engine>,
    request: ExportRequest,
) -> CmdResult<ExportSummary> {
    Ok(export(engine.store(), &request, |_, _| {}).await?)
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
