//! Everything MCP, in four rooms beside the built-in servers. Each room may import only the
//! rooms before it (checked by `tests/suite/dependencies.rs`):
//!
//! ```text
//! builtin ← client ← supervisor ← host ← install ← serve
//! ```
//!
//! - `builtin/`: the built-in servers (filesystem, fetch, time), rmcp servers run in process;
//!   the client connects them like any other transport.
//! - `client/`: the protocol client on rmcp (both protocol eras, listings, multi round-trip
//!   requests, the tasks' wire shapes, MCP Apps' resources and CSP), its transports (stdio
//!   children, streamable HTTP, legacy SSE, in-process built-ins) and OAuth.
//! - `supervisor/`: running servers — connections, lifecycle, restarts with backoff, tool
//!   calls and the tasks they become, the servers' requests to the user.
//! - `host/`: [`McpHost`], the service the rest of the engine uses — configured servers,
//!   calls and their approval, MCP Apps, trust, secrets, what a model is offered.
//! - `install/`: [`Installer`], installing servers — the MCP Registry, MCP Bundles, install
//!   links, updates.
//! - `serve/`: Switchboard as an MCP server for other apps ([`Gateway`]): the running
//!   servers' tools behind one endpoint, under the same approval policy.
//!
//! The rooms are private: what the rest of the engine, the shell and the tests use is the one
//! list below. The shared types MCP speaks in (`ServerConfig`, `Transport`, `ToolInfo`,
//! `ToolError`, …) live in `vocab` and are imported from there.

mod builtin;
mod client;
mod host;
mod install;
mod serve;
mod supervisor;

#[cfg(test)]
mod tests;

pub use builtin::{BuiltinServer, SEARCH_MAX_ENTRIES};
pub use client::app_documents::{
    AppCsp, AppView, AppViews, UI_EXTENSION, csp_header, valid_source, valid_source_allowing,
    visible_to_model,
};
pub use client::interact_types::{
    ElicitationReply, ElicitationRequest, SamplingContent, SamplingMessage, SamplingRefused,
    SamplingRequest, SamplingResult, SamplingRole, StopReason,
};
pub use client::oauth::{Authorizer, Headless, Loopback, Notify, OAuth, OAuthError};
pub use client::oauth_client::secret_account;
pub use client::process::{login_path, servers_path, set_runtimes_dir, set_servers_env};
pub use client::progress::Progress;
pub use client::roots::{RootInfo, Roots};
pub use client::tasks::TaskState;
pub use client::{HostCapabilities, HostHandler, IgnoreNotifications, MRTR_MAX_ROUNDS, McpClient};
pub use host::approval::{Decision, Policies};
pub use host::config::{export as export_config, parse as parse_config};
pub use host::preview_trust::TrustNote;
pub use host::server_secrets::account as server_values_account;
pub use host::{
    AppCall, AppCallOutcome, Apps, CallFailed, CallRequest, Called, Caller, Conflict,
    INTERACTION_TIMEOUT_SETTING, ImportAction, ImportPreview, ImportReport, McpHost, PreviewEntry,
    RunningServer, ServerStatus, ServerTools, TaskCalls, result_json as apps_result_json,
};
pub use install::bundle::{BundleInstall, BundlePreview, NamedItem, UserConfigField};
pub use install::link::{LinkPreview, SCHEME as INSTALL_LINK_SCHEME};
pub use install::registry::{
    Argument, FormField, Input, InstallOption, InstallPlan, InstallRequest, KeyValueInput, Package,
    PackageTransport, RegistryEntry, RegistryPage, RemoteTransport, Repository, RuntimeCheck,
    UpdatePlan, install_options,
};
pub use install::{Installed, Installer};
pub use serve::{
    APPROVAL_WAIT as CLIENT_APPROVAL_WAIT, DEFAULT_PORT as SERVE_DEFAULT_PORT, Endpoint, Gateway,
    LocalServer, LocalServerStatus, MAX_BODY as SERVE_MAX_BODY,
    REQUESTS_PER_MINUTE as SERVE_REQUESTS_PER_MINUTE, ServeError, serve_http, serve_stdio,
};
pub(crate) use serve::{Authorized, record_serve_call, refused_text, unanswered_text};
pub use supervisor::interact::{
    ClientCall, CloseReason, DEFAULT_TIMEOUT as INTERACTION_TIMEOUT, InteractionAnswer,
    InteractionEvent, Interactions, Sampler,
};
pub use supervisor::sampling_limits::{DEFAULT_MAX_TOKENS, DEFAULT_PER_MINUTE};
pub use supervisor::tools::Limits;
pub use supervisor::{ServerLogs, ServerState, Supervisor, SupervisorEvent};
