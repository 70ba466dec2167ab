//! The one event vocabulary of a turn, whatever the provider: what the UI renders and the CLI
//! prints (`--json` prints these as JSON lines).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::error::ErrorKind;
use super::provider::Usage;
use super::task::TaskStatus;

/// The key a refused call's result content carries (`"denied": true`, in the
/// [`ChatEvent::ToolResult`] event and the stored tool message alike), so that the chat shows
/// the call as denied rather than failed. The model is sent the result's text only.
pub const DENIED: &str = "denied";

/// Why a turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model gave its final answer.
    Done,
    /// The step limit was reached while the model still wanted tools.
    MaxSteps,
    /// The user stopped it.
    Cancelled,
    /// The same failing tool call repeated; the loop was broken.
    LoopBroken,
    /// An error ended it (see the preceding `error` event).
    Error,
}

/// A tool call as the UI shows it: which server and tool, with what arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CallView {
    /// The call id (unique within the conversation).
    pub id: String,
    /// The MCP server (empty when the model named a tool no server has).
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// The arguments the model sent.
    #[ts(type = "unknown")]
    pub arguments: serde_json::Value,
}

/// One event of a turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ChatEvent {
    /// The turn began; the user's message is stored.
    Started {
        /// The conversation.
        conversation_id: String,
        /// The user message the turn answers.
        user_message_id: String,
    },
    /// A new assistant message (one per model call) began streaming.
    MessageStarted {
        /// The message.
        message_id: String,
        /// The model writing it.
        model: String,
        /// The step, from 1.
        step: u32,
    },
    /// More answer text.
    TextDelta {
        /// The message.
        message_id: String,
        /// The new text.
        text: String,
    },
    /// More reasoning text.
    ReasoningDelta {
        /// The message.
        message_id: String,
        /// The new text.
        text: String,
    },
    /// The model asked for a tool call.
    ToolCallProposed {
        /// The assistant message holding the call.
        message_id: String,
        /// The call.
        call: CallView,
    },
    /// A call waits for the user's approval; answer with `answer_approval(approval_id, …)`.
    ApprovalNeeded {
        /// The id to answer with.
        approval_id: String,
        /// The call.
        call: CallView,
    },
    /// A call is running (approved or allowed by policy).
    ToolStarted {
        /// The call id.
        call_id: String,
    },
    /// A tool reported progress.
    ToolProgress {
        /// The call id.
        call_id: String,
        /// Progress so far.
        progress: f64,
        /// The total, if known.
        total: Option<f64>,
        /// A status message.
        message: Option<String>,
    },
    /// A call runs as a task on its server: its status changed (`working`, `input_required`,
    /// then `completed`, `failed` or `cancelled`). Cancel it with `cancel_task(call_id)`.
    ToolTask {
        /// The call id.
        call_id: String,
        /// The server's id for the task.
        task_id: String,
        /// The task's status.
        status: TaskStatus,
        /// The server's status message (the task's progress), if any.
        message: Option<String>,
    },
    /// A call finished (or was denied, cancelled or failed: `is_error`; denied ones carry
    /// [`DENIED`] in `content`).
    ToolResult {
        /// The tool message holding the result.
        message_id: String,
        /// The call id.
        call_id: String,
        /// The normalized result (text, images, resources, structured content).
        #[ts(type = "unknown")]
        content: serde_json::Value,
        /// Whether the tool failed (or did not run).
        is_error: bool,
    },
    /// Token usage of one model call.
    Usage {
        /// The assistant message.
        message_id: String,
        /// The counts.
        usage: Usage,
    },
    /// One model call (and its tools) is done.
    StepFinished {
        /// The step, from 1.
        step: u32,
    },
    /// Something failed; a `finished` event follows.
    Error {
        /// The stable kind (the UI translates it).
        kind: ErrorKind,
        /// What happened.
        message: String,
    },
    /// The model named the conversation (after its first turn).
    Titled {
        /// The new title.
        title: String,
    },
    /// The turn ended.
    Finished {
        /// Why.
        reason: TurnEnd,
        /// The last message of the branch now shown.
        head_id: String,
    },
}
