//! Approval policy of tool calls: whether a call runs, is refused, or waits for the user —
//! the model's calls and MCP Apps' own calls alike, through one [`verdict`].
//! Sources, strongest first: the user's policy for that very tool (`tool_policies`), the
//! server's configured `approval`, an "allow for this chat" grant (in memory, per
//! conversation), the calling App's own grant, and the tool's annotations: read-only tools
//! are auto-allowed only with the global opt-in `tools.auto_allow_read_only`, destructive ones
//! (which, as the spec says, is every tool that is not read-only and does not say otherwise)
//! never.
//!
//! What an MCP App's own approvals cover: the user's "Always" or "allow in this chat" on an
//! App's approval card applies to that App's calls of that tool only (the App is its server
//! and its `ui://` resource), never to the model's calls of the tool nor to another App's.
//! An App's "Always" is stored (setting [`APP_GRANTS_SETTING`], by server id, so a server
//! replaced by another keeps none of it); "in this chat" lives in memory. Explicit denials
//! still win: a grant only turns the policy's "ask" into "allow". Every answer is remembered
//! in one place, [`McpHost::approve`].

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::McpHost;
use crate::EngineError;
use crate::store::{Store, StoreError};
use crate::vocab::ApprovalAnswer;
use crate::vocab::error::ToolError;
use crate::vocab::mcp::ToolAnnotations;
use crate::vocab::server::Approval;

/// The setting that lets read-only tools run without asking (a JSON boolean).
pub(crate) const AUTO_ALLOW_READ_ONLY: &str = "tools.auto_allow_read_only";
/// The setting holding the Apps' "Always" grants (a JSON array of [`Grant`]).
pub(crate) const APP_GRANTS_SETTING: &str = "tools.app_grants";

/// Whose call an approval is for, and so where an answer is remembered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Asker {
    /// The model's: an answer covers the model's calls of the tool.
    Model,
    /// An MCP App's: an answer covers that App's calls of the tool only; an App that did not
    /// say which it is (`None`) gets nothing remembered.
    App(Option<Grant>),
    /// Another app's, through Switchboard's MCP endpoint, never the model's: "always" for a
    /// client the user registered (`id`, its token's) is stored for that client; otherwise an
    /// answer that allows more than one call covers that client's calls of the tool until the
    /// app restarts (its key is the "conversation").
    Client {
        /// The registered client's id, when the call carried its token.
        id: Option<String>,
    },
}

impl Asker {
    fn grant(&self) -> Option<&Grant> {
        match self {
            Self::App(grant) => grant.as_ref(),
            Self::Model | Self::Client { .. } => None,
        }
    }
}

/// One App's permission to call one tool of its server.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Grant {
    /// The server's id.
    pub server: String,
    /// The App's `ui://` resource.
    pub app: String,
    /// The tool.
    pub tool: String,
}

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
pub(crate) struct Inputs {
    /// The user's policy for this tool, if set.
    pub tool_policy: Option<Approval>,
    /// The server's configured default.
    pub server_approval: Approval,
    /// The user allowed this tool for the current conversation.
    pub allowed_for_chat: bool,
    /// The calling App was allowed this tool (always, or in this conversation).
    pub app_granted: bool,
    /// The tool says it is read-only.
    pub read_only: bool,
    /// The tool says it is destructive.
    pub destructive: bool,
    /// The global opt-in for read-only tools.
    pub auto_allow_read_only: bool,
}

