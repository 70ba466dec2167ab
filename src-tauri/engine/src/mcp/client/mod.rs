//! [`McpClient`]: the one wrapper around rmcp's client. It connects to a server over stdio
//! (a child process from [`process`]) or streamable HTTP, runs the handshake of the
//! protocol era the server speaks, and exposes tools, resources, prompts and notifications in
//! our own types (`vocab::mcp`); no rmcp type leaves this module.
//!
//! Protocol eras, per server ([`connect`]): the stateless 2026-07-28 revision first
//! (`server/discover`, per-request `_meta`, no session), the `initialize` handshake (2025-11-25,
//! negotiated down by the server for older ones) when the server does not speak it. Multi
//! round-trip requests are driven in [`mrtr`] (or, for another app's request through the
//! endpoint, passed back to it: [`relay`]), list cache hints read in [`listing`].

pub(crate) mod app_documents;
pub(crate) mod backoff;
pub(crate) mod child_env;
pub(crate) mod interact_types;
pub(crate) mod oauth;
pub(crate) mod oauth_client;
pub(crate) mod process;
pub(crate) mod progress;
pub(crate) mod roots;
pub(crate) mod sse;
pub(crate) mod tasks;

mod app_resources;
mod auth;
mod capped;
mod connect;
mod convert;
mod listen;
mod listing;
mod mrtr;
mod redirect;
pub(crate) mod relay;
mod requests;
mod stdio;
mod task_requests;

pub use mrtr::MAX_ROUNDS as MRTR_MAX_ROUNDS;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model as rm;
use rmcp::service::{
    ClientLifecycleMode, NotificationContext, PeerRequestOptions, RequestContext, RoleClient,
    RunningService,
};
use serde_json::{Map, Value};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use crate::mcp::client::interact_types::{
    ElicitationReply, ElicitationRequest, SamplingRefused, SamplingRequest, SamplingResult,
};
use crate::mcp::client::progress::{ProgressRoutes, ProgressSink};
use crate::mcp::client::roots::RootInfo;
use crate::mcp::client::tasks::CallOutcome;
use crate::vocab::mcp::{
    McpError, ResourceTemplateInfo, ServerInfo, ServerNotification, ToolResult,
};
/// A server's request for a model's answer.
pub(crate) const SAMPLING: &str = "sampling/createMessage";
/// A server's request for the user's input.
pub(crate) const ELICITATION: &str = "elicitation/create";
/// JSON-RPC "method not found": a server without tools may answer `tools/list` so.
pub(crate) const METHOD_NOT_FOUND: i32 = -32601;

use process::{EXIT_GRACE, ServerProcess, StderrLog};

/// The protocol revision we offer in `initialize`.
const HANDSHAKE_VERSION: rm::ProtocolVersion = rm::ProtocolVersion::V_2025_11_25;
/// The stateless revision we ask for in `server/discover`.
const STATELESS_VERSION: rm::ProtocolVersion = rm::ProtocolVersion::V_2026_07_28;
/// How many stderr lines a handshake error quotes.
const STDERR_TAIL_LINES: usize = 5;
/// The largest message a stdio server may send (one line). rmcp's default (16 MiB) silently
/// drops a longer line, so a large tool result (a 50 MB one in the fault tests) never arrived
/// and its call waited for its timeout; now it arrives and is truncated to the supervisor's `Limits`, and
/// a longer answer fails its call at once ([`capped::CappedLines`]).
///
pub(crate) const MAX_STDIO_MESSAGE_BYTES: usize = 64 * 1024 * 1024;
/// How often [`McpClient::closed`] checks whether the connection has ended.
pub(crate) const CLOSED_POLL: Duration = Duration::from_millis(100);

