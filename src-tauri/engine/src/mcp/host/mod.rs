//! The MCP host service, [`McpHost`]: what the app does with MCP servers, over the protocol
//! client and the supervisor. It owns the supervisor (running servers, their pending requests
//! to the user and the roots), the tool policies, the App documents served to frames, and the
//! configured servers in the store. It never names `Engine`; the engine builds one and hands
//! it to the agent and the shell.
//!
//! - [`servers`]: the configured servers (add, import with a preview, export, enable, remove).
//! - [`lifecycle`]: starting and stopping servers, their tools, a direct tool call.
//! - [`running`]: a running server's states, logs, resources and prompts; answers to its
//!   requests (elicitation, sampling) and the roots it may see.
//! - [`calls`]: the one tool-call pipeline every caller uses (resolve → approval → run).
//! - [`approval`]: where every tool call's approval is decided and remembered (the model's
//!   and MCP Apps' own).
//! - [`apps`]: MCP Apps — the App a call renders and an App's own tool calls.
//! - [`client_secret`]: a remote server's OAuth client secret in the keychain.
//! - [`server_secrets`]: a server's env and header values in the keychain, masked for the UI.
//! - [`config`]: reading and writing `mcpServers` documents; [`preview_trust`]: what an
//!   import preview warns about.
//! - [`tools`]: what the agent and the shell read of running servers — the tools a model is
//!   offered, events, pending requests, tasks being followed.
//! - [`turn_start`]: a turn's servers started together, the turn going on after a short wait.
//! - [`follow`]: the window's servers follow their configuration (a server saved or switched
//!   on starts at once, one switched off stops).

pub(crate) mod approval;
mod apps;
pub(crate) mod calls;
mod client_secret;
pub(crate) mod config;
mod follow;
mod lifecycle;
pub(crate) mod preview_trust;
mod running;
pub(crate) mod secret_args;
pub(crate) mod server_secrets;
mod servers;
mod tools;
pub(crate) mod trust;
pub(crate) mod turn_start;

use std::sync::{Arc, OnceLock};

pub use apps::{AppCall, AppCallOutcome, Apps, result_json};
pub use calls::{CallFailed, CallRequest, Called, Caller};
pub use running::{INTERACTION_TIMEOUT_SETTING, RunningServer, ServerStatus};
pub use servers::{Conflict, ImportAction, ImportPreview, ImportReport, PreviewEntry};
pub use tools::{ServerTools, TaskCalls};

use crate::logging::Redactor;
use crate::mcp::client::app_documents::AppViews;
use crate::mcp::client::backoff::Backoff;
use crate::mcp::client::interact_types::{SamplingRequest, SamplingResult};
use crate::mcp::supervisor::Supervisor;
use crate::mcp::supervisor::interact::Sampler;
use crate::mcp::supervisor::tools::Limits;
use crate::secrets::Secrets;
use crate::store::Store;
use approval::Policies;

/// The MCP host of one profile (cheap to clone: every part is shared).
#[derive(Clone)]
pub struct McpHost {
    store: Store,
    secrets: Secrets,
    redactor: Redactor,
    supervisor: Supervisor,
    policies: Policies,
    app_views: AppViews,
    /// Who answers the servers' sampling requests (the agent, set by the engine).
    sampler: Arc<OnceLock<Arc<dyn Sampler>>>,
    /// Where MCP Bundles are unpacked (none: bundles cannot be installed).
    bundles_dir: Option<std::path::PathBuf>,
    /// Held while a server is stopped or begins to start, so that one server's stop and its
    /// next start never overlap (two runs of one name would share its slot). Holds whether
    /// the user paused every server (see `toggle_pause`).
    lifecycle: Arc<tokio::sync::Mutex<bool>>,
}

impl std::fmt::Debug for McpHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHost")
            .field("supervisor", &self.supervisor)
            .finish_non_exhaustive()
    }
}

impl McpHost {
    /// A host with no server running, its OAuth tokens and client secrets in `secrets`, the
    /// values it handles registered with `redactor`.
    pub fn new(store: Store, secrets: Secrets, redactor: Redactor) -> Self {
        let (backoff, limits) = (Backoff::default(), Limits::default());
        let supervisor = Supervisor::with_oauth(backoff, limits, secrets.store(), redactor.clone());
        Self {
            store,
            secrets,
            redactor,
            supervisor,
            policies: Policies::default(),
            app_views: AppViews::default(),
            sampler: Arc::default(),
            bundles_dir: None,
            lifecycle: Arc::default(),
        }
    }

    /// The same host, unpacking MCP Bundles into `dir` (the profile's `bundles/` folder).
    pub fn with_bundles_dir(mut self, dir: std::path::PathBuf) -> Self {
        self.bundles_dir = Some(dir);
        self
    }

    /// Sets who answers sampling requests (once; later calls are ignored).
    pub fn set_sampler(&self, sampler: Arc<dyn Sampler>) {
        let _ = self.sampler.set(sampler);
    }

    /// Sets the knowledge bases that built-in knowledge servers search (once).
    pub fn set_knowledge(&self, bases: Arc<dyn crate::vocab::knowledge::KnowledgeSearch>) {
        self.supervisor.set_knowledge(bases);
    }

    /// The running MCP servers (none until started).
    pub(crate) fn supervisor(&self) -> &Supervisor {
        &self.supervisor
    }

    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    pub(crate) fn secrets(&self) -> &Secrets {
        &self.secrets
    }
}

/// Refuses every sampling request (no model wired in, e.g. a host built alone in a test).
struct NoSampler;

impl Sampler for NoSampler {
    fn sample(
        &self,
        _request: SamplingRequest,
    ) -> futures::future::BoxFuture<'static, Result<SamplingResult, String>> {
        Box::pin(async { Err("no model answers sampling requests here".to_owned()) })
    }
}
