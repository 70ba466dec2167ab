//! Commands over projects: list, create, edit, delete (keeping or deleting its conversations)
//! and moving conversations in and out.

use switchboard_engine::Engine;
use switchboard_engine::store::{Project, ProjectConversations, ProjectDraft, ProjectSummary};
use tauri::State;

use super::CmdResult;

/// Every project with how many conversations it holds, by name.
#[tauri::command]
pub async fn list_projects(engine: State<'_, Engine>) -> CmdResult<Vec<ProjectSummary>> {
    Ok(engine.store().list_projects().await?)
}

/// Creates a project.
#[tauri::command]
pub async fn create_project(engine: State<'_, Engine>, draft: ProjectDraft) -> CmdResult<Project> {
    Ok(engine.store().insert_project(&draft).await?)
}

/// Replaces a project's fields.
#[tauri::command]
pub async fn update_project(
    engine: State<'_, Engine>,
    id: String,
    draft: ProjectDraft,
) -> CmdResult<Project> {
    Ok(engine.store().update_project(&id, &draft).await?)
}

/// Deletes a project, keeping its conversations outside any project or deleting them;
/// returns how many conversations were deleted.
#[tauri::command]
pub async fn delete_project(
    engine: State<'_, Engine>,
    id: String,
    conversations: ProjectConversations,
) -> CmdResult<u64> {
    Ok(engine.store().delete_project(&id, conversations).await?)
}

/// Moves conversations into project `project` (none: out of any); returns how many moved.
#[tauri::command]
pub async fn move_conversations(
    engine: State<'_, Engine>,
    ids: Vec<String>,
    project: Option<String>,
) -> CmdResult<u64> {
    Ok(engine
        .store()
        .move_conversations(&ids, project.as_deref())
        .await?)
}