/// rmcp's start-up mode: the stateless era first (`server/discover` with 2026-07-28), and the
/// `initialize` handshake (offering [`HANDSHAKE_VERSION`]; the server may answer with an older
/// revision, down to 2024-11-05) when the server answers the probe with a JSON-RPC error, as
/// handshake-era servers do (`-32601`, method not found, from server-everything and FastMCP).
/// A server that ignores the probe altogether costs rmcp's fallback wait (10 s) once per
/// start, within the start-up timeout; see `docs/mcp-eras.md`.
/// With `handshake_only`, straight to `initialize`: the second attempt after a server answered
/// the probe with a result of another kind (`{}` from servers that answer every method).
fn lifecycle(handshake_only: bool) -> ClientLifecycleMode {
    if handshake_only {
        return ClientLifecycleMode::Initialize;
    }
    ClientLifecycleMode::Auto {
        preferred_versions: vec![STATELESS_VERSION],
        legacy_version: Some(HANDSHAKE_VERSION),
    }
}

/// The spec's headers as HTTP headers. Errors name the header, never its (secret) value.
fn header_map(
    headers: &BTreeMap<String, String>,
) -> Result<HashMap<HeaderName, HeaderValue>, McpError> {
    headers
        .iter()
        .map(|(name, value)| {
            let invalid = || McpError::Connect(format!("invalid HTTP header `{name}`"));
            let name = HeaderName::try_from(name.as_str()).map_err(|_| invalid())?;
            let mut value = HeaderValue::try_from(value.as_str()).map_err(|_| invalid())?;
            value.set_sensitive(true);
            Ok((name, value))
        })
        .collect()
}

/// The client capabilities a host implements; exactly these are advertised in `initialize`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostCapabilities {
    /// `sampling`: it answers `sampling/createMessage`.
    pub sampling: bool,
    /// `roots` with `listChanged`: it answers `roots/list` and says when the roots change.
    pub roots: bool,
    /// `elicitation.form`: it asks the user to fill in forms (answers checked against the
    /// schema).
    pub elicitation_form: bool,
    /// `elicitation.url`: it asks the user to open URLs.
    pub elicitation_url: bool,
    /// The `io.modelcontextprotocol/ui` extension: it renders MCP Apps.
    pub apps: bool,
    /// The `io.modelcontextprotocol/tasks` extension (2026-07-28, SEP-2663): a server may
    /// answer `tools/call` with a task, which we poll, answer and cancel.
    pub tasks: bool,
}

impl HostCapabilities {
    /// Every client capability we implement.
    pub const ALL: Self = Self {
        sampling: true,
        roots: true,
        elicitation_form: true,
        elicitation_url: true,
        apps: true,
        tasks: true,
    };
}

/// Where a connection's notifications go, and who answers the server's own requests
/// (sampling, roots, elicitation). The defaults advertise and answer none of them.
pub trait HostHandler: Send + Sync + 'static {
    /// Receives one notification; must not block (hand it to a channel).
    fn notify(&self, notification: ServerNotification);

    /// The client capabilities to advertise.
    fn capabilities(&self) -> HostCapabilities {
        HostCapabilities::default()
    }

    /// The roots to answer `roots/list` with.
    fn roots(&self) -> Vec<RootInfo> {
        Vec::new()
    }

    /// The knowledge bases, for a built-in knowledge server (none: it says they are missing).
    fn knowledge(&self) -> Option<Arc<dyn crate::vocab::knowledge::KnowledgeSearch>> {
        None
    }

    /// The app whose call is under way on this server and answers its `method` requests to
    /// the user itself, if there is exactly one (`mcp::serve`); `None`: they are ours.
    fn calling_app(&self, _method: &str) -> Option<Arc<dyn relay::AppAsker>> {
        None
    }

    /// Answers `sampling/createMessage` (after the user's approval).
    fn sample(
        &self,
        _request: SamplingRequest,
    ) -> BoxFuture<'static, Result<SamplingResult, SamplingRefused>> {
        Box::pin(std::future::ready(Err(SamplingRefused::Unsupported)))
    }

    /// Answers `elicitation/create`.
    fn elicit(&self, _request: ElicitationRequest) -> BoxFuture<'static, ElicitationReply> {
        Box::pin(std::future::ready(ElicitationReply::Decline))
    }
}

