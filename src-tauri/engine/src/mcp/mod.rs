//! Everything MCP, in four rooms beside the built-in servers. Each room may import only the
//! rooms before it (checked by `tests/suite/dependencies.rs`):
//!
//! ```text
//! builtin ← client ← supervisor ← host ← install
//! ```
//!
//! - [`builtin`]: the built-in servers (filesystem, fetch, time), rmcp servers run in process;
//!   the client connects them like any other transport.
//! - [`client`]: the protocol client on rmcp (both protocol eras, listings, multi round-trip
//!   requests, the tasks' wire shapes, MCP Apps' resources), its transports (stdio children,
//!   streamable HTTP, legacy SSE, in-process built-ins) and OAuth.
//! - [`supervisor`]: running servers — processes and connections, lifecycle, restarts with
//!   backoff, tool calls and the tasks they become, the servers' requests to the user.
//! - [`host`]: [`McpHost`], the service the rest of the engine uses — configured servers,
//!   calls and their approval, MCP Apps, trust, secrets.
//! - [`install`]: [`Installer`], installing servers — the MCP Registry, MCP Bundles, install
//!   links, updates.

pub mod builtin;
pub mod client;
pub mod host;
pub mod install;
pub mod supervisor;

#[cfg(test)]
mod tests;

pub use crate::vocab::mcp::{McpError, ServerNotification};
pub use crate::vocab::server::{
    Approval, JwtAlgorithm, OAuthClient, OAuthGrant, ServerConfig, ServerSource, ServerSpec,
    Transport,
};
pub use client::oauth::{Authorizer, Headless, Notify, OAuth, OAuthError};
pub use client::roots::{RootInfo, Roots};
pub use client::{HostCapabilities, HostHandler, IgnoreNotifications, MRTR_MAX_ROUNDS, McpClient};
pub use host::approval::{Decision, Policies};
pub use host::config::ConfigError;
pub use host::{
    AppCall, AppCallOutcome, Conflict, INTERACTION_TIMEOUT_SETTING, ImportAction, ImportPreview,
    ImportReport, McpHost, PreviewEntry, ServerStatus, result_json as apps_result_json,
};
pub use install::Installed;
pub use supervisor::interact::{
    InteractionAnswer, InteractionError, InteractionEvent, Interactions, Sampler,
};
pub use supervisor::tools::{Limits, ToolError, Violation};
pub use supervisor::{Backoff, ServerLogs, ServerState, Supervisor, SupervisorEvent};
