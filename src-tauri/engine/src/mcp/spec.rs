//! What it takes to reach one MCP server: its transport and its timeouts. `config` turns the
//! user's `mcpServers` entries into these; the client and supervisor consume them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::oauth_client::OAuthClient;

/// How to reach a server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Transport {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        /// The program (resolved on the login shell's PATH).
        command: String,
        /// Its arguments.
        #[serde(default)]
        args: Vec<String>,
        /// Extra environment variables (values may be secrets: never logged or exported).
        #[serde(default)]
        env: BTreeMap<String, String>,
        /// The working directory.
        #[serde(default)]
        #[ts(optional)]
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint, e.g. `http://127.0.0.1:3001/mcp`.
        url: String,
        /// Extra headers (values may be secrets).
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
    /// The legacy HTTP+SSE transport (GET the stream, POST to the `endpoint` it names).
    Sse {
        /// The SSE endpoint, e.g. `http://127.0.0.1:3001/sse`.
        url: String,
        /// Extra headers (values may be secrets).
        #[serde(default)]
        headers: BTreeMap<String, String>,
    },
    /// One of our built-in servers, run in-process (nothing is spawned).
    Builtin {
        /// Which one: `time`, `fetch` or `filesystem`.
        server: String,
        /// `fetch`: allow private, loopback and link-local addresses.
        #[serde(default, rename = "allowPrivate")]
        allow_private: bool,
        /// `filesystem`: the folders it may touch; none means the user's roots.
        #[serde(default)]
        #[ts(type = "Array<string>")]
        folders: Vec<PathBuf>,
    },
}

impl Transport {
    /// Whether this is a built-in filesystem server without folders of its own: it works in
    /// the user's roots (and is restarted when they change).
    pub fn follows_roots(&self) -> bool {
        matches!(self, Self::Builtin { server, folders, .. }
            if server == "filesystem" && folders.is_empty())
    }
}

/// One server to connect to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSpec {
    /// The server's unique name (the `mcpServers` key).
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// How long start-up (spawn + handshake + first listings) may take.
    pub startup_timeout: Duration,
    /// The default timeout of one tool call (reset by progress notifications).
    pub call_timeout: Duration,
    /// Remote servers: who we are to their authorization server.
    pub oauth: OAuthClient,
    /// Stdio servers: variables of the app's environment passed on beyond the allow-list.
    pub inherit_env: Vec<String>,
    /// The user allowed this server local and private addresses (OAuth endpoints, Apps).
    pub allow_private: bool,
}

impl ServerSpec {
    /// Default start-up timeout: a cold `npx -y` start took 20.8 s here.
    pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
    /// Default tool-call timeout.
    pub const CALL_TIMEOUT: Duration = Duration::from_secs(60);

    /// A spec with the default timeouts.
    pub fn new(name: impl Into<String>, transport: Transport) -> Self {
        Self {
            name: name.into(),
            transport,
            startup_timeout: Self::STARTUP_TIMEOUT,
            call_timeout: Self::CALL_TIMEOUT,
            oauth: OAuthClient::default(),
            inherit_env: Vec::new(),
            allow_private: false,
        }
    }
}
