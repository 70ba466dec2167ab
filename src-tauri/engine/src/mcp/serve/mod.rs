//! Switchboard as an MCP server for other apps: one endpoint ([`Gateway`]) that serves the
//! tools of every running server together, named as the model sees them (`server__tool`, made
//! unique and provider-safe by `provider::names`), each call run through the host's one
//! pipeline under the user's approval policy. Where the policy asks, the calling client is
//! asked through MCP elicitation when it offers it (its user answers "allow" or not), else the
//! user in Switchboard's window when one is open (once, always for a registered client, or
//! deny; `Interactions::ask_client_call`); otherwise the call is refused with a result that
//! says where to allow it.
//! A client that asks for progress hears the upstream call's, under its own token.
//! Resources, prompts and completions are served too (`content`). A stateless-era client's
//! requests are relayed (`relay`, `calls`): a server's `input_required` questions go back to
//! that client, whose answering rounds of an approved call are not asked about again. Serving over stdio is [`serve_stdio`];
//! over HTTP on 127.0.0.1 it is [`serve_http`] (`http`), where each request carries a client
//! the user made, whose allow-list limits the servers it reaches and whose calls are logged.

mod announce;
mod calls;
mod content;
mod convert;
mod http;
mod listen;
mod local;
mod logs;
mod relay;
mod stdio;
mod subscriptions;
mod tasks;

pub(crate) use http::Authorized;
pub use http::{DEFAULT_PORT, Endpoint, MAX_BODY, REQUESTS_PER_MINUTE, ServeError, serve_http};
pub use local::{LocalServer, LocalServerStatus};

use std::sync::Arc;
use std::time::Duration;

use rmcp::model as rm;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::client::progress::Progress;
use super::host::{Called, McpHost};
use super::supervisor::interact::{ClientCall, Interactions};
use crate::provider::names::ToolNames;
use crate::store::{CallOutcome, ServeCall, ServeClient};
use crate::vocab::ApprovalAnswer;
use crate::vocab::mcp::ToolInfo;

/// How long an approval asked of a client waits for its user.
pub const APPROVAL_WAIT: Duration = Duration::from_secs(120);

/// The MCP server other apps reach: the running servers' tools behind one name each.
#[derive(Clone)]
pub struct Gateway {
    host: McpHost,
    /// The one server passed through as it is (its tools and prompts under their own names).
    only: Option<Arc<[String; 1]>>,
    /// The log level this session's client set.
    log_level: logs::LogLevel,
    /// The `requestState`s handed to stateless-era apps after approved rounds.
    issued: relay::IssuedStates,
    /// How many sessions subscribed to each server's resource.
    upstream: subscriptions::Upstream,
    /// This session's resource subscriptions.
    watched: subscriptions::Watched,
    /// The tasks of apps' calls, passed through.
    tasks: tasks::ServedTasks,
    /// The served names of the tools last resolved.
    last_names: LastNames,
}

/// The served names of the last set of tools resolved, reused while the set is the same (a
/// call resolves its name against them; building them costs more than comparing the set).
#[derive(Clone, Default)]
struct LastNames(Arc<std::sync::Mutex<Option<Named>>>);

/// Pairs of (server, tool) and their served names.
type Named = (Vec<(String, String)>, Arc<ToolNames>);

impl Gateway {
    /// A gateway over `host`'s running servers.
    pub fn new(host: McpHost) -> Self {
        Self {
            host,
            only: None,
            log_level: logs::LogLevel::default(),
            issued: relay::IssuedStates::default(),
            upstream: subscriptions::Upstream::default(),
            watched: subscriptions::Watched::default(),
            tasks: tasks::ServedTasks::default(),
            last_names: LastNames::default(),
        }
    }

    /// A gateway that serves `host`'s server `server` alone, as that server serves itself:
    /// its tools and prompts keep their own names (for a client that wants one server through
    /// Switchboard's policy and secrets, and for the conformance suite's server scenarios).
    pub fn only(host: McpHost, server: &str) -> Self {
        Self {
            host,
            only: Some(Arc::new([server.to_owned()])),
            log_level: logs::LogLevel::default(),
            issued: relay::IssuedStates::default(),
            upstream: subscriptions::Upstream::default(),
            watched: subscriptions::Watched::default(),
            tasks: tasks::ServedTasks::default(),
            last_names: LastNames::default(),
        }
    }

    /// This gateway for a new session (its own log level).
    pub(crate) fn for_session(&self) -> Self {
        Self {
            log_level: logs::LogLevel::default(),
            watched: subscriptions::Watched::default(),
            ..self.clone()
        }
    }

    /// The database behind it.
    pub(crate) fn store(&self) -> &crate::store::Store {
        self.host.store()
    }

