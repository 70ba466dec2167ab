//! Commands over the client capabilities: answering a server's request to the user
//! (sampling approval, elicitation), the roots, and the model that answers sampling requests.

use std::path::PathBuf;

use switchboard_engine::Engine;
use switchboard_engine::agent::SamplingModel;
use switchboard_engine::mcp::{InteractionAnswer, RootInfo};
use tauri::{AppHandle, Runtime, State};

use super::CmdResult;

/// Answers a server's request `id`. An accepted URL request opens its page in the system
/// browser (only http and https URLs ever reach the user).
#[tauri::command]
pub fn answer_interaction<R: Runtime>(
    app: AppHandle<R>,
    engine: State<'_, Engine>,
    id: String,
    answer: InteractionAnswer,
) -> CmdResult<()> {
    let Some(url) = engine.mcp().answer_interaction(&id, answer)? else {
        return Ok(());
    };
    if let Err(error) = super::app::open_external(app, url) {
        tracing::warn!(error = %error.message, "cannot open the browser for a URL request");
    }
    Ok(())
}

/// The folders advertised to servers as roots.
#[tauri::command]
pub fn list_roots(engine: State<'_, Engine>) -> CmdResult<Vec<RootInfo>> {
    Ok(engine.mcp().roots())
}

/// Replaces the roots (existing absolute folders) and tells the running servers.
#[tauri::command]
pub async fn set_roots(
    engine: State<'_, Engine>,
    folders: Vec<PathBuf>,
) -> CmdResult<Vec<RootInfo>> {
    Ok(engine.mcp().set_roots(folders).await?)
}

/// The provider and model that answer sampling requests, if chosen.
#[tauri::command]
pub async fn sampling_model(engine: State<'_, Engine>) -> CmdResult<Option<SamplingModel>> {
    Ok(engine.agent().sampling_model().await?)
}

/// Chooses (or with `null` clears) the provider and model that answer sampling requests.
#[tauri::command]
pub async fn set_sampling_model(
    engine: State<'_, Engine>,
    choice: Option<SamplingModel>,
) -> CmdResult<()> {
    Ok(engine.agent().set_sampling_model(choice).await?)
}
