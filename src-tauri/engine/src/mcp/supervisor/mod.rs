//! [`Supervisor`]: the running MCP servers of one engine. It starts servers concurrently (each
//! within its start-up timeout), keeps each one's state, tool list, stderr and MCP log
//! messages, re-lists tools on `tools/list_changed`, restarts a server that dies with bounded
//! exponential backoff, and stops them (one, or all at once in parallel at exit).
//!
//! Each started server is one task ([`supervise`], its connection in [`connection`]) that owns its connection; the shared map
//! only holds what readers need (state, a handle to the client, caches), behind a std mutex
//! never held across an `.await`. State changes are published in order per server on a
//! broadcast channel.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::{Serialize, Serializer};
use tokio::sync::{broadcast, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;

pub(crate) mod calling_apps;
mod connection;
#[cfg(test)]
pub(crate) mod fake_sampler;
mod handler;
pub(crate) mod interact;
pub(crate) mod relay;
mod runs;
pub(crate) mod sampling_limits;
mod task_calls;
pub(crate) mod tools;
mod validators;

use crate::logging::Redactor;
use crate::mcp::client::McpClient;
use crate::mcp::client::backoff::Backoff;
use crate::mcp::client::oauth::{Notify, OAuth};
use crate::mcp::client::process::StderrLog;
use crate::mcp::client::roots::Roots;
use crate::mcp::supervisor::interact::Interactions;
use crate::mcp::supervisor::tools::Limits;
use crate::secrets::SecretStore;
use crate::vocab::error::ToolError;
use crate::vocab::mcp::{ServerInfo, ToolInfo};
use crate::vocab::server::ServerConfig;
use connection::{End, connect, list_tools, serve};
use runs::Begun;

/// How many events the broadcast channel buffers for a slow subscriber.
const EVENT_CAPACITY: usize = 256;
/// A server that stayed up this long starts a new streak of failures when it dies.
const STABLE_AFTER: Duration = Duration::from_secs(30);
/// How long a stop waits for in-flight calls to let go of the client before killing it.
const RELEASE_WAIT: Duration = Duration::from_secs(2);
pub(crate) use crate::mcp::client::METHOD_NOT_FOUND;

/// The state of one supervised server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerState {
    /// Spawning or connecting, handshake and first tool listing.
    Starting,
    /// Connected; `tools` tools listed.
    Ready {
        /// Who the server is.
        info: ServerInfo,
        /// How many tools it offers.
        tools: usize,
    },
    /// It could not start, or kept dying and was given up on.
    Failed {
        /// Why, as a sentence for the user.
        reason: String,
    },
    /// Not running (never started, or stopped).
    #[default]
    Stopped,
    /// It died unexpectedly; restart `attempt` begins after `in`.
    Restarting {
        /// The restart attempt of this streak (1-based).
        attempt: u32,
        /// The delay before it (serialized as `in_ms`).
        #[serde(rename = "in_ms", serialize_with = "millis")]
        #[ts(type = "number")]
        r#in: Duration,
    },
}

fn millis<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Something that happened to a supervised server.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SupervisorEvent {
    /// Its state changed.
    State {
        /// The server's name.
        server: String,
        /// The new state.
        state: ServerState,
    },
    /// Its tool list changed and was listed again.
    ToolsChanged {
        /// The server's name.
        server: String,
    },
    /// The server demands OAuth authorization: the shell opens `url` in the system browser
    /// (the CLI prints it). The connection attempt waits for the browser to come back.
    AuthorizationNeeded {
        /// The server's name.
        server: String,
        /// The authorization server's authorize URL.
        url: String,
    },
}

/// A server's logs: its stderr lines and the MCP log messages it sent, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, TS)]
pub struct ServerLogs {
    /// Its stderr (stdio servers), its last lines (as many as `STDERR_LINES` in `mcp/client/process.rs`).
    pub stderr: Vec<String>,
    /// Its `notifications/message` log messages, one line each.
    pub messages: Vec<String>,
}

/// The running MCP servers of one engine. Cheap to clone; clones share the servers.
#[derive(Clone)]
pub struct Supervisor {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Supervisor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Supervisor")
            .field("states", &self.states())
            .finish_non_exhaustive()
    }
}

struct Inner {
    slots: Mutex<HashMap<String, Slot>>,
    events: broadcast::Sender<SupervisorEvent>,
    backoff: Backoff,
    limits: Limits,
    interactions: Interactions,
    roots: Roots,
    /// The knowledge bases, for built-in knowledge servers (set once by the engine).
    knowledge: crate::mcp::builtin::KnowledgeSlot,
    /// OAuth for remote servers that demand it (`None`: such servers fail to connect).
    oauth: Option<OAuth>,
    /// The tools' compiled input schemas.
    validators: validators::Validators,
    /// The apps whose calls are under way, by server (`mcp::serve`).
    calling_apps: calling_apps::CallingApps,
    /// Each server's prompt and resource changes (for `mcp::serve`).
    content_changes: broadcast::Sender<(String, relay::ContentChange)>,
}

