//! The user's answer to an approval question ([`ApprovalAnswer`]), as the UI, the CLI and
//! MCP Apps give it and the tool-call pipeline takes it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The user's answer to an approval question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalAnswer {
    /// Run this call.
    AllowOnce,
    /// Run it, and from now on every call of this tool (stored policy).
    AllowAlways,
    /// Run it, and every call of this tool in this conversation until the app restarts.
    AllowForChat,
    /// Do not run it; the model is told the user refused.
    Deny,
}
