//! A configured MCP server as every part sees it: its transport, timeouts, default approval
//! and OAuth client settings ([`ServerConfig`]), and what the client needs to reach it
//! ([`ServerSpec`]). `mcp::config` parses and checks the user's `mcpServers` documents into
//! these; the store keeps them; the supervisor starts them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

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
        /// Which one: `time`, `fetch`, `filesystem` or `web`.
        server: String,
        /// `fetch`, `web`: allow private, loopback and link-local addresses.
        #[serde(default, rename = "allowPrivate")]
        allow_private: bool,
        /// `filesystem`: the folders it may touch; none means the user's roots.
        #[serde(default)]
        #[ts(type = "Array<string>")]
        folders: Vec<PathBuf>,
        /// `web`: its keys (names ending in `_KEY`), kept like a stdio server's env: the values
        /// in the keychain, blank in the database, masked for the UI.
        #[serde(default)]
        env: BTreeMap<String, String>,
        /// `web`: its other settings (the search provider, its URL), kept in the database.
        #[serde(default)]
        settings: BTreeMap<String, String>,
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
    /// What its stored OAuth tokens are kept under (with its URL): [`credentials_key`] of
    /// its id for a configured server, else its name.
    pub credentials: String,
}

/// The key a configured server's OAuth tokens are kept under (with its URL): its id, which
/// outlives renames and is never reused by another server.
pub fn credentials_key(id: &str) -> String {
    format!("id:{id}")
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
            credentials: String::new(),
        }
        .with_credentials(None)
    }

    /// This spec with its credentials keyed by the configured server `id` (`None`: by name).
    pub fn with_credentials(mut self, id: Option<&str>) -> Self {
        self.credentials = id.map_or_else(|| self.name.clone(), credentials_key);
        self
    }
}

/// How we obtain tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum OAuthGrant {
    /// A person approves in the browser (authorization code with PKCE).
    #[default]
    AuthorizationCode,
    /// No person: the client authenticates itself (client secret or signed assertion).
    ClientCredentials,
}

/// The algorithms a `private_key_jwt` assertion may be signed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub enum JwtAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// ECDSA P-256 with SHA-256.
    ES256,
    /// ECDSA P-384 with SHA-384.
    ES384,
}

/// A remote server's OAuth client settings (all optional; the default registers dynamically).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OAuthClient {
    /// A client id registered with the authorization server beforehand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub client_id: Option<String>,
    /// The HTTPS URL of our Client ID Metadata Document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub client_metadata_url: Option<String>,
    /// How tokens are obtained.
    #[serde(default, skip_serializing_if = "is_default_grant")]
    #[ts(as = "Option<OAuthGrant>", optional)]
    pub grant: OAuthGrant,
    /// Scopes to request with the client-credentials grant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub scopes: Vec<String>,
    /// Sign a `private_key_jwt` assertion with this algorithm (client credentials only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub signing_algorithm: Option<JwtAlgorithm>,
}

fn is_default_grant(grant: &OAuthGrant) -> bool {
    *grant == OAuthGrant::AuthorizationCode
}

impl OAuthClient {
    /// Whether nothing is set (dynamic registration).
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// What happens to a call of one of the server's tools when no per-tool policy says otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Approval {
    /// Ask the user each time.
    #[default]
    Ask,
    /// Run without asking.
    Allow,
    /// Never run.
    Deny,
}

/// One configured MCP server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    /// Unique name (the `mcpServers` key), 1 to 64 characters.
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// Whether it is used at all (`"disabled": true` in the file when not).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// How long start-up may take (`startupTimeoutMs`).
    #[serde(
        rename = "startupTimeoutMs",
        with = "millis",
        default = "startup_default"
    )]
    #[ts(type = "number")]
    pub startup_timeout: Duration,
    /// The default timeout of one tool call (`callTimeoutMs`).
    #[serde(rename = "callTimeoutMs", with = "millis", default = "call_default")]
    #[ts(type = "number")]
    pub call_timeout: Duration,
    /// Whether it starts with the app (when enabled).
    #[serde(default = "yes")]
    pub auto_start: bool,
    /// The default approval policy of its tools.
    #[serde(default)]
    pub approval: Approval,
    /// Remote servers: their OAuth client settings (`oauth`; none: dynamic registration).
    #[serde(default, skip_serializing_if = "OAuthClient::is_default")]
    #[ts(as = "Option<OAuthClient>", optional)]
    pub oauth: OAuthClient,
    /// Stdio servers: variables of the app's environment passed on beyond the platform
    /// allow-list, by name (`inheritEnv`; provider keys never are).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub inherit_env: Vec<String>,
    /// Whether the server may reach local and private addresses (`allowPrivate`): its Apps'
    /// declared origins and the OAuth endpoints it names. Built-in `fetch` keeps its own flag.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub allow_private: bool,
    /// The id of the configured server this config was read for (set when it is started;
    /// never serialized): what its OAuth tokens are keyed by.
    #[serde(skip)]
    #[ts(skip)]
    pub id: Option<String>,
    /// Where it was installed from (the MCP Registry or a bundle), when it was: what an
    /// update or an uninstall works from. None for a server typed or imported by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub source: Option<ServerSource>,
}

/// Where an installed server came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ServerSource {
    /// An entry of an MCP Registry.
    #[serde(rename_all = "camelCase")]
    Registry {
        /// The registry's base URL.
        registry: String,
        /// The entry's name, e.g. `io.github.user/weather`.
        name: String,
        /// The version installed.
        version: String,
        /// Which of the entry's ways to run it: `package:N` or `remote:N` (its index).
        option: String,
        /// The non-secret values given for its arguments (secrets stay in the keychain).
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        #[ts(as = "Option<BTreeMap<String, String>>", optional)]
        inputs: BTreeMap<String, String>,
    },
    /// An MCP Bundle (`.mcpb`) unpacked into the profile's `bundles/` folder.
    #[serde(rename_all = "camelCase")]
    Bundle {
        /// The manifest's name.
        name: String,
        /// The manifest's version.
        version: String,
        /// The folder it was unpacked into.
        #[ts(type = "string")]
        dir: PathBuf,
    },
}

