//! The agent: one user message → model calls and tool calls until a final answer. This
//! module owns [`Agent`], the chat service built from its parts (the store, the MCP host, the
//! providers) — the turn's public API (send, regenerate, edit and resend, stop,
//! answer an approval, switch branch), the per-conversation settings, and the registry of
//! running turns; the loop itself is in `turn`, tool execution in `calls`.

pub(crate) mod approval;
pub mod assistants;
pub(crate) mod attachments;
pub(crate) mod budget;
mod calls;
pub mod coalesce;
pub mod compare;
mod for_client;
pub mod history;
mod lane;
pub(crate) mod learned_modes;
mod phase;
mod probed_modes;
pub(crate) mod sampling;
mod setup;
mod tasks;
pub mod title;
pub(crate) mod tool_costs;
mod turn;
pub mod upload;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;
use ts_rs::TS;

pub use crate::provider::{ReasoningEffort, Thinking};
pub use crate::vocab::ApprovalAnswer;
pub use crate::vocab::chat::{CallView, ChatEvent, TurnEnd};
pub use crate::vocab::error::AgentError;
pub use approval::Approvals;
pub use compare::{CompareEnd, CompareModel};
pub use for_client::OutsideCaller;
pub use sampling::SamplingModel;
pub use tasks::RunningTasks;
pub use tool_costs::{ToolCost, ToolTokens};

use crate::EngineError;
use crate::mcp::McpHost;
use crate::provider::prompt_tools::ToolMode;
use crate::providers::Providers;
use crate::store::Store;
use crate::store::{Conversation, Message, MessageStatus, NewMessage, Role, StoreError};
use crate::vocab::content::{Attachment, ContentPart};
use crate::vocab::mcp::{ResultPart, ToolResult};

/// Where a turn's events go (the receiver may be dropped: the turn goes on and is stored).
pub type Events = UnboundedSender<ChatEvent>;

/// The default limit of model calls in one turn.
pub const MAX_STEPS: u32 = 25;

/// Per-conversation settings, kept in `conversations.settings`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct ChatSettings {
    /// The MCP servers whose tools this conversation may use; all running ones when absent.
    #[ts(optional)]
    pub servers: Option<Vec<String>>,
    /// How tools reach the model; the provider's setting for the model when absent.
    #[ts(optional)]
    pub tool_mode: Option<ToolMode>,
    /// The most model calls in one turn (default 25).
    #[ts(optional)]
    pub max_steps: Option<u32>,
    /// The model's context window in tokens (default 32768).
    #[ts(optional)]
    pub context_window: Option<u32>,
    /// The most tokens an answer may have.
    #[ts(optional)]
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature; the provider's default when absent.
    #[ts(optional)]
    pub temperature: Option<f64>,
    /// Nucleus sampling; the provider's default when absent.
    #[ts(optional)]
    pub top_p: Option<f64>,
    /// Reasoning on or off, with its effort or budget; the model's default when absent.
    #[ts(optional)]
    pub thinking: Option<Thinking>,
    /// Tools switched off one by one: server name → tool names not offered to the model
    /// (a tool a server adds later is on until switched off).
    #[ts(optional)]
    pub disabled_tools: Option<std::collections::BTreeMap<String, Vec<String>>>,
    /// The assistant this conversation started from (its id); the settings above were copied
    /// from it and may since have been changed for this conversation alone.
    #[ts(optional)]
    pub assistant: Option<String>,
}

impl ChatSettings {
    /// The settings of a conversation (defaults for anything unreadable).
    pub fn of(conv: &Conversation) -> Self {
        serde_json::from_value(conv.settings.clone()).unwrap_or_default()
    }

    /// Whether tool `tool` of server `server` is offered (not switched off one by one).
    pub fn tool_enabled(&self, server: &str, tool: &str) -> bool {
        !self
            .disabled_tools
            .as_ref()
            .and_then(|d| d.get(server))
            .is_some_and(|off| off.iter().any(|t| t == tool))
    }
}

/// The agent's shared state: approval questions, running turns and the tasks waited for.
#[derive(Clone, Debug, Default)]
pub struct AgentState {
    approvals: Approvals,
    running: Arc<Mutex<HashMap<String, CancellationToken>>>,
    tasks: RunningTasks,
}

/// Removes a conversation's turn from the registry when the turn ends, however it ends.
struct Running {
    state: AgentState,
    conversation: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.state.lock().remove(&self.conversation);
    }
}

impl AgentState {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a turn in `conversation`, refusing a second one.
    fn begin(&self, conversation: &str) -> Result<(Running, CancellationToken), AgentError> {
        let mut running = self.lock();
        if running.contains_key(conversation) {
            return Err(AgentError::Busy);
        }
        let token = CancellationToken::new();
        running.insert(conversation.to_owned(), token.clone());
        let guard = Running {
            state: self.clone(),
            conversation: conversation.to_owned(),
        };
        Ok((guard, token))
    }
}

