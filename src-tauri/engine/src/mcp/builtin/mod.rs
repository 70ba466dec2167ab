//! Built-in MCP servers that need no Node or Python: `time`, `fetch` and `filesystem`, written
//! on rmcp's server side and run in-process. Each connection gets its own server task on one
//! end of a `tokio::io::duplex` pipe; [`connect`] returns an ordinary [`McpClient`] on the
//! other end, so the host treats built-ins like any other server.

mod beneath;
mod fetch;
mod filesystem;
mod time;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

use rmcp::ServiceExt;

pub use fetch::FetchServer;
pub use filesystem::{FilesystemServer, SEARCH_MAX_ENTRIES};
pub use time::TimeServer;

use super::client::{HostHandler, McpClient};
use crate::vocab::mcp::McpError;
use crate::vocab::server::{ServerSpec, Transport};

/// The size of the in-memory pipe between the client and a built-in server.
pub(super) const PIPE_BYTES: usize = 64 * 1024;

/// One built-in server and its settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuiltinServer {
    /// The current time and time-zone conversion.
    Time,
    /// Fetches a URL as Markdown.
    Fetch {
        /// Allow private, loopback and link-local addresses (off by default: a model must not
        /// reach the user's LAN or local services).
        allow_private: bool,
    },
    /// Reads and writes files inside user-chosen folders.
    Filesystem {
        /// The folders the tools may touch.
        roots: Vec<PathBuf>,
    },
}

impl BuiltinServer {
    /// The names of the built-in servers.
    pub const NAMES: [&'static str; 3] = ["time", "fetch", "filesystem"];

    /// The built-in server a [`Transport::Builtin`] names; a filesystem server with no
    /// folders of its own gets `roots`.
    pub fn from_transport(
        server: &str,
        allow_private: bool,
        folders: &[PathBuf],
        roots: impl FnOnce() -> Vec<PathBuf>,
    ) -> Result<Self, McpError> {
        match server {
            "time" => Ok(Self::Time),
            "fetch" => Ok(Self::Fetch { allow_private }),
            "filesystem" if folders.is_empty() => Ok(Self::Filesystem { roots: roots() }),
            "filesystem" => Ok(Self::Filesystem {
                roots: folders.to_vec(),
            }),
            other => Err(McpError::Connect(format!(
                "{other:?} is not a built-in server (time, fetch, filesystem)"
            ))),
        }
    }

    /// This server's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Time => "time",
            Self::Fetch { .. } => "fetch",
            Self::Filesystem { .. } => "filesystem",
        }
    }
}

/// Starts `server` in-process and connects an [`McpClient`] to it. Notifications go to `host`.
/// The server task ends when the client shuts down (the pipe closes).
pub async fn connect(
    server: &BuiltinServer,
    host: impl HostHandler,
) -> Result<McpClient, McpError> {
    let (client_end, server_end) = tokio::io::duplex(PIPE_BYTES);
    serve(server, server_end)?;
    McpClient::connect_in_process(&spec(server), client_end, host).await
}

/// Runs `server` on the server end of an in-memory pipe, in its own task.
pub(super) fn serve(
    server: &BuiltinServer,
    server_end: tokio::io::DuplexStream,
) -> Result<(), McpError> {
    match server {
        BuiltinServer::Time => spawn_server(TimeServer::new(), server_end),
        BuiltinServer::Fetch { allow_private } => {
            spawn_server(FetchServer::new(*allow_private), server_end);
        }
        BuiltinServer::Filesystem { roots } => {
            let fs = FilesystemServer::new(roots)
                .map_err(|e| McpError::Connect(format!("{e}; choose folders (roots) first")))?;
            spawn_server(fs, server_end);
        }
    }
    Ok(())
}

/// The spec a built-in connection reports.
fn spec(server: &BuiltinServer) -> ServerSpec {
    let transport = Transport::Builtin {
        server: server.name().to_owned(),
        allow_private: matches!(
            server,
            BuiltinServer::Fetch {
                allow_private: true
            }
        ),
        folders: match server {
            BuiltinServer::Filesystem { roots } => roots.clone(),
            _ => Vec::new(),
        },
    };
    ServerSpec::new(server.name(), transport)
}

/// Runs `handler` on `pipe` until the client hangs up.
fn spawn_server<S>(handler: S, pipe: tokio::io::DuplexStream)
where
    S: rmcp::ServerHandler,
{
    tokio::spawn(async move {
        match handler.serve(pipe).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(e) => tracing::warn!("built-in server failed to start: {e}"),
        }
    });
}
