//! Commands over the built-in model's models folder: list, import, remove, download (with
//! progress on a channel, and a cancel), the recommended models with their expected speed here,
//! and the built-in provider's default model.

use std::path::Path;

use switchboard_engine::Engine;
use switchboard_engine::local::LocalModel;
use switchboard_engine::local::catalogue::CatalogueModel;
use switchboard_engine::providers::{ModelDownloadProgress, ProviderView};
use tauri::State;
use tauri::ipc::Channel;

use super::CmdResult;

/// The recommended models, each with the speed to expect on this machine, the one for its
/// memory and speed marked.
#[tauri::command]
pub async fn model_catalogue(engine: State<'_, Engine>) -> CmdResult<Vec<CatalogueModel>> {
    Ok(engine.providers().model_catalogue().await?)
}

/// The models in the models folder, with their GGUF facts.
#[tauri::command]
pub async fn list_models(engine: State<'_, Engine>) -> CmdResult<Vec<LocalModel>> {
    Ok(engine.providers().list_models().await?)
}

/// Copies the `.gguf` file at `path` into the models folder.
#[tauri::command]
pub async fn import_model(engine: State<'_, Engine>, path: String) -> CmdResult<LocalModel> {
    Ok(engine.providers().import_model(Path::new(&path)).await?)
}

/// Deletes the model `name`.
#[tauri::command]
pub async fn remove_model(engine: State<'_, Engine>, name: String) -> CmdResult<()> {
    Ok(engine.providers().remove_model(&name).await?)
}

/// Downloads a `.gguf` from `url` (verified against `sha256` when given), reporting progress
/// about every 1% on `on_progress`.
#[tauri::command]
pub async fn download_model(
    engine: State<'_, Engine>,
    url: String,
    sha256: Option<String>,
    on_progress: Channel<ModelDownloadProgress>,
) -> CmdResult<LocalModel> {
    let progress = |p| {
        // A closed window only loses the progress, not the download.
        let _ = on_progress.send(p);
    };
    Ok(engine
        .providers()
        .download_model(&url, sha256.as_deref(), progress)
        .await?)
}

/// Cancels the running model downloads.
#[tauri::command]
pub fn cancel_model_download(engine: State<'_, Engine>) {
    engine.providers().cancel_model_downloads();
}

/// Makes the model `name` the built-in provider's default (adding the provider if needed).
#[tauri::command]
pub async fn set_default_local_model(
    engine: State<'_, Engine>,
    name: String,
) -> CmdResult<ProviderView> {
    Ok(engine.providers().set_default_local_model(&name).await?)
}