    /// The served names of `pairs` of (server, tool or prompt).
    fn naming<'a>(&self, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> ToolNames {
        content::served_names(self.only.is_some(), pairs)
    }

    /// The client the user made that sent this request (over HTTP), if any.
    fn authorized(context: &RequestContext<RoleServer>) -> Option<&ServeClient> {
        let parts = context.extensions.get::<axum::http::request::Parts>()?;
        parts
            .extensions
            .get::<http::Authorized>()
            .map(|authorized| &authorized.0)
    }

    /// The servers the requesting client may reach (`None`: all); with one server passed
    /// through, that one, if the client may reach it.
    fn reach<'a>(&'a self, context: &'a RequestContext<RoleServer>) -> content::Reach<'a> {
        let allowed = Self::authorized(context).and_then(|c| c.servers.as_deref());
        match &self.only {
            Some(only) if allowed.is_none_or(|a| a.contains(&only[0])) => Some(&only[..]),
            Some(_) => Some(&[]),
            None => allowed,
        }
    }

    /// The calling client's name: the one the user gave it, else its handshake's.
    fn client_name(context: &RequestContext<RoleServer>) -> String {
        match Self::authorized(context) {
            Some(client) => client.name.clone(),
            None => Self::client(&context.peer),
        }
    }

    /// The calling client's name, as its handshake gave it.
    fn client(peer: &rmcp::Peer<RoleServer>) -> String {
        let name = peer
            .peer_info()
            .map(|info| {
                info.client_info
                    .name
                    .trim()
                    .chars()
                    .take(80)
                    .collect::<String>()
            })
            .unwrap_or_default();
        if name.is_empty() {
            "an MCP client".to_owned()
        } else {
            name
        }
    }

    /// The tools served to the requesting client (within its reach and tool list), each with
    /// its server, and their served names.
    async fn tools(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> (Vec<(String, ToolInfo)>, ToolNames) {
        let mut tools = self.host.model_tools(None).await;
        let offered = self.offered(context);
        tools.retain(|(server, tool)| offered(server, &tool.name));
        let names = self.naming(tools.iter().map(|(s, t)| (s.as_str(), t.name.as_str())));
        (tools, names)
    }

    /// The names [`Self::tools`] serves, without listing the tools again (a call's name is
    /// resolved through these).
    fn names(&self, context: &RequestContext<RoleServer>) -> Arc<ToolNames> {
        let mut names = self.host.supervisor().model_tool_names();
        let offered = self.offered(context);
        names.retain(|(server, tool)| offered(server, tool));
        self.named(names)
    }

    /// The served names of `pairs` of (server, tool), the last ones again for the same pairs.
    fn named(&self, pairs: Vec<(String, String)>) -> Arc<ToolNames> {
        let mut last =
            (self.last_names.0.lock()).unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((kept, names)) = last.as_ref()
            && *kept == pairs
        {
            return names.clone();
        }
        let names = Arc::new(self.naming(pairs.iter().map(|(s, t)| (s.as_str(), t.as_str()))));
        *last = Some((pairs, names.clone()));
        names
    }

    /// Whether the requesting client is offered a tool of a server: the server within its
    /// reach, and the tool on the server's list of the client's tools when it has one.
    fn offered<'a>(
        &'a self,
        context: &'a RequestContext<RoleServer>,
    ) -> impl Fn(&str, &str) -> bool + 'a {
        let reach = self.reach(context);
        let lists = Self::authorized(context).and_then(|c| c.tools.as_ref());
        move |server, tool| {
            reach.is_none_or(|r| r.iter().any(|s| s == server))
                && (lists.and_then(|l| l.get(server))).is_none_or(|l| l.iter().any(|t| t == tool))
        }
    }

    /// Notes a call of `client` in its log.
    fn log<E>(
        &self,
        client: &ServeClient,
        server: &str,
        tool: &str,
        called: &Result<Called, E>,
        started: std::time::Instant,
    ) {
        record_serve_call(self.host.store(), client, server, tool, called, started);
    }

    /// When the client asked for progress (a `progressToken` in the call's `_meta`), a sink
    /// whose reports of the upstream call go to the client as `notifications/progress` under
    /// the client's own token, and the forwarding, which ends once the call dropped the sink
    /// (awaited before the result is sent, so that no report comes after it).
    fn forward_progress(
        context: &RequestContext<RoleServer>,
    ) -> Option<(
        crate::mcp::client::progress::ProgressSink,
        tokio::task::JoinHandle<()>,
    )> {
        let token = context.meta.get_progress_token()?;
        let (sink, mut reports) = tokio::sync::mpsc::unbounded_channel::<Progress>();
        let peer = context.peer.clone();
        let forwarding = tokio::spawn(async move {
            while let Some(report) = reports.recv().await {
                let mut param = rm::ProgressNotificationParam::new(token.clone(), report.progress);
                param.total = report.total;
                param.message = report.message;
                if peer.notify_progress(param).await.is_err() {
                    break; // the client went away
                }
            }
        });
        Some((sink, forwarding))
    }

    /// Asks the client's user to allow one call when the client can be asked (elicitation),
    /// else the user in Switchboard's window when one is open.
    async fn ask(
        peer: rmcp::Peer<RoleServer>,
        interactions: Interactions,
        call: ClientCall,
    ) -> Option<ApprovalAnswer> {
        let can_ask = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.elicitation.is_some());
        if can_ask && let Some(answer) = Self::elicit(&peer, &call).await {
            return Some(answer);
        }
        interactions.ask_client_call(call).await
    }

    /// Asks the client's user by elicitation; `None` when the client failed to answer.
    async fn elicit(peer: &rmcp::Peer<RoleServer>, call: &ClientCall) -> Option<ApprovalAnswer> {
        let (client, server, tool) = (&call.client, &call.server, &call.tool);
        let params: rm::ElicitRequestParams = serde_json::from_value(json!({
            "mode": "form",
            "message": format!(
                "Switchboard: allow {client} to run the tool \"{tool}\" of the server \"{server}\"? Accept to run it once."
            ),
            "requestedSchema": {"type": "object", "properties": {}},
        }))
        .ok()?;
        match peer
            .create_elicitation_with_timeout(params, Some(APPROVAL_WAIT))
            .await
        {
            Ok(answer) if answer.action == rm::ElicitationAction::Accept => {
                Some(ApprovalAnswer::AllowOnce)
            }
            Ok(_) => Some(ApprovalAnswer::Deny),
            Err(error) => {
                tracing::warn!(%error, %server, %tool, "the client could not be asked to approve");
                None
            }
        }
    }
}

