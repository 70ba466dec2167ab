//! Built-in MCP servers that need no Node or Python: `time`, `fetch`, `filesystem`, `web` and
//! `knowledge` (one per knowledge base, searching it through [`KnowledgeSlot`]), written
//! on rmcp's server side and run in-process. A [`Transport::Builtin`] names one; the client
//! (`client/connect.rs`) starts its server task on one end of a `tokio::io::duplex` pipe
//! ([`serve`]) and connects to the other end like to any other server, so the app and the
//! tests reach built-ins one way. This room imports no other part of `mcp/`.

mod beneath;
pub(crate) mod fetch;
pub(crate) mod filesystem;
pub(crate) mod guarded;
pub(crate) mod knowledge;
mod time;
pub(crate) mod web;

use std::collections::BTreeMap;
use std::path::PathBuf;

use rmcp::ServiceExt;

use fetch::FetchServer;
use filesystem::FilesystemServer;
pub use filesystem::SEARCH_MAX_ENTRIES;
use knowledge::KnowledgeServer;
pub(crate) use knowledge::KnowledgeSlot;
use time::TimeServer;
use web::WebServer;

use crate::vocab::mcp::McpError;
use crate::vocab::server::{ServerSpec, Transport};

/// The size of the in-memory pipe between the client and a built-in server.
pub(crate) const PIPE_BYTES: usize = 64 * 1024;

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
    /// Searches the web through the user's provider and reads pages' main content.
    Web {
        /// Its settings: the provider, its URL and key ([`web::PROVIDER`] and the rest).
        settings: BTreeMap<String, String>,
        /// Allow `read` private, loopback and link-local addresses.
        allow_private: bool,
    },
    /// Searches one knowledge base.
    Knowledge {
        /// The base's name.
        base: String,
    },
}

impl BuiltinServer {
    /// The names of the built-in servers.
    pub const NAMES: [&'static str; 5] = ["time", "fetch", "filesystem", "web", "knowledge"];

    /// The built-in server a [`Transport::Builtin`] names; a filesystem server with no
    /// folders of its own gets `roots`.
    pub fn from_transport(
        transport: &Transport,
        roots: impl FnOnce() -> Vec<PathBuf>,
    ) -> Result<Self, McpError> {
        let Transport::Builtin {
            server,
            allow_private,
            folders,
            env,
            settings,
        } = transport
        else {
            return Err(McpError::Connect("not a built-in server".to_owned()));
        };
        let allow_private = *allow_private;
        match server.as_str() {
            "time" => Ok(Self::Time),
            "web" => Ok(Self::Web {
                settings: (settings.iter().chain(env))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                allow_private,
            }),
            "fetch" => Ok(Self::Fetch { allow_private }),
            "knowledge" => match settings.get(knowledge::BASE).map(|b| b.trim()) {
                Some(base) if !base.is_empty() => Ok(Self::Knowledge {
                    base: base.to_owned(),
                }),
                _ => Err(McpError::Connect(
                    "a knowledge server needs the name of its knowledge base (setting BASE)"
                        .to_owned(),
                )),
            },
            "filesystem" if folders.is_empty() => Ok(Self::Filesystem { roots: roots() }),
            "filesystem" => Ok(Self::Filesystem {
                roots: folders.to_vec(),
            }),
            other => Err(McpError::Connect(format!(
                "{other:?} is not a built-in server (time, fetch, filesystem, web, knowledge)"
            ))),
        }
    }

    /// The spec that connects this server (the client starts it in process).
    pub fn spec(&self) -> ServerSpec {
        let server = self;
        let transport = Transport::Builtin {
            server: server.name().to_owned(),
            allow_private: matches!(
                server,
                BuiltinServer::Fetch {
                    allow_private: true
                } | BuiltinServer::Web {
                    allow_private: true,
                    ..
                }
            ),
            folders: match server {
                BuiltinServer::Filesystem { roots } => roots.clone(),
                _ => Vec::new(),
            },
            env: self.web_settings(true),
            settings: match server {
                BuiltinServer::Knowledge { base } => {
                    BTreeMap::from([(knowledge::BASE.to_owned(), base.clone())])
                }
                _ => self.web_settings(false),
            },
        };
        ServerSpec::new(server.name(), transport)
    }

    /// The web server's keys (`secret`) or its other settings; none for another server.
    fn web_settings(&self, secret: bool) -> BTreeMap<String, String> {
        match self {
            BuiltinServer::Web { settings, .. } => (settings.iter())
                .filter(|(name, _)| web::is_secret(name) == secret)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            _ => BTreeMap::new(),
        }
    }

    /// This server's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Time => "time",
            Self::Fetch { .. } => "fetch",
            Self::Filesystem { .. } => "filesystem",
            Self::Web { .. } => "web",
            Self::Knowledge { .. } => "knowledge",
        }
    }
}

/// Runs `server` on the server end of an in-memory pipe, in its own task; a knowledge server
/// searches through `knowledge`.
pub(crate) fn serve(
    server: &BuiltinServer,
    server_end: tokio::io::DuplexStream,
    knowledge: Option<std::sync::Arc<dyn crate::vocab::knowledge::KnowledgeSearch>>,
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
        BuiltinServer::Web {
            settings,
            allow_private,
        } => spawn_server(WebServer::new(settings.clone(), *allow_private), server_end),
        BuiltinServer::Knowledge { base } => {
            spawn_server(KnowledgeServer::new(base.clone(), knowledge), server_end);
        }
    }
    Ok(())
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