impl HostHandler for broadcast::Sender<ServerNotification> {
    fn notify(&self, notification: ServerNotification) {
        let _ = self.send(notification);
    }
}

impl HostHandler for mpsc::UnboundedSender<ServerNotification> {
    fn notify(&self, notification: ServerNotification) {
        let _ = self.send(notification);
    }
}

/// A host that ignores notifications.
#[derive(Clone, Copy, Debug, Default)]
pub struct IgnoreNotifications;

impl HostHandler for IgnoreNotifications {
    fn notify(&self, _notification: ServerNotification) {}
}

/// rmcp's handler, forwarding to our [`HostHandler`].
#[derive(Clone)]
struct Bridge {
    host: Arc<dyn HostHandler>,
    progress: ProgressRoutes,
    /// The server's log messages, in the order it sent them, for whoever listens
    /// ([`McpClient::subscribe_logs`]; fed by `progress::Tapped`).
    logs: tokio::sync::broadcast::Sender<ServerLog>,
    /// Skip the `server/discover` probe (the retry after a server answered it wrongly).
    handshake_only: bool,
}

/// One log message of a server (`notifications/message`), as the server sent it.
#[allow(deprecated)] // logging is deprecated by 2026-07-28, still sent by older servers
pub(crate) type ServerLog = rm::LoggingMessageNotificationParam;

/// How many log messages a slow listener may fall behind before it misses some.
const LOG_CAPACITY: usize = 256;

impl rmcp::ClientHandler for Bridge {
    // Progress is routed and told to the host where it is read (progress::Tapped), in order.

    #[allow(deprecated)] // logging is deprecated by 2026-07-28, still sent by older servers
    async fn on_logging_message(
        &self,
        params: rm::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.host.notify(convert::log(params));
    }

    async fn on_resource_updated(
        &self,
        params: rm::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.host
            .notify(ServerNotification::ResourceUpdated { uri: params.uri });
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.host.notify(ServerNotification::ResourcesChanged);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.host.notify(ServerNotification::ToolsChanged);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.host.notify(ServerNotification::PromptsChanged);
    }