impl ServerHandler for Gateway {
    #[allow(deprecated)] // logging is deprecated by 2026-07-28, still used by 2025-era clients
    fn get_info(&self) -> rm::ServerConfig {
        let mut capabilities = rm::ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .enable_logging()
            .enable_completions()
            .enable_resources_subscribe()
            .enable_tasks()
            .build();
        if let Some(tools) = capabilities.tools.as_mut() {
            tools.list_changed = Some(true);
        }
        if let Some(resources) = capabilities.resources.as_mut() {
            resources.list_changed = Some(true);
        }
        if let Some(prompts) = capabilities.prompts.as_mut() {
            prompts.list_changed = Some(true);
        }
        rm::ServerConfig::new(capabilities)
            .with_server_info(rm::Implementation::new(
                "switchboard",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "The tools of the MCP servers configured in Switchboard, named server__tool. Calls run under the approval policy set in Switchboard.",
            )
    }

    /// A handshake-era session is told of list changes from now on (`announce`).
    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        self.announce_to(context.peer);
    }

    #[allow(deprecated)] // logging is deprecated by 2026-07-28, still used by 2025-era clients
    async fn set_level(
        &self,
        request: rm::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.set(request.level);
        Ok(())
    }

    /// The tool served as `name`, to whoever asks (rmcp's HTTP transport checks a call's
    /// SEP-2243 `Mcp-Param-*` headers against its `x-mcp-header` properties with it).
    fn get_tool(&self, name: &str) -> Option<rm::Tool> {
        let supervisor = self.host.supervisor();
        let mut names = supervisor.model_tool_names();
        if let Some(only) = &self.only {
            names.retain(|(server, _)| *server == only[0]);
        }
        let names = self.named(names);
        let (server, tool) = names.resolve(name)?;
        convert::tool(name, server, &supervisor.tool_info(server, tool)?)
    }