fn yes() -> bool {
    true
}
fn startup_default() -> Duration {
    ServerSpec::STARTUP_TIMEOUT
}
fn call_default() -> Duration {
    ServerSpec::CALL_TIMEOUT
}

/// Durations as whole milliseconds on the wire.
mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}

impl fmt::Debug for ServerConfig {
    /// Like the derived one, but env and header values are never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("name", &self.name)
            .field("transport", &self.without_secrets().transport)
            .field("enabled", &self.enabled)
            .field("startup_timeout", &self.startup_timeout)
            .field("call_timeout", &self.call_timeout)
            .field("auto_start", &self.auto_start)
            .field("approval", &self.approval)
            .field("oauth", &self.oauth)
            .field("inherit_env", &self.inherit_env)
            .field("allow_private", &self.allow_private)
            .finish()
    }
}

/// What replaces a secret value in [`ServerConfig::without_secrets`].
pub const SECRET_PLACEHOLDER: &str = "";

/// What an env or header value reads as over IPC ([`ServerConfig::masked`]); sent back
/// unchanged in an update, it means "keep the stored value".
pub const SECRET_MASK: &str = "••••••••";

impl ServerConfig {
    /// A config with the defaults: enabled, auto-started, default timeouts, approval "ask".
    pub fn new(name: impl Into<String>, transport: Transport) -> Self {
        Self {
            name: name.into(),
            transport,
            enabled: true,
            startup_timeout: ServerSpec::STARTUP_TIMEOUT,
            call_timeout: ServerSpec::CALL_TIMEOUT,
            auto_start: true,
            approval: Approval::Ask,
            oauth: OAuthClient::default(),
            inherit_env: Vec::new(),
            allow_private: false,
            id: None,
            source: None,
        }
    }

    /// Whether the user allowed this server local and private addresses (its own flag, or a
    /// built-in fetch server's).
    pub fn allows_private(&self) -> bool {
        self.allow_private
            || matches!(
                self.transport,
                Transport::Builtin {
                    allow_private: true,
                    ..
                }
            )
    }

    /// What the client and supervisor need to reach it.
    pub fn spec(&self) -> ServerSpec {
        ServerSpec {
            name: self.name.clone(),
            transport: self.transport.clone(),
            startup_timeout: self.startup_timeout,
            call_timeout: self.call_timeout,
            oauth: self.oauth.clone(),
            inherit_env: self.inherit_env.clone(),
            allow_private: self.allows_private(),
            credentials: String::new(),
        }
        .with_credentials(self.id.as_deref())
    }

    /// The env (stdio) or header (remote) values: the parts that may be secrets.
    pub fn secret_values(&self) -> impl Iterator<Item = &str> {
        secrets_of(&self.transport).values().map(String::as_str)
    }

    /// A copy whose env and header values are blanked (their names are kept).
    pub fn without_secrets(&self) -> Self {
        let mut copy = self.clone();
        for v in secrets_of_mut(&mut copy.transport).values_mut() {
            SECRET_PLACEHOLDER.clone_into(v);
        }
        copy
    }

    /// A copy whose env and header values read [`SECRET_MASK`] (their names are kept): how
    /// a server's configuration leaves the engine for the UI.
    pub fn masked(&self) -> Self {
        let mut copy = self.clone();
        for v in secrets_of_mut(&mut copy.transport).values_mut() {
            SECRET_MASK.clone_into(v);
        }
        copy
    }

    /// A one-line description for previews and listings: the command line (env values
    /// masked) or the URL and transport.
    pub fn command_line(&self) -> String {
        match &self.transport {
            Transport::Stdio {
                command, args, env, ..
            } => {
                let env = env.keys().map(|k| format!("{}=••••", shell_word(k)));
                let words = std::iter::once(command).chain(args).map(|w| shell_word(w));
                env.chain(words).collect::<Vec<_>>().join(" ")
            }
            Transport::Http { url, .. } => format!("{url} (streamable HTTP)"),
            Transport::Sse { url, .. } => format!("{url} (SSE)"),
            Transport::Builtin { server, .. } => format!("builtin:{server}"),
        }
    }
}

/// The env of a stdio or built-in server, or the headers of a remote one.
pub fn secrets_of(t: &Transport) -> &BTreeMap<String, String> {
    match t {
        Transport::Stdio { env, .. } | Transport::Builtin { env, .. } => env,
        Transport::Http { headers, .. } | Transport::Sse { headers, .. } => headers,
    }
}

/// [`secrets_of`], mutable.
pub fn secrets_of_mut(t: &mut Transport) -> &mut BTreeMap<String, String> {
    match t {
        Transport::Stdio { env, .. } | Transport::Builtin { env, .. } => env,
        Transport::Http { headers, .. } | Transport::Sse { headers, .. } => headers,
    }
}

/// A URL as compared for identity: parsed (scheme and host lower-cased, default port
/// dropped), without fragment or trailing slash; the text itself when it does not parse.
pub fn canonical_url(url: &str) -> String {
    match url::Url::parse(url.trim()) {
        Ok(mut parsed) => {
            parsed.set_fragment(None);
            parsed.as_str().trim_end_matches('/').to_owned()
        }
        Err(_) => url.trim().to_owned(),
    }
}

/// `word`, single-quoted when a shell would split or expand it.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_alphanumeric() || "-_./:=@%+,".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
