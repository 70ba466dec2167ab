//! Commands over model providers: presets, add, list, key, settings, remove, models, test, and
//! the tool-use probe of a model. Keys go in; only their masked status ever comes back.

use switchboard_engine::Engine;
use switchboard_engine::local_ollama::LocalOllama;
use switchboard_engine::provider::ModelInfo;
use switchboard_engine::provider::presets::Preset;
use switchboard_engine::providers::{ConnectionTest, NewProvider, ProviderView};
use switchboard_engine::store::{ModelProbe, ProviderSettings};
use tauri::State;

use super::CmdResult;

/// The presets a provider can be made from.
#[tauri::command]
pub fn list_presets(engine: State<'_, Engine>) -> Vec<Preset> {
    engine.providers().presets().to_vec()
}

/// Every configured provider with its key status.
#[tauri::command]
pub async fn list_providers(engine: State<'_, Engine>) -> CmdResult<Vec<ProviderView>> {
    Ok(engine.providers().list_providers().await?)
}

/// Adds a provider; its key goes to the keychain.
#[tauri::command]
pub async fn add_provider(
    engine: State<'_, Engine>,
    input: NewProvider,
) -> CmdResult<ProviderView> {
    Ok(engine.providers().add_provider(input).await?)
}

/// Sets, or with `null` forgets, a provider's key.
#[tauri::command]
pub async fn set_provider_key(
    engine: State<'_, Engine>,
    id: String,
    key: Option<String>,
) -> CmdResult<ProviderView> {
    Ok(engine.providers().set_provider_key(&id, key).await?)
}

/// Replaces a provider's model settings (default model, tool modes, strict tools).
#[tauri::command]
pub async fn set_provider_settings(
    engine: State<'_, Engine>,
    id: String,
    settings: ProviderSettings,
) -> CmdResult<ProviderView> {
    Ok(engine
        .providers()
        .set_provider_settings(&id, settings)
        .await?)
}

/// Removes a provider and its key.
#[tauri::command]
pub async fn remove_provider(engine: State<'_, Engine>, id: String) -> CmdResult<()> {
    Ok(engine.providers().remove_provider(&id).await?)
}

/// The models a provider offers.
#[tauri::command]
pub async fn provider_models(engine: State<'_, Engine>, id: String) -> CmdResult<Vec<ModelInfo>> {
    Ok(engine.providers().provider_models(&id).await?)
}

/// Checks that a provider answers with its credentials.
#[tauri::command]
pub async fn test_provider(engine: State<'_, Engine>, id: String) -> CmdResult<ConnectionTest> {
    Ok(engine.providers().test_provider(&id).await?)
}

/// A local Ollama on 127.0.0.1:11434 and its models, or `null` when none answers at once.
#[tauri::command]
pub async fn detect_ollama(engine: State<'_, Engine>) -> CmdResult<Option<LocalOllama>> {
    Ok(engine.providers().detect_ollama().await)
}

/// Probes how `model` of provider `id` calls tools (natively, only in prompt mode, not at all)
/// and keeps the result; joins the probe of that model already running. It runs on its own
/// task, bounded in time: a failure is the result `unknown` with its reason, not an error.
#[tauri::command]
pub async fn probe_model(
    engine: State<'_, Engine>,
    id: String,
    model: String,
) -> CmdResult<ModelProbe> {
    Ok(engine.providers().probe_model(&id, &model).await?)
}

/// What the tool-use probe last found of each probed model of provider `id`.
#[tauri::command]
pub async fn model_probes(engine: State<'_, Engine>, id: String) -> CmdResult<Vec<ModelProbe>> {
    Ok(engine.providers().model_probes(&id).await?)
}
