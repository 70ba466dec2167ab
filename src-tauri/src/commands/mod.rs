//! IPC adapters: each command deserializes its arguments, calls one engine method and maps the
//! error. No locks, timeouts or process management here.

pub mod app;
pub mod apps;
pub mod artifacts;
pub mod assistants;
pub mod attachments;
pub mod backups;
pub mod chat;
pub mod compare;
pub mod conversations;
pub mod desktop;
pub mod export;
pub mod install;
pub mod interactions;
pub mod knowledge;
pub mod local_server;
pub mod mcp_content;
#[cfg(feature = "local")]
pub mod models;
pub mod projects;
pub mod providers;
pub mod runtimes;
pub mod servers;
pub mod servers_run;
pub mod sync;

/// What every command returns.
pub type CmdResult<T> = Result<T, crate::error::IpcError>;
