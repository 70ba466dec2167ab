//! Side by side: one user message answered by two to four models at once. The message is
//! stored once; each model runs its own turn from it (its own stream, tool calls and
//! approvals, its answer a branch under the message — the store's branches), all under the
//! conversation's one stop switch. When all have ended the conversation shows the first
//! model's answer that came to an end (titled after it); the user keeps another with a branch
//! switch.

use futures::future::join_all;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Agent, Events, finished, invalid, title, turn};
use crate::EngineError;
use crate::store::{MessageStatus, NewMessage, Role};
use crate::vocab::chat::{ChatEvent, TurnEnd};
use crate::vocab::content::ContentPart;

/// The fewest and the most models one message may be compared across.
pub const COMPARE_MODELS: std::ops::RangeInclusive<usize> = 2..=4;

/// One model of a side-by-side turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompareModel {
    /// The provider (id).
    pub provider_id: String,
    /// The model; the provider's default when empty.
    pub model: String,
}

/// How each model's turn ended, in the order the models were given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompareEnd {
    /// The model's turn's end.
    pub reason: TurnEnd,
    /// The last message of its branch (empty when it failed before storing one).
    pub head_id: String,
}

impl Agent {
    /// Sends `text` as the user in `conversation` and has every model of `models` answer it at
    /// once, each reporting on its own `events` (one per model, in the same order). Returns how
    /// each ended; the conversation then shows the first model's branch.
    pub async fn compare(
        &self,
        conversation: &str,
        text: &str,
        models: &[CompareModel],
        events: Vec<Events>,
    ) -> Result<Vec<CompareEnd>, EngineError> {
        if !COMPARE_MODELS.contains(&models.len()) {
            return Err(invalid(&format!(
                "compare {} to {} models at once, not {}",
                COMPARE_MODELS.start(),
                COMPARE_MODELS.end(),
                models.len()
            )));
        }
        if events.len() != models.len() {
            return Err(invalid("each compared model needs its own event stream"));
        }
        if text.trim().is_empty() {
            return Err(invalid("the message is empty"));
        }
        let mut resolved = Vec::with_capacity(models.len());
        for m in models {
            let record = self.store().find_provider(&m.provider_id).await?;
            let model = match m.model.trim() {
                "" => self
                    .providers()
                    .default_model(&record)
                    .await
                    .ok_or_else(|| super::setup::no_model(&record))?,
                named => named.to_owned(),
            };
            resolved.push(CompareModel {
                provider_id: record.id,
                model,
            });
        }
        let models = resolved.as_slice();
        let conv = self.store().get_conversation(conversation).await?;
        let (guard, cancel) = self.state.begin(&conv.id)?;
        let untitled = conv.title.is_empty();
        let user = self
            .store()
            .append_as_head(NewMessage {
                conversation_id: conv.id.clone(),
                parent_id: conv.head_id.clone(),
                role: Role::User,
                content: vec![ContentPart::text(text)],
                status: MessageStatus::Complete,
                model: None,
            })
            .await?;
        if untitled {
            // The window hears it on the first lane.
            title::name_after_first_line(self, &conv.id, &user.content, events.first()).await?;
        }
        let lanes = models.iter().zip(&events).map(|(m, events)| {
            let mut lane = conv.clone();
            lane.provider_id = Some(m.provider_id.clone());
            lane.model = Some(m.model.clone());
            let user_id = user.id.clone();
            let cancel = &cancel;
            async move {
                let result = turn::run(self, &lane, async { Ok(user_id) }, events, cancel).await;
                report(result, events)
            }
        });
        let ends = join_all(lanes).await;
        // The lanes' messages each became the head as they were written: show the first
        // answer that came to an end, else the first lane that stored anything.
        let shown = ends
            .iter()
            .find(|e| e.reason == TurnEnd::Done && !e.head_id.is_empty())
            .or_else(|| ends.iter().find(|e| !e.head_id.is_empty()))
            .map_or(user.id.as_str(), |e| e.head_id.as_str());
        let mut shown = self.store().set_head(&conv.id, shown).await?;
        let first_done = ends.iter().position(|e| e.reason == TurnEnd::Done);
        if let (true, Some(i)) = (untitled, first_done) {
            shown.provider_id = Some(models[i].provider_id.clone());
            shown.model = Some(models[i].model.clone());
            title::retitle(self, &shown, &events[i]).await;
        }
        drop(guard);
        Ok(ends)
    }
}

/// Reports the end of one model's turn on its events (an error that stopped it as `error`,
/// then `finished`), as soon as it ends.
fn report(result: Result<turn::Ended, EngineError>, events: &Events) -> CompareEnd {
    match result {
        Ok((reason, head_id)) => {
            let reason = finished(Ok((reason, head_id.clone())), events).unwrap_or(reason);
            CompareEnd { reason, head_id }
        }
        Err(e) => {
            let _ = events.send(ChatEvent::Error {
                kind: e.kind(),
                message: e.to_string(),
            });
            let _ = events.send(ChatEvent::Finished {
                reason: TurnEnd::Error,
                head_id: String::new(),
            });
            CompareEnd {
                reason: TurnEnd::Error,
                head_id: String::new(),
            }
        }
    }
}