    async fn list_tools(
        &self,
        _request: Option<rm::PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rm::ListToolsResult, ErrorData> {
        let (tools, names) = self.tools(&context).await;
        let tools = tools
            .iter()
            .filter_map(|(server, info)| {
                let name = names.safe_name(server, &info.name)?;
                convert::tool(name, server, info)
            })
            .collect();
        Ok(rm::ListToolsResult::with_all_items(tools))
    }

    async fn list_resources(
        &self,
        _request: Option<rm::PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rm::ListResourcesResult, ErrorData> {
        Ok(rm::ListResourcesResult::with_all_items(
            content::resources(&self.host, self.reach(&context)).await,
        ))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<rm::PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rm::ListResourceTemplatesResult, ErrorData> {
        Ok(rm::ListResourceTemplatesResult::with_all_items(
            content::templates(&self.host, self.reach(&context)).await,
        ))
    }

    async fn read_resource(
        &self,
        request: rm::ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rm::ReadResourceResponse, ErrorData> {
        let reach = self.reach(&context);
        let relay = relay::relay_of(&context, request.input_responses, request.request_state)?;
        content::read(&self.host, &request.uri, reach, relay.as_ref()).await
    }

    async fn list_prompts(
        &self,
        _request: Option<rm::PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rm::ListPromptsResult, ErrorData> {
        Ok(rm::ListPromptsResult::with_all_items(
            content::prompts(&self.host, self.reach(&context), self.only.is_some()).await,
        ))
    }

    async fn get_prompt(
        &self,
        request: rm::GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rm::GetPromptResponse, ErrorData> {
        let arguments = (request.arguments.unwrap_or_default().into_iter())
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => (k, s),
                other => (k, other.to_string()),
            })
            .collect();
        let served = (self.reach(&context), self.only.is_some());
        let relay = relay::relay_of(&context, request.input_responses, request.request_state)?;
        content::prompt(&self.host, &request.name, arguments, served, relay.as_ref()).await
    }

    async fn call_tool(
        &self,
        request: rm::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rm::CallToolResponse, ErrorData> {
        self.call(request, context).await
    }

    async fn get_task(
        &self,
        request: rm::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rm::GetTaskResult, ErrorData> {
        self.served_task_get(request, &context).await
    }

    async fn update_task(
        &self,
        request: rm::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.served_task_update(request, &context).await
    }

    async fn cancel_task(
        &self,
        request: rm::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.served_task_cancel(request, &context).await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rm::SubscriptionFilter,
    ) -> Option<rm::SubscriptionFilter> {
        listen::accepted(requested)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        self.listen_for(context).await
    }

    #[allow(deprecated)] // handshake-era subscriptions, still used by 2025-era clients
    async fn subscribe(
        &self,
        request: rm::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribe_for(request.uri, &context).await
    }

    #[allow(deprecated)] // handshake-era subscriptions, still used by 2025-era clients
    async fn unsubscribe(
        &self,
        request: rm::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.unsubscribe_for(&request.uri).await
    }

    async fn complete(
        &self,
        request: rm::CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rm::CompleteResult, ErrorData> {
        content::complete(
            &self.host,
            request,
            (self.reach(&context), self.only.is_some()),
        )
        .await
    }
}

/// A result the client's model reads as a failure with `why`.
fn refused(why: &str) -> rm::CallToolResult {
    rm::CallToolResult::error(vec![rm::ContentBlock::text(why)])
}

/// Serves `host`'s running servers on stdin and stdout until the client closes the stream or
/// `stop` is cancelled, telling the client when the lists change (a server started, stopped,
/// failed or changed its tools).
pub async fn serve_stdio(gateway: Gateway, stop: CancellationToken) -> Result<(), String> {
    let transport = stdio::transport();
    let running = gateway
        .serve_with_ct(transport, stop)
        .await
        .map_err(|e| format!("the MCP client's handshake failed: {e}"))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| format!("serving over stdio stopped: {e}"))
}

/// What a caller is told of a call the user's policy refused.
pub(crate) fn refused_text(server: &str, tool: &str) -> String {
    format!("The user's approval policy in Switchboard refused the call of {tool} ({server}).")
}

/// What a caller is told of a call that needed the user's approval nobody could give.
pub(crate) fn unanswered_text(client: &str, server: &str, tool: &str) -> String {
    format!(
        "The call of {tool} ({server}) needs the user's approval, and {client} cannot ask for it. Allow the tool in Switchboard (Settings → MCP Servers → {server} → tools, or `switchboard servers approval {server} allow --tool {tool}`)."
    )
}

/// Keeps one call in `client`'s call log (Settings → Local server, `switchboard clients
/// calls`): through the endpoint, or by an assistant answering that client. The row is written
/// in the background, so the caller's answer never waits for the database.
pub(crate) fn record_serve_call<E>(
    store: &crate::store::Store,
    client: &ServeClient,
    server: &str,
    tool: &str,
    called: &Result<Called, E>,
    started: std::time::Instant,
) {
    let outcome = match called {
        Ok(Called::Done(_) | Called::Task(_)) => CallOutcome::Done,
        Ok(Called::Refused) => CallOutcome::Refused,
        Ok(Called::Unanswered) => CallOutcome::Unanswered,
        Err(_) => CallOutcome::Failed,
    };
    let call = ServeCall {
        server: server.to_owned(),
        tool: tool.to_owned(),
        outcome,
        duration_ms: u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX),
        at: crate::store::now_ms(),
    };
    let (store, id, name) = (store.clone(), client.id.clone(), client.name.clone());
    tokio::spawn(async move {
        if let Err(error) = store.record_serve_call(&id, &call).await {
            tracing::warn!(%error, client = %name, "a client's call is not logged");
        }
    });
}
