//! Approval policy of tool calls: whether a call runs, is refused, or waits for the user.
//! Sources, strongest first: the user's policy for that very tool (`tool_policies`), the
//! server's configured `approval`, an "allow for this chat" grant (in memory, per
//! conversation), and the tool's annotations: read-only tools are auto-allowed only with the
//! global opt-in `tools.auto_allow_read_only`, destructive ones (which, as the spec says, is
//! every tool that is not read-only and does not say otherwise) never.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use serde_json::Value;

use crate::store::{Store, StoreError};
use crate::vocab::Approval;
use crate::vocab::mcp::ToolAnnotations;

/// The setting that lets read-only tools run without asking (a JSON boolean).
pub const AUTO_ALLOW_READ_ONLY: &str = "tools.auto_allow_read_only";

/// What to do with one tool call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run it.
    Allow,
    /// Ask the user first.
    Ask,
    /// Refuse it.
    Deny,
}

/// Everything a decision depends on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// The user's policy for this tool, if set.
    pub tool_policy: Option<Approval>,
    /// The server's configured default.
    pub server_approval: Approval,
    /// The user allowed this tool for the current conversation.
    pub allowed_for_chat: bool,
    /// The tool says it is read-only.
    pub read_only: bool,
    /// The tool says it is destructive.
    pub destructive: bool,
    /// The global opt-in for read-only tools.
    pub auto_allow_read_only: bool,
}

/// The decision for `inputs`: an explicit deny wins; then a grant for this chat; then the
/// tool's own policy; destructive tools are never allowed automatically; then the server's
/// default; read-only tools run only with the opt-in; otherwise ask.
pub fn resolve(inputs: Inputs) -> Decision {
    let denied = match inputs.tool_policy {
        Some(policy) => policy == Approval::Deny,
        None => inputs.server_approval == Approval::Deny,
    };
    if denied {
        return Decision::Deny;
    }
    if inputs.allowed_for_chat {
        return Decision::Allow;
    }
    match inputs.tool_policy {
        Some(Approval::Allow) => return Decision::Allow,
        Some(_) => return Decision::Ask,
        None => {}
    }
    if inputs.destructive {
        return Decision::Ask;
    }
    if inputs.server_approval == Approval::Allow
        || (inputs.read_only && inputs.auto_allow_read_only)
    {
        return Decision::Allow;
    }
    Decision::Ask
}

/// Whether a tool counts as destructive: the spec's default for `destructiveHint` is true
/// for a tool that is not read-only, so a tool without annotations is destructive.
pub fn destructive(annotations: &ToolAnnotations) -> bool {
    annotations.read_only != Some(true) && annotations.destructive != Some(false)
}

/// Conversation id → the (server, tool) pairs allowed in it.
type Grants = HashMap<String, HashSet<(String, String)>>;

/// The policy service: the stored policies plus the in-memory per-conversation grants.
/// Cheap to clone; clones share the grants.
#[derive(Clone, Debug, Default)]
pub struct Policies {
    chats: Arc<Mutex<Grants>>,
}

impl Policies {
    /// Allows `tool` of `server` for the rest of `conversation` (not stored).
    pub fn allow_for_chat(&self, conversation: &str, server: &str, tool: &str) {
        let pair = (server.to_owned(), tool.to_owned());
        self.lock()
            .entry(conversation.to_owned())
            .or_default()
            .insert(pair);
    }

    /// Drops every grant of `conversation`.
    pub fn forget_chat(&self, conversation: &str) {
        self.lock().remove(conversation);
    }

    /// Whether `tool` of `server` was allowed for `conversation`.
    pub fn allowed_for_chat(&self, conversation: &str, server: &str, tool: &str) -> bool {
        let pair = (server.to_owned(), tool.to_owned());
        self.lock()
            .get(conversation)
            .is_some_and(|set| set.contains(&pair))
    }

    /// The decision for a call of `tool` (with `annotations`) of server `server` (its name or
    /// id) in `conversation`.
    pub async fn decide(
        &self,
        store: &Store,
        server: &str,
        tool: &str,
        annotations: &ToolAnnotations,
        conversation: &str,
    ) -> Result<Decision, StoreError> {
        let record = store.find_server(server).await?;
        let opt_in = store.setting(AUTO_ALLOW_READ_ONLY).await?;
        let inputs = Inputs {
            tool_policy: store.tool_policy(&record.id, tool).await?,
            server_approval: record.config.approval,
            allowed_for_chat: self.allowed_for_chat(conversation, &record.config.name, tool),
            read_only: annotations.read_only == Some(true),
            destructive: destructive(annotations),
            auto_allow_read_only: opt_in == Some(Value::Bool(true)),
        };
        Ok(resolve(inputs))
    }

    fn lock(&self) -> MutexGuard<'_, Grants> {
        match self.chats.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}
