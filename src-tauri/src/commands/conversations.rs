//! Commands over conversations: list, create, rename, pin, delete.

use switchboard_engine::Engine;
use switchboard_engine::store::{Conversation, ListScope, NewConversation, Page, PageRequest};
use tauri::State;

use super::CmdResult;

/// One page of the conversations of `scope` (default: those in no project), pinned first,
/// newest activity first.
#[tauri::command]
pub async fn list_conversations<R: tauri::Runtime>(
    engine: State<'_, Engine>,
    window: tauri::WebviewWindow<R>,
    page: PageRequest,
    scope: Option<ListScope>,
) -> CmdResult<Page<Conversation>> {
    crate::startup::mark_once(&crate::startup::FIRST_LIST, "the page asked for the list");
    // The page has mounted: the window it starts hidden in can be drawn now.
    crate::startup::show_main(|| window.show(), "window shown");
    let listed = engine
        .store()
        .list_conversations(&page, &scope.unwrap_or_default())
        .await?;
    crate::startup::mark_once(&crate::startup::FIRST_LISTED, "the list was read");
    Ok(listed)
}

/// Creates a conversation.
#[tauri::command]
pub async fn create_conversation(
    engine: State<'_, Engine>,
    input: NewConversation,
) -> CmdResult<Conversation> {
    Ok(engine.store().create_conversation(input).await?)
}

/// Renames a conversation.
#[tauri::command]
pub async fn rename_conversation(
    engine: State<'_, Engine>,
    id: String,
    title: String,
) -> CmdResult<Conversation> {
    Ok(engine.store().rename_conversation(&id, &title).await?)
}

/// Pins or unpins a conversation.
#[tauri::command]
pub async fn set_conversation_pinned(
    engine: State<'_, Engine>,
    id: String,
    pinned: bool,
) -> CmdResult<Conversation> {
    Ok(engine.store().set_conversation_pinned(&id, pinned).await?)
}

/// Deletes a conversation and its messages.
#[tauri::command]
pub async fn delete_conversation(engine: State<'_, Engine>, id: String) -> CmdResult<()> {
    Ok(engine.store().delete_conversation(&id).await?)
}