/// The chat service: runs turns on its parts. The turn loop takes an `&Agent`, so it sees only
/// the store, the MCP host and the providers, never the rest of the engine.
#[derive(Clone, Debug)]
pub struct Agent {
    store: Store,
    mcp: McpHost,
    providers: Providers,
    state: AgentState,
}

impl Agent {
    /// An agent with no turn running.
    pub fn new(store: Store, mcp: McpHost, providers: Providers) -> Self {
        Self {
            store,
            mcp,
            providers,
            state: AgentState::default(),
        }
    }

    /// The store the turns write to.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// The MCP host whose tools the turns call.
    pub(crate) fn mcp(&self) -> &McpHost {
        &self.mcp
    }

    /// The providers whose models answer.
    pub(crate) fn providers(&self) -> &Providers {
        &self.providers
    }

    /// The approval questions of running turns.
    pub fn approvals(&self) -> &Approvals {
        &self.state.approvals
    }

    /// Sends `text` as the user in `conversation` (after the message shown last) and runs the
    /// turn to its end, reporting on `events`.
    pub async fn send_message(
        &self,
        conversation: &str,
        text: &str,
        events: Events,
    ) -> Result<TurnEnd, EngineError> {
        self.send_with_attachments(conversation, text, Vec::new(), events)
            .await
    }

    /// [`Agent::send_message`] with MCP resources attached to the user message (stored with
    /// it, and sent to the model after the text).
    pub async fn send_with_attachments(
        &self,
        conversation: &str,
        text: &str,
        attachments: Vec<Attachment>,
        events: Events,
    ) -> Result<TurnEnd, EngineError> {
        let conv = self.store().get_conversation(conversation);
        let conv = conv.instrument(phase::sqlite()).await?;
        let parent = conv.head_id.clone();
        let attached = attachments.into_iter().map(ContentPart::Resource).collect();
        self.turn_from(conv, parent, text, attached, events).await
    }

    /// [`Agent::send_with_attachments`] with files too: images and text or PDF files made
    /// ready by [`Agent::attach_bytes`] (`image_ref` and `file` parts). They are checked
    /// before anything is stored or sent: every image must be stored, and the model must be
    /// one whose provider does not say it cannot see images.
    pub async fn send_with_files(
        &self,
        conversation: &str,
        text: &str,
        attachments: Vec<Attachment>,
        files: Vec<ContentPart>,
        events: Events,
    ) -> Result<TurnEnd, EngineError> {
        let conv = self.store().get_conversation(conversation).await?;
        self.check_uploads(&conv, &files).await?;
        let parent = conv.head_id.clone();
        let mut attached: Vec<ContentPart> =
            attachments.into_iter().map(ContentPart::Resource).collect();
        attached.extend(files);
        self.turn_from(conv, parent, text, attached, events).await
    }

    /// Writes `text` as a new version of user message `message_id` (a sibling: the old
    /// branch stays; its attachments are kept) and runs the turn.
    pub async fn edit_and_resend(
        &self,
        message_id: &str,
        text: &str,
        events: Events,
    ) -> Result<TurnEnd, EngineError> {
        let old = self.store().get_message(message_id).await?;
        if old.role != Role::User {
            return Err(invalid("only a user message can be edited and sent again"));
        }
        let conv = self.store().get_conversation(&old.conversation_id).await?;
        let attached = (old.content.into_iter())
            .filter(|p| {
                matches!(
                    p,
                    ContentPart::Resource(_)
                        | ContentPart::Image { .. }
                        | ContentPart::ImageRef(_)
                        | ContentPart::File(_)
                )
            })
            .collect();
        self.turn_from(conv, old.parent_id, text, attached, events)
            .await
    }

    /// Answers the last user message of the shown branch again (a new sibling answer).
    pub async fn regenerate(
        &self,
        conversation: &str,
        events: Events,
    ) -> Result<TurnEnd, EngineError> {
        let conv = self.store().get_conversation(conversation).await?;
        let branch = self.conversation_branch(conversation).await?;
        let Some(user) = branch.iter().rev().find(|m| m.role == Role::User) else {
            return Err(invalid("there is no message to answer again"));
        };
        let (guard, cancel) = self.state.begin(conversation)?;
        let user_id = user.id.clone();
        let result = turn::run(self, &conv, async { Ok(user_id) }, &events, &cancel).await;
        drop(guard);
        finished(result, &events)
    }