    #[allow(deprecated)] // sampling is deprecated by 2026-07-28, used by handshake-era servers
    async fn create_message(
        &self,
        params: rm::CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<rm::CreateMessageResult, rm::ErrorData> {
        if let Some(app) = self.host.calling_app(SAMPLING) {
            return relay::ask_app(app, SAMPLING, &params).await;
        }
        let request = requests::sampling_request(params)?;
        let result = self.host.sample(request).await;
        requests::sampling_result(result)
    }

    #[allow(deprecated)] // roots are deprecated by 2026-07-28, used by handshake-era servers
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<rm::ListRootsResult, rm::ErrorData> {
        Ok(requests::roots(self.host.roots()))
    }

    async fn create_elicitation(
        &self,
        request: rm::ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<rm::ElicitResult, rm::ErrorData> {
        if let Some(app) = self.host.calling_app(ELICITATION) {
            return relay::ask_app(app, ELICITATION, &request).await;
        }
        let reply = match requests::elicitation_request(request) {
            Some(request) => self.host.elicit(request).await,
            None => ElicitationReply::Decline,
        };
        Ok(requests::elicit_result(reply))
    }

    fn get_info(&self) -> rm::ClientConfig {
        rm::ClientConfig::new(
            requests::capabilities(self.host.capabilities()),
            rm::Implementation::new("switchboard", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(HANDSHAKE_VERSION)
    }
}

/// A live connection to one MCP server.
pub struct McpClient {
    service: RunningService<RoleClient, Bridge>,
    process: Option<ServerProcess>,
    info: ServerInfo,
    request_timeout: Duration,
    roots_advertised: bool,
    /// The `subscriptions/listen` stream of a stateless server whose lists may change.
    _listener: Option<listen::Listener>,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("info", &self.info)
            .field("pid", &self.pid())
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// The server's log messages from now on, in the order it sent them.
    pub(crate) fn subscribe_logs(&self) -> tokio::sync::broadcast::Receiver<ServerLog> {
        self.service.service().logs.subscribe()
    }

    /// Who the server is and the negotiated protocol revision.
    pub fn server_info(&self) -> &ServerInfo {
        &self.info
    }

    /// The server process's pid (also its process group id), for stdio servers.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(ServerProcess::pid)
    }

    /// A future that resolves once the connection has ended: the server exited or hung up,
    /// or we closed it. It does not borrow the client (a supervisor can wait on it while the
    /// client is shared); it checks the connection every [`CLOSED_POLL`].
    pub fn closed(&self) -> impl Future<Output = ()> + Send + 'static {
        let peer = self.service.peer().clone();
        async move {
            while !peer.is_transport_closed() {
                tokio::time::sleep(CLOSED_POLL).await;
            }
        }
    }

    /// The server's stderr buffer, for stdio servers.
    pub fn stderr(&self) -> Option<StderrLog> {
        self.process.as_ref().map(ServerProcess::stderr)
    }

    /// Tells the server that the roots changed (`notifications/roots/list_changed`); it will
    /// ask for them again. Only sent when the roots capability was advertised.
    pub async fn notify_roots_changed(&self) -> Result<(), McpError> {
        if !self.roots_advertised {
            return Ok(());
        }
        let send = self.service.peer().notify_roots_list_changed();
        match tokio::time::timeout(self.request_timeout, send).await {
            Ok(sent) => sent.map_err(convert::service_error),
            Err(_) => Err(McpError::Timeout {
                after: self.request_timeout,
            }),
        }
    }

    /// Calls tool `name` with `args`. `timeout` is reset by each progress notification of the
    /// call. On timeout or when `cancel` fires, the server is sent `notifications/cancelled`
    /// and the call returns [`McpError::Timeout`] / [`McpError::Cancelled`] at once.
    pub async fn call_tool(
        &self,
        name: &str,
        args: Map<String, Value>,
        timeout: Duration,
        cancel: CancellationToken,
    ) -> Result<ToolResult, McpError> {
        self.call_tool_with_progress(name, args, timeout, cancel, None)
            .await
    }

    /// [`McpClient::call_tool`], sending the call's progress notifications to `progress`.
    /// A stateless-era server's `input_required` answers are fulfilled and the call retried
    /// ([`mrtr`]); `timeout` applies to each round trip, not to the user's answering time.
    /// A call the server turns into a task (the 2026-07-28 Tasks extension) is followed here
    /// until it ends ([`McpClient::await_task`]); the agent loop, which follows tasks itself,
    /// uses [`McpClient::call_tool_outcome`].
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        args: Map<String, Value>,
        timeout: Duration,
        cancel: CancellationToken,
        progress: Option<ProgressSink>,
    ) -> Result<ToolResult, McpError> {
        let outcome = self.call_tool_outcome(name, args, timeout, cancel.clone(), progress);
        match outcome.await? {
            CallOutcome::Done(result) => Ok(result),
            CallOutcome::Task(state) => self.await_task(state, &cancel).await,
        }
    }

    /// [`McpClient::call_tool_with_progress`], but a call the server turns into a task
    /// (`resultType: "task"`) answers at once with the task's first state.
    pub async fn call_tool_outcome(
        &self,
        name: &str,
        args: Map<String, Value>,
        timeout: Duration,
        cancel: CancellationToken,
        progress: Option<ProgressSink>,
    ) -> Result<CallOutcome, McpError> {
        if cancel.is_cancelled() {
            return Err(McpError::Cancelled);
        }
        let mut params = rm::CallToolRequestParams::new(name.to_owned());
        params.arguments = Some(args);
        let rounds = self.rounds("tools/call", name, &cancel);
        mrtr::drive(&rounds, |retry| {
            let mut params = params.clone();
            (params.input_responses, params.request_state) = (retry.responses, retry.state);
            self.call_round(params, None, timeout, &cancel, progress.clone())
        })
        .await
    }

    /// One `tools/call` round trip under `timeout` (reset by progress), with `meta` added to
    /// the request's; on timeout or when `cancel` fires, the server is sent
    /// `notifications/cancelled`.
    async fn call_round(
        &self,
        params: rm::CallToolRequestParams,
        meta: Option<rm::RequestMetaObject>,
        timeout: Duration,
        cancel: &CancellationToken,
        progress: Option<ProgressSink>,
    ) -> Result<mrtr::Round<CallOutcome>, McpError> {
        let request = rm::ClientRequest::CallToolRequest(rm::CallToolRequest::new(params));
        let mut options = PeerRequestOptions::with_timeout(timeout).reset_timeout_on_progress();
        options.meta = meta;
        let handle = self
            .service
            .send_request_with_option(request, options)
            .await
            .map_err(convert::service_error)?;
        let (id, peer) = (handle.id.clone(), handle.peer.clone());
        let token = handle.progress_token.0.to_string();
        let _route = progress.map(|sink| self.service.service().progress.register(token, sink));
        tokio::select! {
            answer = handle.await_response() => match answer.map_err(convert::service_error)? {
                rm::ServerResult::CallToolResult(result) => {
                    Ok(mrtr::Round::Done(CallOutcome::Done(convert::tool_result(result))))
                }
                rm::ServerResult::InputRequiredResult(asked) => Ok(mrtr::Round::Input(asked)),
                rm::ServerResult::CreateTaskResult(created) => {
                    Ok(mrtr::Round::Done(CallOutcome::Task(task_requests::created(&created)?)))
                }
                other => Err(unexpected("tools/call", &other)),
            },
            () = cancel.cancelled() => {
                let cancelled = rm::CancelledNotificationParam::new(
                    Some(id),
                    Some("cancelled by the user".to_owned()),
                );
                let notification = rm::CancelledNotification::new(cancelled);
                let send = peer.send_notification(notification.into());
                let _ = tokio::time::timeout(Duration::from_secs(1), send).await;
                Err(McpError::Cancelled)
            }
        }
    }

    /// Every resource template the server lists (all pages).
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplateInfo>, McpError> {
        let templates = self
            .bounded(self.service.list_all_resource_templates())
            .await?;
        Ok(templates
            .into_iter()
            .map(convert::resource_template)
            .collect())
    }

    /// Closes the connection (for stdio: closes the server's stdin), then ends the process
    /// group: a grace period to exit, SIGTERM, SIGKILL, and a sweep of leftover grandchildren.
    pub async fn shutdown(mut self) {
        let _ = self.service.close_with_timeout(EXIT_GRACE).await;
        if let Some(process) = self.process.take() {
            process.shutdown(EXIT_GRACE).await;
        }
    }

    /// Runs one request under the server's default request timeout (rmcp sets none).
    async fn bounded<T>(
        &self,
        request: impl Future<Output = Result<T, rmcp::ServiceError>>,
    ) -> Result<T, McpError> {
        match tokio::time::timeout(self.request_timeout, request).await {
            Ok(answer) => answer.map_err(convert::service_error),
            Err(_) => Err(McpError::Timeout {
                after: self.request_timeout,
            }),
        }
    }
}

/// An answer of the wrong type.
fn unexpected(method: &str, answer: &rm::ServerResult) -> McpError {
    let json = serde_json::to_string(answer).unwrap_or_default();
    let shown: String = json.chars().take(200).collect();
    McpError::Protocol(format!("unexpected answer to {method}: {shown}"))
}