/// What is known of one server.
#[derive(Default)]
pub(super) struct Slot {
    pub(super) config: Option<ServerConfig>,
    pub(super) state: ServerState,
    pub(super) client: Option<Arc<McpClient>>,
    pub(super) tools: Arc<Vec<ToolInfo>>,
    /// When `tools` must be listed again before a turn uses them (the list's cache hint);
    /// `None`: until the server says they changed.
    pub(super) tools_until: Option<Instant>,
    stderr: StderrLog,
    messages: StderrLog,
    run: Option<Run>,
}

/// The task supervising one server, and how to stop it.
struct Run {
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl Default for Supervisor {
    fn default() -> Self {
        Self::new(Backoff::default(), Limits::default())
    }
}

impl Supervisor {
    /// A supervisor with no servers.
    pub fn new(backoff: Backoff, limits: Limits) -> Self {
        Self::build(backoff, limits, None)
    }

    /// A supervisor whose remote servers may demand OAuth: tokens are kept in `secrets` (and
    /// scrubbed from the logs by `redactor`), and each authorize URL is published as
    /// [`SupervisorEvent::AuthorizationNeeded`].
    pub fn with_oauth(
        backoff: Backoff,
        limits: Limits,
        secrets: Arc<dyn SecretStore>,
        redactor: Redactor,
    ) -> Self {
        Self::build(backoff, limits, Some((secrets, redactor)))
    }

