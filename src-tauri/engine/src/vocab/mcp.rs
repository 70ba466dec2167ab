//! Our own vocabulary for what MCP servers offer and answer: tools, results, resources,
//! prompts, notifications and errors. The client converts rmcp's types into these, so no
//! rmcp type is visible outside `client.rs`.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

/// The MIME type of an App's HTML resource.
pub const APP_MIME: &str = "text/html;profile=mcp-app";
/// The largest App document accepted (bytes).
pub const MAX_HTML_BYTES: usize = 8 << 20;

/// Who the server says it is, and the protocol revision both sides agreed on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ServerInfo {
    /// The server's implementation name (`serverInfo.name`).
    pub name: String,
    /// Its human-readable title, if given.
    pub title: Option<String>,
    /// Its version string.
    pub version: String,
    /// The negotiated protocol revision, e.g. `2025-11-25` or `2026-07-28`.
    pub protocol_version: String,
    /// The protocol era that revision belongs to.
    pub era: ProtocolEra,
    /// Usage instructions for the model, if the server gives any.
    pub instructions: Option<String>,
}

/// The protocol era spoken with one server, negotiated per server at each connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ProtocolEra {
    /// 2026-07-28 and later: no `initialize`, `server/discover`, per-request `_meta`, multi
    /// round-trip requests, cache hints on lists.
    Stateless,
    /// The `initialize` handshake (revisions 2024-11-05 up to 2025-11-25).
    Handshake,
}

/// A listing and the server's cache hint for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed<T> {
    /// Every item, all pages merged.
    pub items: Vec<T>,
    /// How long the listing may be reused.
    pub hint: CacheHint,
}

/// A list result's cache hint (`ttlMs`, `cacheScope`; the earliest expiry of its pages).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the list stays fresh; `None` when the server gave no `ttlMs`.
    pub ttl: Option<Duration>,
    /// Who may reuse it; `None` when the server gave no `cacheScope`.
    pub scope: Option<CacheScope>,
}

/// Who may reuse a cached list. Our caches live in one connection of one user, so both are
/// honoured by never sharing a list beyond the connection that listed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheScope {
    /// Any client may reuse it.
    Public,
    /// Only the requesting user's client may reuse it.
    Private,
}

/// One tool a server offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ToolInfo {
    /// The tool's name, unique within its server.
    pub name: String,
    /// A human-readable title (the tool's own, else its annotations').
    pub title: Option<String>,
    /// What the tool does (shown to the model).
    pub description: Option<String>,
    /// The JSON Schema of its arguments (an `object` schema).
    pub input_schema: Map<String, Value>,
    /// The JSON Schema of its structured output, if declared.
    pub output_schema: Option<Map<String, Value>>,
    /// Behaviour hints (untrusted: never base security decisions on them).
    pub annotations: ToolAnnotations,
    /// Its MCP App declaration (`_meta.ui`): a UI resource, who may call it.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub ui: Option<ToolUi>,
}

/// A tool's behaviour hints; `None` means the server said nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ToolAnnotations {
    /// Does not modify its environment.
    pub read_only: Option<bool>,
    /// May destroy data (meaningful when not read-only).
    pub destructive: Option<bool>,
    /// Repeating a call with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// Reaches an open world (the internet) rather than a closed domain.
    pub open_world: Option<bool>,
}

/// The result of one tool call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ToolResult {
    /// The unstructured content, in order.
    pub content: Vec<ResultPart>,
    /// The structured result (`structuredContent`), if any.
    pub structured: Option<Value>,
    /// The tool reports a failure (the model should see it, it is not a protocol error).
    pub is_error: bool,
}

/// One piece of a tool result or prompt message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResultPart {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Its MIME type, e.g. `image/png`.
        mime: String,
        /// Base64 data.
        data: String,
    },
    /// Audio, base64-encoded.
    Audio {
        /// Its MIME type, e.g. `audio/wav`.
        mime: String,
        /// Base64 data.
        data: String,
    },
    /// A link to a resource the client may read.
    ResourceLink(ResourceInfo),
    /// A resource's contents, inline.
    Resource(ResourceContent),
}

/// A resource a server lists (or links to).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ResourceInfo {
    /// Its URI.
    pub uri: String,
    /// Its programmatic name.
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// Its MIME type, if known.
    pub mime: Option<String>,
    /// Its size in bytes, if known.
    pub size: Option<u64>,
}

/// A resource template a server lists: an RFC 6570 URI template whose variables the user
/// fills in to name a resource.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ResourceTemplateInfo {
    /// The URI template, e.g. `file:///logs/{date}`.
    pub uri_template: String,
    /// Its programmatic name.
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What the resources are.
    pub description: Option<String>,
    /// The MIME type of its resources, if uniform.
    pub mime: Option<String>,
}

/// The contents of a resource: text or a base64 blob.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ResourceContent {
    /// The URI these contents belong to.
    pub uri: String,
    /// Their MIME type, if known.
    pub mime: Option<String>,
    /// The contents.
    pub body: ResourceBody,
}

/// Text or binary resource contents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum ResourceBody {
    /// UTF-8 text.
    Text(String),
    /// Base64-encoded bytes.
    Blob(String),
}

/// A prompt template a server offers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PromptInfo {
    /// Its name.
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What it does.
    pub description: Option<String>,
    /// The arguments it takes.
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it means.
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
}

