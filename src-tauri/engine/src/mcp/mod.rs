//! Everything MCP. Three parts:
//! - the protocol client — `client.rs` and `client/` (on rmcp, wrapped so its API churn stays
//!   there; the two protocol eras, tasks, multi round-trip requests), with its transports
//!   (`client/process.rs` for stdio children and the environment they get, `client/sse.rs` for
//!   legacy HTTP+SSE) and OAuth (`client/oauth.rs`, `client/oauth/`, `client/oauth_client.rs`);
//! - the host — [`McpHost`] in `host/` (configured servers, lifecycle, approval, Apps) over the
//!   `supervisor` (running servers, restarts, their requests to the user in `interact`, the
//!   `roots`), with `config` reading `mcpServers` documents, `tools`/`task_calls` running calls
//!   and `app_documents` serving MCP App documents;
//! - the built-in servers — `builtin/` (filesystem, fetch, time), served in process.

pub mod app_documents;
mod backoff;
pub mod builtin;
pub mod bundle;
pub mod client;
pub mod config;
mod config_export;
mod doc;
pub mod host;
pub mod install_link;
pub mod interact;
mod interact_types;
pub mod netguard;
pub mod preview_trust;
pub mod progress;
pub mod registry;
pub mod roots;
pub mod sampling_limits;
pub mod supervisor;
pub mod task_calls;
pub mod tools;

#[cfg(test)]
mod tests;

pub use crate::vocab::mcp::{McpError, ServerNotification};
pub use crate::vocab::server::{
    Approval, JwtAlgorithm, OAuthClient, OAuthGrant, ServerConfig, ServerSource, ServerSpec,
    Transport,
};
pub use client::oauth::{Authorizer, Headless, Notify, OAuth, OAuthError};
pub use client::{HostCapabilities, HostHandler, IgnoreNotifications, MRTR_MAX_ROUNDS, McpClient};
pub use config::ConfigError;
pub use host::approval::{Decision, Policies};
pub use host::{
    AppCall, AppCallOutcome, Conflict, INTERACTION_TIMEOUT_SETTING, ImportAction, ImportPreview,
    ImportReport, Installed, McpHost, PreviewEntry, ServerStatus, result_json as apps_result_json,
};
pub use interact::{InteractionAnswer, InteractionError, InteractionEvent, Interactions, Sampler};
pub use roots::{RootInfo, Roots};
pub use supervisor::{Backoff, ServerLogs, ServerState, Supervisor, SupervisorEvent};
pub use tools::{Limits, ToolError, Violation};