/// The decision for `inputs`: an explicit deny wins; then a grant for this chat or the
/// calling App's grant; then the
/// tool's own policy; destructive tools are never allowed automatically; then the server's
/// default; read-only tools run only with the opt-in; otherwise ask.
pub(crate) fn resolve(inputs: Inputs) -> Decision {
    let denied = match inputs.tool_policy {
        Some(policy) => policy == Approval::Deny,
        None => inputs.server_approval == Approval::Deny,
    };
    if denied {
        return Decision::Deny;
    }
    if inputs.allowed_for_chat || inputs.app_granted {
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
pub(crate) fn destructive(annotations: &ToolAnnotations) -> bool {
    annotations.read_only != Some(true) && annotations.destructive != Some(false)
}

/// Conversation id → the (server, tool) pairs allowed in it.
type Grants = HashMap<String, HashSet<(String, String)>>;

/// The policy service: the stored policies plus the in-memory per-conversation grants (the
/// model's, and the Apps' own: (conversation, grant)). Cheap to clone; clones share the
/// grants.
#[derive(Clone, Debug, Default)]
pub struct Policies {
    chats: Arc<Mutex<Grants>>,
    apps: Arc<Mutex<HashSet<(String, Grant)>>>,
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
    /// id) in `conversation`, by the model (`app` is `None`) or by the App `app`.
    pub(crate) async fn decide(
        &self,
        store: &Store,
        server: &str,
        tool: &str,
        annotations: &ToolAnnotations,
        conversation: &str,
        asker: &Asker,
    ) -> Result<Decision, StoreError> {
        let app = asker.grant();
        // One query: the server, the tool's policy and the read-only opt-in.
        let (record, tool_policy, opt_in) = store
            .server_with_policy(server, tool, AUTO_ALLOW_READ_ONLY)
            .await?;
        let inputs = Inputs {
            tool_policy,
            server_approval: record.config.approval,
            allowed_for_chat: self.allowed_for_chat(conversation, &record.config.name, tool),
            app_granted: match app {
                Some(grant) => self.app_granted(store, conversation, grant).await?,
                None => false,
            },
            read_only: annotations.read_only == Some(true),
            destructive: destructive(annotations),
            auto_allow_read_only: opt_in == Some(Value::Bool(true)),
        };
        let decision = resolve(inputs);
        // A registered client's stored "always" turns an ask into an allow (read only then).
        if let (Decision::Ask, Asker::Client { id: Some(id) }) = (decision, asker)
            && store.serve_client_granted(id, &record.id, tool).await?
        {
            return Ok(Decision::Allow);
        }
        Ok(decision)
    }

    /// Whether the user allowed `grant`'s App to call its tool, always or in `conversation`.
    async fn app_granted(
        &self,
        store: &Store,
        conversation: &str,
        grant: &Grant,
    ) -> Result<bool, StoreError> {
        let key = (conversation.to_owned(), grant.clone());
        if lock(&self.apps).contains(&key) {
            return Ok(true);
        }
        Ok(stored_app_grants(store).await?.contains(grant))
    }

    /// Keeps an App's "allow in this chat" for that App only.
    fn allow_app_for_chat(&self, conversation: &str, grant: Grant) {
        lock(&self.apps).insert((conversation.to_owned(), grant));
    }

    /// Drops the in-memory App grants on server `id`.
    fn forget_app_grants(&self, id: &str) {
        lock(&self.apps).retain(|(_, g)| g.server != id);
    }

    fn lock(&self) -> MutexGuard<'_, Grants> {
        lock(&self.chats)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// The Apps' stored "Always" grants.
async fn stored_app_grants(store: &Store) -> Result<Vec<Grant>, StoreError> {
    let stored = store.setting(APP_GRANTS_SETTING).await?;
    Ok(stored
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default())
}

async fn save_app_grants(store: &Store, grants: &[Grant]) -> Result<(), StoreError> {
    let value = serde_json::to_value(grants).unwrap_or_default();
    store.set_setting(APP_GRANTS_SETTING, &value).await
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
pub(crate) fn verdict(decision: Decision, answer: Option<ApprovalAnswer>) -> Verdict {
    match (decision, answer) {
        (Decision::Deny, _) | (Decision::Ask, Some(ApprovalAnswer::Deny)) => Verdict::Refused,
        (Decision::Allow, _) | (Decision::Ask, Some(_)) => Verdict::Run,
        (Decision::Ask, None) => Verdict::Unanswered,
    }
}

/// Approval on the host: every caller's tool call (the agent loop's, an MCP App's) is decided
/// here, and the user's policies are changed here.
impl McpHost {
    /// Whether one call of `tool` of server `server` in `conversation` may run, for the model
    /// or for an App (`asker`): the policy first; where it says ask, the
    /// user's answer from `ask` (awaited only then; `None` when no answer comes); an "always"
    /// or "for this chat" answer is remembered — for the model's calls of the tool, or for
    /// that App's only.
    pub async fn approve(
        &self,
        conversation: &str,
        server: &str,
        tool: &str,
        asker: Asker,
        ask: impl Future<Output = Option<ApprovalAnswer>>,
    ) -> Result<Verdict, EngineError> {
        let decision = self.decide_as(server, tool, conversation, &asker);
        let decision = decision.await?;
        let answer = match decision {
            Decision::Ask => ask.await,
            Decision::Allow | Decision::Deny => None,
        };
        let verdict = verdict(decision, answer);
        if let (Verdict::Run, Some(answer)) = (verdict, answer) {
            self.remember(conversation, server, tool, asker, answer)
                .await?;
        }
        Ok(verdict)
    }

    /// Whether the model's call of `tool` of running server `server` in `conversation` may run.
    pub async fn decide(
        &self,
        server: &str,
        tool: &str,
        conversation: &str,
    ) -> Result<Decision, EngineError> {
        self.decide_as(server, tool, conversation, &Asker::Model)
            .await
    }

    async fn decide_as(
        &self,
        server: &str,
        tool: &str,
        conversation: &str,
        asker: &Asker,
    ) -> Result<Decision, EngineError> {
        let Some(annotations) = self.supervisor().tool_annotations(server, tool) else {
            let (server, tool) = (server.to_owned(), tool.to_owned());
            return Err(ToolError::UnknownTool { server, tool }.into());
        };
        let (store, annotations) = (self.store(), &annotations);
        let decision = self
            .policies
            .decide(store, server, tool, annotations, conversation, asker);
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

    /// Drops every App's and every client's grant on server `id` (its identity changed, or it
    /// was replaced).
    pub(crate) async fn clear_app_grants(&self, id: &str) -> Result<(), EngineError> {
        let grants = stored_app_grants(self.store()).await?;
        let kept: Vec<Grant> = grants.iter().filter(|g| g.server != id).cloned().collect();
        if kept.len() != grants.len() {
            save_app_grants(self.store(), &kept).await?;
        }
        self.policies.forget_app_grants(id);
        self.store().clear_serve_grants_of_server(id).await?;
        Ok(())
    }

    /// Remembers an "always" or "for this chat" answer: for an App, as that App's grant
    /// ("Always" stored, "in this chat" in memory); for the model, "always" as the tool's
    /// policy (a failure to store it is logged) and "for this chat" for `conversation`.
    async fn remember(
        &self,
        conversation: &str,
        server: &str,
        tool: &str,
        asker: Asker,
        answer: ApprovalAnswer,
    ) -> Result<(), EngineError> {
        match (answer, asker) {
            (ApprovalAnswer::AllowAlways, Asker::App(Some(grant))) => {
                let mut grants = stored_app_grants(self.store()).await?;
                if !grants.contains(&grant) {
                    tracing::info!(app = %grant.app, tool = %grant.tool, "an App may now always call a tool");
                    grants.push(grant);
                    save_app_grants(self.store(), &grants).await?;
                }
            }
            (ApprovalAnswer::AllowForChat, Asker::App(Some(grant))) => {
                self.policies.allow_app_for_chat(conversation, grant);
            }
            (ApprovalAnswer::AllowAlways, Asker::Model) => {
                let set = self.set_tool_policy(server, tool, Some(Approval::Allow));
                if let Err(e) = set.await {
                    tracing::warn!(error = %e, "could not store the tool policy");
                }
            }
            (ApprovalAnswer::AllowForChat, Asker::Model) => {
                self.policies.allow_for_chat(conversation, server, tool);
            }
            (ApprovalAnswer::AllowAlways, Asker::Client { id: Some(id) }) => {
                let record = self.store().find_server(server).await?;
                tracing::info!(client = %id, %server, %tool, "a client may now always call a tool");
                (self.store())
                    .grant_serve_client(&id, &record.id, tool)
                    .await?;
            }
            (ApprovalAnswer::AllowAlways | ApprovalAnswer::AllowForChat, Asker::Client { .. }) => {
                self.policies.allow_for_chat(conversation, server, tool);
            }
            (ApprovalAnswer::AllowOnce | ApprovalAnswer::Deny, _) | (_, Asker::App(None)) => {}
        }
        Ok(())
    }
}
