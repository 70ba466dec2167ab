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

use super::McpHost;
use crate::EngineError;
use crate::mcp::tools::ToolError;
use crate::store::{Store, StoreError};
use crate::vocab::Approval;
use crate::vocab::ApprovalAnswer;
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

/// The policy service: the stored policies plus the in-memory per-conversation grants (the
/// model's, and the Apps' own, [`super::app_grants`]). Cheap to clone; clones share the grants.
#[derive(Clone, Debug, Default)]
pub struct Policies {
    chats: Arc<Mutex<Grants>>,
    apps: super::app_grants::AppChatGrants,
}

impl Policies {
    /// The Apps' "allow in this chat" grants.
    pub(crate) fn app_chats(&self) -> &super::app_grants::AppChatGrants {
        &self.apps
    }

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
        // One query: the server, the tool's policy and the read-only opt-in.
        let (record, tool_policy, opt_in) = store
            .server_with_policy(server, tool, AUTO_ALLOW_READ_ONLY)
            .await?;
        let inputs = Inputs {
            tool_policy,
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

/// What one call's approval came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Run it.
    Run,
    /// Do not run it: the policy or the user refused.
    Refused,
    /// The policy asks and no answer came: the turn was stopped first, or (an App's call) the
    /// caller must ask the user and call again with the answer.
    Unanswered,
}

/// The policy's decision and, where it asks, the user's answer → run or not. The one table
/// every caller goes through.
pub fn verdict(decision: Decision, answer: Option<ApprovalAnswer>) -> Verdict {
    match (decision, answer) {
        (Decision::Deny, _) | (Decision::Ask, Some(ApprovalAnswer::Deny)) => Verdict::Refused,
        (Decision::Allow, _) | (Decision::Ask, Some(_)) => Verdict::Run,
        (Decision::Ask, None) => Verdict::Unanswered,
    }
}

/// Approval on the host: every caller's tool call (the agent loop's, an MCP App's) is decided
/// here, and the user's policies are changed here.
impl McpHost {
    /// Whether one call of `tool` of server `server` in `conversation` may run: the policy
    /// first ([`McpHost::decide`]); where it says ask, the user's answer from `ask` (awaited
    /// only then; `None` when no answer comes); an "always" or "for this chat" answer is
    /// remembered.
    pub async fn approve(
        &self,
        conversation: &str,
        server: &str,
        tool: &str,
        ask: impl Future<Output = Option<ApprovalAnswer>>,
    ) -> Result<Verdict, EngineError> {
        let decision = self.decide(server, tool, conversation).await?;
        let answer = match decision {
            Decision::Ask => ask.await,
            Decision::Allow | Decision::Deny => None,
        };
        let verdict = verdict(decision, answer);
        if let (Verdict::Run, Some(answer)) = (verdict, answer) {
            self.remember_approval(conversation, server, tool, answer)
                .await;
        }
        Ok(verdict)
    }

    /// Whether a call of `tool` of running server `server` in `conversation` may run.
    pub async fn decide(
        &self,
        server: &str,
        tool: &str,
        conversation: &str,
    ) -> Result<Decision, EngineError> {
        let tools = self.supervisor().tools_for(&[server.to_owned()]);
        let Some((_, info)) = tools.into_iter().find(|(_, t)| t.name == tool) else {
            let (server, tool) = (server.to_owned(), tool.to_owned());
            return Err(ToolError::UnknownTool { server, tool }.into());
        };
        let store = self.store();
        let policies = self.policies();
        let decision = policies.decide(store, server, tool, &info.annotations, conversation);
        Ok(decision.await?)
    }

    /// Sets (or with `None` clears) the user's policy for `tool` of server `server`.
    pub async fn set_tool_policy(
        &self,
        server: &str,
        tool: &str,
        policy: Option<Approval>,
    ) -> Result<(), EngineError> {
        let record = self.store().find_server(server).await?;
        Ok(self
            .store()
            .set_tool_policy(&record.id, tool, policy)
            .await?)
    }

    /// The tool policies the user set for server `server` (name or id), by tool name.
    pub async fn tool_policies(
        &self,
        server: &str,
    ) -> Result<std::collections::BTreeMap<String, Approval>, EngineError> {
        let record = self.store().find_server(server).await?;
        Ok(self.store().tool_policies(&record.id).await?)
    }

    /// Whether read-only tools run without asking.
    pub async fn auto_allow_read_only(&self) -> Result<bool, EngineError> {
        let value = self.store().setting(AUTO_ALLOW_READ_ONLY).await?;
        Ok(value == Some(Value::Bool(true)))
    }

    /// Turns the auto-allowing of read-only tools on or off.
    pub async fn set_auto_allow_read_only(&self, on: bool) -> Result<(), EngineError> {
        let value = Value::Bool(on);
        Ok(self
            .store()
            .set_setting(AUTO_ALLOW_READ_ONLY, &value)
            .await?)
    }

    /// Stores an "always" answer as the tool's policy and a "for this chat" one for
    /// `conversation` (the agent loop's and the Apps' approvals alike).
    async fn remember_approval(
        &self,
        conversation: &str,
        server: &str,
        tool: &str,
        answer: ApprovalAnswer,
    ) {
        match answer {
            ApprovalAnswer::AllowAlways => {
                let set = self.set_tool_policy(server, tool, Some(Approval::Allow));
                if let Err(e) = set.await {
                    tracing::warn!(error = %e, "could not store the tool policy");
                }
            }
            ApprovalAnswer::AllowForChat => {
                self.policies().allow_for_chat(conversation, server, tool);
            }
            ApprovalAnswer::AllowOnce | ApprovalAnswer::Deny => {}
        }
    }
}
