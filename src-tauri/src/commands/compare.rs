//! The side-by-side command: one message answered by two to four models at once, each model's
//! events streamed in ~30 ms batches tagged with its place in the list, over one `Channel`.

use serde::Serialize;
use switchboard_engine::Engine;
use switchboard_engine::EngineError;
use switchboard_engine::agent::coalesce::{self, INTERVAL};
use switchboard_engine::agent::compare::COMPARE_MODELS;
use switchboard_engine::agent::{AgentError, ChatEvent, CompareModel, TurnEnd};
use tauri::State;
use tauri::ipc::Channel;
use tokio::sync::mpsc;
use ts_rs::TS;

use super::CmdResult;

/// A batch of one compared model's events.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompareBatch {
    /// The model's place in the list the compare was asked with, from 0.
    pub lane: u32,
    /// Its events, as a turn's.
    pub events: Vec<ChatEvent>,
}

/// Sends `text` in a conversation and has every model of `models` answer it at once; returns
/// at once, the answers streaming over `on_event`. An error before any model starts reaches
/// every lane as `error` + `finished`.
#[tauri::command]
pub async fn compare_message(
    engine: State<'_, Engine>,
    conversation_id: String,
    text: String,
    models: Vec<CompareModel>,
    on_event: Channel<CompareBatch>,
) -> CmdResult<()> {
    if engine.agent().turn_running(&conversation_id) {
        return Err(EngineError::from(AgentError::Busy).into());
    }
    if !COMPARE_MODELS.contains(&models.len()) {
        return Err(EngineError::from(AgentError::Invalid(format!(
            "compare {} to {} models at once, not {}",
            COMPARE_MODELS.start(),
            COMPARE_MODELS.end(),
            models.len()
        )))
        .into());
    }
    let engine = engine.inner().clone();
    let mut senders = Vec::with_capacity(models.len());
    for lane in 0..models.len() {
        let (tx, rx) = mpsc::unbounded_channel();
        senders.push(tx);
        let channel = on_event.clone();
        let lane = u32::try_from(lane).unwrap_or(u32::MAX);
        tauri::async_runtime::spawn(coalesce::forward(rx, INTERVAL, move |events| {
            if let Err(e) = channel.send(CompareBatch { lane, events }) {
                tracing::debug!(error = %e, "the window stopped listening to a compare");
            }
        }));
    }
    let errors = senders.clone();
    tauri::async_runtime::spawn(async move {
        let result = engine
            .agent()
            .compare(&conversation_id, &text, &models, senders)
            .await;
        if let Err(e) = result {
            for tx in errors {
                let _ = tx.send(ChatEvent::Error {
                    kind: e.kind(),
                    message: e.to_string(),
                });
                let _ = tx.send(ChatEvent::Finished {
                    reason: TurnEnd::Error,
                    head_id: String::new(),
                });
            }
        }
    });
    Ok(())
}
