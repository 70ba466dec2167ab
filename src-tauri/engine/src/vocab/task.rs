//! Where an MCP task is in its life ([`TaskStatus`]): stored with a tool call, shown on its
//! card, followed by the host.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where a task is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The server is working on it.
    Working,
    /// The server waits for the user (an elicitation, say) before it can go on.
    InputRequired,
    /// Done; the result can be fetched.
    Completed,
    /// The task failed.
    Failed,
    /// The task was cancelled.
    Cancelled,
}

impl TaskStatus {
    /// The status named `wire` (`working`, `input_required`, …), if it is one.
    pub fn parse(wire: &str) -> Option<Self> {
        Some(match wire {
            "working" => Self::Working,
            "input_required" => Self::InputRequired,
            "completed" => Self::Completed,
            "failed" => Self::Failed,
            "cancelled" => Self::Cancelled,
            _ => return None,
        })
    }

    /// Its wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Completed, failed or cancelled: it will not change again.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}