    /// Stops the turn running in `conversation`; false when none runs.
    pub fn stop_turn(&self, conversation: &str) -> bool {
        match self.state.lock().get(conversation) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Whether a turn runs in `conversation`.
    pub fn turn_running(&self, conversation: &str) -> bool {
        self.state.lock().contains_key(conversation)
    }

    /// Answers an approval question; false when it no longer waits.
    pub fn answer_approval(&self, approval_id: &str, answer: ApprovalAnswer) -> bool {
        self.state.approvals.answer(approval_id, answer)
    }

    /// The messages of the branch `conversation` shows, oldest first.
    pub async fn conversation_branch(
        &self,
        conversation: &str,
    ) -> Result<Vec<Message>, EngineError> {
        let conv = self.store().get_conversation(conversation).await?;
        match conv.head_id {
            Some(head) => Ok(self.store().branch(&head).await?),
            None => Ok(Vec::new()),
        }
    }

    /// At most `limit` messages of the branch `conversation` shows, oldest first: its last
    /// ones, or with `before` (a message of that branch) the ones just before it.
    pub async fn conversation_branch_page(
        &self,
        conversation: &str,
        before: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Message>, EngineError> {
        let end = match before {
            Some(id) => {
                let m = self.store().get_message(id).await?;
                if m.conversation_id != conversation {
                    return Err(StoreError::NotFound {
                        entity: "message",
                        id: format!("{id} in conversation {conversation}"),
                    }
                    .into());
                }
                m.parent_id
            }
            None => self.store().get_conversation(conversation).await?.head_id,
        };
        match end {
            Some(head) => Ok(self.store().branch_tail(&head, i64::from(limit)).await?),
            None => Ok(Vec::new()),
        }
    }

    /// Shows the branch through `message_id` (its newest continuation).
    pub async fn switch_branch(&self, message_id: &str) -> Result<Conversation, EngineError> {
        let m = self.store().get_message(message_id).await?;
        let leaf = self.store().newest_leaf(&m.id).await?;
        Ok(self.store().set_head(&m.conversation_id, &leaf).await?)
    }

    /// Stores a user message (`text`, then `attached`) under `parent` and runs the turn that
    /// answers it.
    async fn turn_from(
        &self,
        conv: Conversation,
        parent: Option<String>,
        text: &str,
        attached: Vec<ContentPart>,
        events: Events,
    ) -> Result<TurnEnd, EngineError> {
        if text.trim().is_empty() && attached.is_empty() {
            return Err(invalid("the message is empty"));
        }
        let mut content = Vec::with_capacity(attached.len() + 1);
        if !text.trim().is_empty() {
            content.push(ContentPart::text(text));
        }
        content.extend(attached);
        let (guard, cancel) = self.state.begin(&conv.id)?;
        let untitled = conv.title.is_empty();
        let stored = async {
            let user = self
                .store()
                .append_as_head(NewMessage {
                    conversation_id: conv.id.clone(),
                    parent_id: parent,
                    role: Role::User,
                    content,
                    status: MessageStatus::Complete,
                    model: None,
                })
                .await?;
            if untitled {
                title::name_after_first_line(self, &conv.id, &user.content, Some(&events)).await?;
            }
            Ok::<_, EngineError>(user.id)
        };
        let stored = stored.instrument(phase::sqlite());
        let result = turn::run(self, &conv, stored, &events, &cancel).await;
        if untitled && matches!(result, Ok((TurnEnd::Done, _))) {
            title::retitle(self, &conv, &events).await;
        }
        drop(guard);
        finished(result, &events)
    }
}

/// Reports the end of a turn (the last event) and returns how it ended.
fn finished(
    result: Result<turn::Ended, EngineError>,
    events: &Events,
) -> Result<TurnEnd, EngineError> {
    let (reason, head_id) = result?;
    let _ = events.send(ChatEvent::Finished { reason, head_id });
    Ok(reason)
}

/// What a first message is titled after: its text, else the name of its first attachment.
pub fn title_source(content: &[ContentPart]) -> &str {
    let text = content.iter().find_map(|p| match p {
        ContentPart::Text { text } if !text.trim().is_empty() => Some(text.as_str()),
        _ => None,
    });
    let attached = || {
        content.iter().find_map(|p| match p {
            ContentPart::Resource(a) => Some(a.name.as_str()),
            ContentPart::File(f) => Some(f.name.as_str()),
            ContentPart::ImageRef(r) => r.name.as_deref(),
            _ => None,
        })
    };
    text.or_else(attached).unwrap_or("")
}

/// A title from the first line of the first message (at most 60 characters).
pub fn title_from(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut title: String = line.trim().chars().take(60).collect();
    if line.trim().chars().count() > 60 {
        title.push('…');
    }
    if title.is_empty() {
        "New chat".to_owned()
    } else {
        title
    }
}

fn invalid(msg: &str) -> EngineError {
    AgentError::Invalid(msg.to_owned()).into()
}

/// A result made of one error text.
fn error_result(text: impl Into<String>) -> ToolResult {
    ToolResult {
        content: vec![ResultPart::Text { text: text.into() }],
        structured: None,
        is_error: true,
    }
}