    /// A supervisor; with `keys`, remote servers may authorize with OAuth.
    fn build(
        backoff: Backoff,
        limits: Limits,
        keys: Option<(Arc<dyn SecretStore>, Redactor)>,
    ) -> Self {
        let (events, _) = broadcast::channel(EVENT_CAPACITY);
        let oauth = keys.map(|(secrets, redactor)| {
            let events = events.clone();
            let publish = Notify::new(move |server: &str, url: &str| {
                let (server, url) = (server.to_owned(), url.to_owned());
                events
                    .send(SupervisorEvent::AuthorizationNeeded { server, url })
                    .is_ok()
            });
            OAuth::new(secrets, Arc::new(publish)).with_redactor(redactor)
        });
        let inner = Inner {
            slots: Mutex::new(HashMap::new()),
            events,
            backoff,
            limits,
            interactions: Interactions::default(),
            roots: Roots::default(),
            knowledge: Default::default(),
            oauth,
            validators: Default::default(),
            calling_apps: Default::default(),
            content_changes: broadcast::channel(EVENT_CAPACITY).0,
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Receives every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<SupervisorEvent> {
        self.inner.events.subscribe()
    }

    /// The servers' requests waiting for the user (sampling, elicitation).
    pub fn interactions(&self) -> &Interactions {
        &self.inner.interactions
    }

    /// The apps whose calls are under way through the endpoint, by server.
    pub fn calling_apps(&self) -> &calling_apps::CallingApps {
        &self.inner.calling_apps
    }

    /// Sets the knowledge bases built-in knowledge servers search (once; later calls are
    /// ignored).
    pub fn set_knowledge(&self, bases: Arc<dyn crate::vocab::knowledge::KnowledgeSearch>) {
        let _ = self.inner.knowledge.set(bases);
    }

    /// The folders advertised to servers as roots.
    pub fn roots(&self) -> &Roots {
        &self.inner.roots
    }

    /// Replaces the roots and tells every running server that they changed; a built-in
    /// filesystem server that works in the roots is restarted on the new ones.
    pub async fn set_roots(&self, folders: Vec<std::path::PathBuf>) {
        self.inner.roots.set(folders);
        let follow: Vec<String> = (self.inner.lock().iter())
            .filter(|(_, s)| {
                s.client.is_some()
                    && s.config
                        .as_ref()
                        .is_some_and(|c| c.transport.follows_roots())
            })
            .map(|(name, _)| name.clone())
            .collect();
        for name in follow {
            self.restart(&name).await;
        }
        let clients: Vec<(String, Arc<McpClient>)> = (self.inner.lock().iter())
            .filter_map(|(name, s)| Some((name.clone(), Arc::clone(s.client.as_ref()?))))
            .collect();
        let notices = clients.iter().map(|(name, client)| async move {
            if let Err(error) = client.notify_roots_changed().await {
                tracing::warn!(server = %name, %error, "cannot send roots/list_changed");
            }
        });
        futures::future::join_all(notices).await;
    }

    /// Lists the tools of running server `name` again and caches them; `false` if it is not
    /// running or the listing failed. A list whose contents changed is published as
    /// [`SupervisorEvent::ToolsChanged`], as a `list_changed` notification would be.
    pub(super) async fn refresh_tools(&self, name: &str) -> bool {
        let Some(client) = self.client(name) else {
            return false;
        };
        let listed = list_tools(&client).await;
        drop(client);
        let Ok((tools, until)) = listed else {
            return false;
        };
        let before = self.with_slot(name, |slot| Arc::clone(&slot.tools));
        let changed = before.is_some_and(|before| *before != tools);
        self.inner.store_tools(name, tools, until);
        if changed {
            let server = name.to_owned();
            let _ = self
                .inner
                .events
                .send(SupervisorEvent::ToolsChanged { server });
        }
        true
    }

    /// The client of running server `name`, for listings and reads.
    pub(super) fn client(&self, name: &str) -> Option<Arc<McpClient>> {
        self.inner.lock().get(name)?.client.clone()
    }

    /// The client of server `name` if it is ready; otherwise why not (unknown, or its state).
    pub(super) fn ready_client(&self, name: &str) -> Result<Arc<McpClient>, ToolError> {
        let server = name.to_owned();
        match (self.client(name), self.state(name)) {
            (Some(client), _) => Ok(client),
            (None, None) => Err(ToolError::UnknownServer { server }),
            (None, Some(state)) => Err(ToolError::NotReady {
                server,
                state: format!("{state:?}"),
            }),
        }
    }

    /// The state of server `name` (`None` if it was never started).
    pub fn state(&self, name: &str) -> Option<ServerState> {
        self.inner.lock().get(name).map(|s| s.state.clone())
    }

    /// Every known server and its state, by name.
    pub fn states(&self) -> Vec<(String, ServerState)> {
        let mut states: Vec<_> = (self.inner.lock().iter())
            .map(|(name, slot)| (name.clone(), slot.state.clone()))
            .collect();
        states.sort_by(|a, b| a.0.cmp(&b.0));
        states
    }

    /// The pid (and process group) of a running stdio server.
    pub fn pid(&self, name: &str) -> Option<u32> {
        self.inner.lock().get(name)?.client.as_ref()?.pid()
    }

    /// The server's stderr lines and MCP log messages (kept after it stops).
    pub fn logs(&self, name: &str) -> Option<ServerLogs> {
        let slots = self.inner.lock();
        let slot = slots.get(name)?;
        Some(ServerLogs {
            stderr: slot.stderr.lines(),
            messages: slot.messages.lines(),
        })
    }

    /// Starts every enabled, auto-start server concurrently; returns once each is Ready or
    /// Failed, with its state.
    pub async fn start_all(&self, configs: &[ServerConfig]) -> Vec<(String, ServerState)> {
        let starts = configs
            .iter()
            .filter(|c| c.enabled && c.auto_start)
            .map(|c| async move { (c.name.clone(), self.start(c.clone()).await) });
        futures::future::join_all(starts).await
    }

    /// Starts one server (unless it is already running) and returns once it is Ready or
    /// Failed (or stopped meanwhile), with that state. A server already starting is waited
    /// for; one running otherwise answers its state at once.
    pub async fn start(&self, config: ServerConfig) -> ServerState {
        self.launch(config).await
    }

    /// Begins starting one server now (see [`Self::start`]) and returns what waits for the
    /// outcome: by the time this returns, the server's state reads Starting (published), so
    /// the start itself may be left to run in the background by dropping the future.
    pub fn launch(
        &self,
        config: ServerConfig,
    ) -> impl std::future::Future<Output = ServerState> + Send + 'static {
        let name = config.name.clone();
        let events = self.subscribe();
        let begun = self.begin(config);
        let this = self.clone();
        async move {
            match begun {
                Begun::New(first) => first.await.unwrap_or(ServerState::Stopped),
                Begun::Running(ServerState::Starting) => this.settled(&name, events).await,
                Begun::Running(state) => state,
            }
        }
    }

    /// Stops server `name` and waits until its process is gone. `false` if it was not running.
    pub async fn stop(&self, name: &str) -> bool {
        let run = self.inner.lock().get_mut(name).and_then(|s| s.run.take());
        let Some(run) = run else { return false };
        run.stop.cancel();
        let _ = run.task.await;
        true
    }

    /// Stops server `name` (if running) and starts it again with its last configuration.
    /// `None` if it was never started.
    pub async fn restart(&self, name: &str) -> Option<ServerState> {
        let config = self.inner.lock().get(name)?.config.clone()?;
        self.stop(name).await;
        Some(self.start(config).await)
    }

    /// Stops every server in parallel (each: close stdin, grace, then the process group is
    /// killed) and waits until all are gone.
    pub async fn shutdown_all(&self) {
        let runs: Vec<Run> = (self.inner.lock().values_mut())
            .filter_map(|s| s.run.take())
            .collect();
        for run in &runs {
            run.stop.cancel();
        }
        futures::future::join_all(runs.into_iter().map(|r| r.task)).await;
    }

    /// The truncation limits of tool results.
    pub(super) fn limits(&self) -> Limits {
        self.inner.limits
    }

    /// Runs `f` on server `name`'s slot, if known.
    pub(super) fn with_slot<R>(&self, name: &str, f: impl FnOnce(&Slot) -> R) -> Option<R> {
        self.inner.lock().get(name).map(f)
    }
}

impl Inner {
    /// Caches `name`'s freshly listed tools (and the tool count of its Ready state) until
    /// `until`.
    fn store_tools(&self, name: &str, tools: Vec<ToolInfo>, until: Option<Instant>) {
        if let Some(slot) = self.lock().get_mut(name) {
            if let ServerState::Ready { tools: count, .. } = &mut slot.state {
                *count = tools.len();
            }
            slot.tools = Arc::new(tools);
            slot.tools_until = until;
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Slot>> {
        match self.slots.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Sets the state of `name` and publishes it.
    fn publish(&self, name: &str, state: ServerState) {
        self.lock().entry(name.to_owned()).or_default().state = state.clone();
        let server = name.to_owned();
        let _ = self.events.send(SupervisorEvent::State { server, state });
    }

    /// Removes the client of `name` from the slot (so no new call can take it).
    fn take_client(&self, name: &str) -> Option<Arc<McpClient>> {
        self.lock().get_mut(name).and_then(|s| s.client.take())
    }
}

/// The life of one server: start; on an unexpected death, restart with backoff until stopped
/// or given up on. `first` receives the outcome of the first start.
async fn supervise(
    inner: Arc<Inner>,
    config: ServerConfig,
    stop: CancellationToken,
    first: oneshot::Sender<ServerState>,
) {
    let name = config.name.as_str();
    let mut first = Some(first);
    let mut failures = 0u32;
    loop {
        // The first start's Starting was published when it began (`Supervisor::begin`).
        if first.is_none() {
            inner.publish(name, ServerState::Starting);
        }
        let connected = tokio::select! {
            biased;
            () = stop.cancelled() => return settle(&inner, name, ServerState::Stopped, &mut first),
            connected = connect(&inner, &config) => connected,
        };
        match connected {
            Err(reason) if first.is_some() || failures + 1 >= inner.backoff.max_failures => {
                let failed = if first.is_some() { 0 } else { failures + 1 };
                return settle(&inner, name, gave_up(reason, failed), &mut first);
            }
            Err(_) => failures += 1,
            Ok(conn) => {
                let ready = ServerState::Ready {
                    info: conn.client.server_info().clone(),
                    tools: conn.tools.len(),
                };
                settle(&inner, name, ready, &mut first);
                let since = Instant::now();
                if let End::Stopped = serve(&inner, name, conn, &stop).await {
                    return inner.publish(name, ServerState::Stopped);
                }
                failures = if since.elapsed() >= STABLE_AFTER {
                    1
                } else {
                    failures + 1
                };
                if failures >= inner.backoff.max_failures {
                    let reason = "it exited unexpectedly".to_owned();
                    return inner.publish(name, gave_up(reason, failures));
                }
            }
        }
        if !wait_to_restart(&inner, name, failures, &stop).await {
            return inner.publish(name, ServerState::Stopped);
        }
    }
}

/// Publishes `state`, and sends it as the first outcome if none was sent yet.
fn settle(
    inner: &Inner,
    name: &str,
    state: ServerState,
    first: &mut Option<oneshot::Sender<ServerState>>,
) {
    inner.publish(name, state.clone());
    if let Some(first) = first.take() {
        let _ = first.send(state);
    }
}

/// The Failed state after `failures` consecutive failures (0: the first start failed).
fn gave_up(reason: String, failures: u32) -> ServerState {
    if failures == 0 {
        return ServerState::Failed { reason };
    }
    let reason = format!("gave up after {failures} consecutive failures; last: {reason}");
    ServerState::Failed { reason }
}

/// Publishes Restarting and sleeps the backoff delay; `false` if stopped meanwhile.
async fn wait_to_restart(
    inner: &Inner,
    name: &str,
    attempt: u32,
    stop: &CancellationToken,
) -> bool {
    let delay = inner.backoff.jittered(attempt);
    tracing::warn!(
        server = name,
        attempt,
        ?delay,
        "MCP server died; restarting"
    );
    inner.publish(
        name,
        ServerState::Restarting {
            attempt,
            r#in: delay,
        },
    );
    tokio::select! {
        () = stop.cancelled() => false,
        () = tokio::time::sleep(delay) => true,
    }
}
