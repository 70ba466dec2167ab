//! Commands of the chat: send, regenerate, edit and resend (each streams the turn's events
//! over a `Channel` in ~30 ms batches and returns at once), stop, answer an approval, read the
//! shown branch, switch branches, change a conversation's settings, search.

use std::future::Future;

use switchboard_engine::agent::coalesce::{self, INTERVAL};
use switchboard_engine::agent::{AgentError, ApprovalAnswer, ChatEvent, Events, ToolCost, TurnEnd};
use switchboard_engine::store::{
    Conversation, ConversationPatch, Message, Page, PageRequest, SearchHit,
};
use switchboard_engine::vocab::content::{Attachment, ContentPart};
use switchboard_engine::{Engine, EngineError};
use tauri::State;
use tauri::ipc::Channel;
use tokio::sync::mpsc;

use super::CmdResult;

/// Runs `turn` in the background, forwarding its events to `channel` in batches; an error
/// that stops the turn before it starts is sent as `error` + `finished` events.
fn spawn_turn<F>(channel: Channel<Vec<ChatEvent>>, turn: impl FnOnce(Events) -> F + Send + 'static)
where
    F: Future<Output = Result<TurnEnd, EngineError>> + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let errors = tx.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(e) = turn(tx).await {
            let _ = errors.send(ChatEvent::Error {
                kind: e.kind(),
                message: e.to_string(),
            });
            let _ = errors.send(ChatEvent::Finished {
                reason: TurnEnd::Error,
                head_id: String::new(),
            });
        }
    });
    tauri::async_runtime::spawn(coalesce::forward(rx, INTERVAL, move |batch| {
        if let Err(e) = channel.send(batch) {
            tracing::debug!(error = %e, "the window stopped listening to a turn");
        }
    }));
}

/// Refuses a second turn in a conversation before anything is stored.
fn not_busy(engine: &Engine, conversation: &str) -> CmdResult<()> {
    if engine.agent().turn_running(conversation) {
        return Err(EngineError::from(AgentError::Busy).into());
    }
    Ok(())
}

/// Sends a user message (with MCP resources and files attached, if any) and streams the
/// turn. `files` are the `image_ref` and `file` parts `attach_file`/`attach_bytes` made.
#[tauri::command]
pub async fn send_message(
    engine: State<'_, Engine>,
    conversation_id: String,
    text: String,
    attachments: Option<Vec<Attachment>>,
    files: Option<Vec<ContentPart>>,
    on_event: Channel<Vec<ChatEvent>>,
) -> CmdResult<()> {
    not_busy(&engine, &conversation_id)?;
    let engine = engine.inner().clone();
    let attachments = attachments.unwrap_or_default();
    let files = files.unwrap_or_default();
    spawn_turn(on_event, move |tx| async move {
        (engine
            .agent()
            .send_with_files(&conversation_id, &text, attachments, files, tx))
        .await
    });
    Ok(())
}

/// Answers the last user message again (a new branch) and streams the turn.
#[tauri::command]
pub async fn regenerate(
    engine: State<'_, Engine>,
    conversation_id: String,
    on_event: Channel<Vec<ChatEvent>>,
) -> CmdResult<()> {
    not_busy(&engine, &conversation_id)?;
    let engine = engine.inner().clone();
    spawn_turn(on_event, move |tx| async move {
        engine.agent().regenerate(&conversation_id, tx).await
    });
    Ok(())
}

/// Sends a new version of a user message (a new branch) and streams the turn.
#[tauri::command]
pub async fn edit_and_resend(
    engine: State<'_, Engine>,
    message_id: String,
    text: String,
    on_event: Channel<Vec<ChatEvent>>,
) -> CmdResult<()> {
    let conversation = engine
        .store()
        .get_message(&message_id)
        .await?
        .conversation_id;
    not_busy(&engine, &conversation)?;
    let engine = engine.inner().clone();
    spawn_turn(on_event, move |tx| async move {
        engine.agent().edit_and_resend(&message_id, &text, tx).await
    });
    Ok(())
}

/// Stops the turn running in a conversation; false when none runs.
#[tauri::command]
pub fn stop_generation(engine: State<'_, Engine>, conversation_id: String) -> bool {
    engine.agent().stop_turn(&conversation_id)
}

/// Cancels the task a tool call runs as, on its server.
#[tauri::command]
pub async fn cancel_task(engine: State<'_, Engine>, call_id: String) -> CmdResult<()> {
    Ok(engine.agent().cancel_task(&call_id).await?)
}

/// Answers a tool-call approval question; false when it no longer waits.
#[tauri::command]
pub fn answer_approval(
    engine: State<'_, Engine>,
    approval_id: String,
    answer: ApprovalAnswer,
) -> bool {
    engine.agent().answer_approval(&approval_id, answer)
}

/// The messages of the branch a conversation shows, oldest first: all of them, or with
/// `limit` a page of its last ones (with `before`, a message id, the ones just before it).
#[tauri::command]
pub async fn conversation_messages(
    engine: State<'_, Engine>,
    conversation_id: String,
    before: Option<String>,
    limit: Option<u32>,
) -> CmdResult<Vec<Message>> {
    if before.is_none() && limit.is_none() {
        return Ok(engine.agent().conversation_branch(&conversation_id).await?);
    }
    let limit = limit.unwrap_or(u32::MAX);
    Ok(engine
        .agent()
        .conversation_branch_page(&conversation_id, before.as_deref(), limit)
        .await?)
}

/// The ids of a message and its alternatives (same parent), oldest first.
#[tauri::command]
pub async fn message_siblings(
    engine: State<'_, Engine>,
    message_id: String,
) -> CmdResult<Vec<String>> {
    Ok(engine.store().siblings(&message_id).await?)
}

/// Shows the branch through a message.
#[tauri::command]
pub async fn switch_branch(
    engine: State<'_, Engine>,
    message_id: String,
) -> CmdResult<Conversation> {
    Ok(engine.agent().switch_branch(&message_id).await?)
}

/// Changes a conversation's provider, model, system prompt or settings.
#[tauri::command]
pub async fn update_conversation(
    engine: State<'_, Engine>,
    id: String,
    patch: ConversationPatch,
) -> CmdResult<Conversation> {
    Ok(engine.store().update_conversation(&id, patch).await?)
}

/// Searches every message.
#[tauri::command]
pub async fn search_messages(
    engine: State<'_, Engine>,
    query: String,
    page: PageRequest,
) -> CmdResult<Page<SearchHit>> {
    Ok(engine.store().search_messages(&query, &page).await?)
}

/// Each supervised server's tool count and the estimated tokens of their definitions.
#[tauri::command]
pub fn tool_costs(engine: State<'_, Engine>) -> Vec<ToolCost> {
    engine.agent().tool_costs()
}
