//! The MCP host: server configuration, supervision of running servers, the client side of
//! the protocol (on rmcp, wrapped here so its API churn stays in this module), tool
//! execution for the agent loop, approval policy and built-in servers.

pub mod apps;
mod apps_ops;
mod backoff;
pub mod builtin;
pub mod child_env;
pub mod client;
mod client_secret;
pub mod config;
mod config_export;
mod doc;
mod host;
mod host_ops;
pub mod interact;
mod interact_types;
pub mod netguard;
pub mod oauth;
pub mod oauth_client;
pub mod policy;
pub mod preview_trust;
pub mod process;
pub mod progress;
pub mod roots;
pub mod sampling;
pub mod sampling_limits;
mod server_host;
pub mod servers;
pub mod spec;
pub mod sse;
pub mod supervisor;
pub mod tasks;
pub mod tools;
pub mod trust;
pub mod types;

#[cfg(test)]
mod tests;

pub use apps_ops::{AppCall, AppCallOutcome, result_json as apps_result_json};
pub use client::{HostCapabilities, HostHandler, IgnoreNotifications, MRTR_MAX_ROUNDS, McpClient};
pub use config::{Approval, ConfigError, ServerConfig};
pub use host_ops::{INTERACTION_TIMEOUT_SETTING, ServerStatus};
pub use interact::{InteractionAnswer, InteractionError, InteractionEvent, Interactions, Sampler};
pub use oauth::{Authorizer, Headless, Notify, OAuth, OAuthError};
pub use oauth_client::{JwtAlgorithm, OAuthClient, OAuthGrant};
pub use policy::{Decision, Policies};
pub use roots::{RootInfo, Roots};
pub use sampling::SamplingModel;
pub use servers::{Conflict, ImportAction, ImportPreview, ImportReport, PreviewEntry};
pub use spec::{ServerSpec, Transport};
pub use supervisor::{Backoff, ServerLogs, ServerState, Supervisor, SupervisorEvent};
pub use tools::{Limits, ToolError, Violation};
pub use types::{McpError, ServerNotification};