/// A prompt expanded with arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct Prompt {
    /// The server's description of this expansion.
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

/// One message of an expanded prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct PromptMessage {
    /// `user` or `assistant`.
    pub role: PromptRole,
    /// Its content.
    pub content: ResultPart,
}

/// The author of a prompt message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PromptRole {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// Something a server told us without being asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerNotification {
    /// Progress of a request we sent (`notifications/progress`).
    Progress {
        /// The progress token of the request (as text).
        token: String,
        /// Progress so far.
        progress: f64,
        /// The total, if known.
        total: Option<f64>,
        /// A human-readable status.
        message: Option<String>,
    },
    /// A log message (`notifications/message`).
    Log {
        /// Its severity.
        level: LogLevel,
        /// The logger's name.
        logger: Option<String>,
        /// The payload (any JSON).
        data: Value,
    },
    /// The tool list changed: list tools again.
    ToolsChanged,
    /// The resource list changed.
    ResourcesChanged,
    /// The prompt list changed.
    PromptsChanged,
    /// A subscribed resource changed.
    ResourceUpdated {
        /// Its URI.
        uri: String,
    },
}

/// The syslog severities MCP logging uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    /// Debug detail.
    Debug,
    /// Information.
    Info,
    /// Normal but significant.
    Notice,
    /// A warning.
    Warning,
    /// An error.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// What can go wrong talking to an MCP server.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The server process could not be started.
    #[error("{reason}")]
    Spawn {
        /// The program we tried to run.
        command: String,
        /// Why, as a sentence for the user (names the command).
        reason: String,
    },
    /// The transport failed: no connection, or sending failed.
    #[error("cannot reach the server: {0}")]
    Connect(String),
    /// The server did not complete the `initialize` handshake.
    #[error("handshake failed: {0}")]
    Handshake(String),
    /// No answer in time (start-up or a request); a cancellation was sent.
    #[error("no answer after {after:?}")]
    Timeout {
        /// The limit that passed.
        after: Duration,
    },
    /// We cancelled the request.
    #[error("cancelled")]
    Cancelled,
    /// The server broke the protocol (e.g. answered with the wrong result type).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The server answered with a JSON-RPC error.
    #[error("server error {code}: {message}")]
    ServerError {
        /// The JSON-RPC error code.
        code: i32,
        /// Its message.
        message: String,
        /// Its `data`, if any (passed on as it is by the endpoint).
        data: Option<serde_json::Value>,
    },
    /// The connection is closed (the server exited or hung up).
    #[error("the connection to the server is closed")]
    Closed,
    /// The server demands OAuth authorization and it failed (or none is configured).
    #[error("authorization failed: {0}")]
    Auth(String),
    /// The server answered `server/discover` (or `initialize`) with a result of another kind,
    /// as handshake-era servers that answer every unknown method with `{}` do; the client then
    /// connects again in the handshake era.
    #[error("handshake failed: the server answered the opening request with {0}")]
    NotDiscover(String),
    /// A multi round-trip request kept asking for input past the bound on rounds.
    #[error("{method} still needed input after {rounds} rounds; stopped (a bound on rounds)")]
    TooManyRounds {
        /// `tools/call`, `prompts/get` or `resources/read`.
        method: String,
        /// The bound that was reached.
        rounds: usize,
    },
    /// An input a multi round-trip request needed was not given (e.g. a sampling request the
    /// user declined); the request cannot go on.
    #[error("{0}")]
    InputRefused(String),
}

/// Who may call a tool, from its `_meta.ui.visibility`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// The model (the tool is offered to it).
    Model,
    /// Apps of the same server.
    App,
}

/// What a tool's `_meta.ui` declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolUi {
    /// The `ui://` resource to render for a call of this tool, if any.
    pub resource_uri: Option<String>,
    /// Who may call it (both when the server says nothing).
    pub visibility: Vec<Visibility>,
}

/// The text of a stored tool result, for the model: text parts as they are, other parts
/// described in a line, structured content as JSON when there is no text.
pub fn result_text(content: &Value) -> String {
    let Ok(result) = <ToolResult as serde::Deserialize>::deserialize(content) else {
        return content.to_string();
    };
    let mut lines: Vec<String> = result.content.iter().map(part_text).collect();
    if let Some(s) = result
        .structured
        .as_ref()
        .filter(|_| lines.iter().all(String::is_empty))
    {
        lines = vec![s.to_string()];
    }
    lines.retain(|l| !l.is_empty());
    lines.join("\n")
}

fn part_text(part: &ResultPart) -> String {
    match part {
        ResultPart::Text { text } => text.clone(),
        ResultPart::Image { mime, data } => format!("[image {mime}, {} bytes]", data.len() * 3 / 4),
        ResultPart::Audio { mime, data } => format!("[audio {mime}, {} bytes]", data.len() * 3 / 4),
        ResultPart::ResourceLink(r) => format!("[resource link {} ({})]", r.uri, r.name),
        ResultPart::Resource(r) => match &r.body {
            crate::vocab::mcp::ResourceBody::Text(t) => t.clone(),
            crate::vocab::mcp::ResourceBody::Blob(_) => format!("[resource {} (binary)]", r.uri),
        },
    }
}
