//! The MCP host: server configuration, supervision of running servers, the client side of
//! the protocol (on rmcp, wrapped here so its API churn stays in this module), tool
//! execution for the agent loop, approval policy and built-in servers.

pub mod builtin;
pub mod client;
pub mod config;
mod doc;
mod host;
pub mod oauth;
pub mod policy;
pub mod process;
pub mod servers;
pub mod spec;
pub mod sse;
pub mod supervisor;
pub mod tools;
pub mod types;

#[cfg(test)]
mod tests;

pub use client::{HostHandler, IgnoreNotifications, McpClient};
pub use config::{Approval, ConfigError, ServerConfig};
pub use oauth::{Authorizer, Headless, Notify, OAuth, OAuthError, PreRegistered};
pub use policy::{Decision, Policies};
pub use servers::{Conflict, ImportAction, ImportPreview, ImportReport, PreviewEntry};
pub use spec::{ServerSpec, Transport};
pub use supervisor::{Backoff, ServerLogs, ServerState, Supervisor, SupervisorEvent};
pub use tools::{Limits, ToolError, Violation};
pub use types::{McpError, ServerNotification};
