//! Commands over assistants: list, create, edit, duplicate, delete, the default one, the
//! starters, a new chat from one, export and import as a file — and the settings the chat's
//! tool picker reaches (read-only tools allowed without asking, a provider's default model).

use std::path::Path;

use switchboard_engine::Engine;
use switchboard_engine::agent::assistants::{Starter, starters};
use switchboard_engine::export::assistants::{
    AssistantImport, export_assistants as export_file, import_assistants as import_file,
};
use switchboard_engine::store::{Assistant, AssistantDraft, Conversation};
use tauri::State;

use super::CmdResult;

/// Every assistant, by name.
#[tauri::command]
pub async fn list_assistants(engine: State<'_, Engine>) -> CmdResult<Vec<Assistant>> {
    Ok(engine.store().list_assistants().await?)
}

/// Creates an assistant.
#[tauri::command]
pub async fn create_assistant(
    engine: State<'_, Engine>,
    draft: AssistantDraft,
) -> CmdResult<Assistant> {
    Ok(engine.store().insert_assistant(&draft).await?)
}

/// Replaces an assistant's fields.
#[tauri::command]
pub async fn update_assistant(
    engine: State<'_, Engine>,
    id: String,
    draft: AssistantDraft,
) -> CmdResult<Assistant> {
    Ok(engine.store().update_assistant(&id, &draft).await?)
}

/// Copies an assistant under a free name.
#[tauri::command]
pub async fn duplicate_assistant(engine: State<'_, Engine>, id: String) -> CmdResult<Assistant> {
    Ok(engine.store().duplicate_assistant(&id).await?)
}

/// Deletes an assistant (no longer the default if it was).
#[tauri::command]
pub async fn delete_assistant(engine: State<'_, Engine>, id: String) -> CmdResult<()> {
    Ok(engine.agent().delete_assistant(&id).await?)
}

/// The default assistant's id, if one is set.
#[tauri::command]
pub async fn default_assistant(engine: State<'_, Engine>) -> CmdResult<Option<String>> {
    Ok(engine.agent().default_assistant().await?.map(|a| a.id))
}

/// Sets (or with `null` clears) the default assistant.
#[tauri::command]
pub async fn set_default_assistant(engine: State<'_, Engine>, id: Option<String>) -> CmdResult<()> {
    Ok(engine.agent().set_default_assistant(id.as_deref()).await?)
}

/// The starters shipped with the app, in every language.
#[tauri::command]
pub fn assistant_starters() -> Vec<Starter> {
    starters()
}

/// Adds a starter as an assistant in language `lang`.
#[tauri::command]
pub async fn add_starter_assistant(
    engine: State<'_, Engine>,
    key: String,
    lang: String,
) -> CmdResult<Assistant> {
    Ok(engine.agent().add_starter(&key, &lang).await?)
}

/// A new conversation from an assistant (id), or from the default assistant (the project's,
/// when it has one) when none is given; in project `project` (id) when given.
#[tauri::command]
pub async fn new_chat(
    engine: State<'_, Engine>,
    assistant: Option<String>,
    project: Option<String>,
) -> CmdResult<Conversation> {
    Ok(engine
        .agent()
        .new_conversation_in(assistant.as_deref(), project.as_deref())
        .await?)
}

/// Writes assistants (`ids`, or every one when empty) to a file; returns how many.
#[tauri::command]
pub async fn export_assistants(
    engine: State<'_, Engine>,
    ids: Vec<String>,
    path: String,
) -> CmdResult<u32> {
    Ok(export_file(engine.store(), &ids, Path::new(&path)).await?)
}

/// Imports the assistants in a file, merging by id.
#[tauri::command]
pub async fn import_assistants(
    engine: State<'_, Engine>,
    path: String,
) -> CmdResult<AssistantImport> {
    Ok(import_file(engine.store(), Path::new(&path)).await?)
}

/// Whether tools that say they only read run without asking.
#[tauri::command]
pub async fn auto_allow_read_only(engine: State<'_, Engine>) -> CmdResult<bool> {
    Ok(engine.mcp().auto_allow_read_only().await?)
}

/// Lets tools that say they only read run without asking, or not.
#[tauri::command]
pub async fn set_auto_allow_read_only(engine: State<'_, Engine>, on: bool) -> CmdResult<()> {
    Ok(engine.mcp().set_auto_allow_read_only(on).await?)
}

/// The model a provider answers with when a chat names none (chosen and kept if unset).
#[tauri::command]
pub async fn provider_default_model(
    engine: State<'_, Engine>,
    id: String,
) -> CmdResult<Option<String>> {
    let record = engine.store().find_provider(&id).await?;
    Ok(engine.providers().default_model(&record).await)
}
