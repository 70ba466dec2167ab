//! The stable classification of every error ([`ErrorKind`]): what the IPC boundary, chat
//! events and the CLI report; the UI translates by kind — and the errors of the parts that
//! every part may return or wrap: a tool call ([`ToolError`]), a server configuration
//! ([`ConfigError`]), an answer to a server's request ([`InteractionError`]), an MCP App
//! ([`AppError`]), a turn ([`AgentError`]) and an attached file ([`UploadError`]).

use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::vocab::mcp::{APP_MIME, MAX_HTML_BYTES, McpError};

/// A stable, serializable classification of an error; the UI translates by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The thing asked for does not exist.
    NotFound,
    /// The input was rejected; the message says why.
    InvalidInput,
    /// The database file is corrupt; it was left untouched.
    CorruptDatabase,
    /// Another process holds the database.
    DatabaseLocked,
    /// The database is from a newer Switchboard.
    NewerSchema,
    /// A directory or file cannot be used.
    Io,
    /// The provider refused the credentials.
    ProviderAuth,
    /// The model does not exist on the provider.
    ModelNotFound,
    /// The provider is rate limiting.
    RateLimited,
    /// The conversation does not fit the model's context window.
    ContextLengthExceeded,
    /// The model or endpoint cannot call tools natively.
    ToolsUnsupported,
    /// The provider could not be reached, failed, timed out or broke its stream.
    ProviderUnavailable,
    /// The provider rejected the request.
    ProviderRejected,
    /// No keychain or the secret store failed.
    Secrets,
    /// Anything else; a bug or an unexpected condition.
    Internal,
}

/// One way the arguments break the tool's input schema.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The JSON pointer of the offending value (`/` for the arguments object itself).
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Why a tool could not be called.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// No server of that name was started.
    #[error("no MCP server named `{server}` is running")]
    UnknownServer {
        /// The name asked for.
        server: String,
    },
    /// The server is known but not ready (starting, restarting, failed or stopped).
    #[error("the MCP server `{server}` is not ready ({state})")]
    NotReady {
        /// The server.
        server: String,
        /// Its state, in words.
        state: String,
    },
    /// The server does not offer that tool.
    #[error("the MCP server `{server}` has no tool named `{tool}`")]
    UnknownTool {
        /// The server.
        server: String,
        /// The tool asked for.
        tool: String,
    },
    /// The arguments do not match the tool's input schema.
    #[error("invalid arguments for `{tool}`: {}", list(.violations))]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// Every violation found.
        violations: Vec<Violation>,
    },
    /// The tool's own input schema cannot be compiled.
    #[error("the input schema of `{tool}` is not a usable JSON Schema: {reason}")]
    BadSchema {
        /// The tool.
        tool: String,
        /// The compiler's complaint.
        reason: String,
    },
    /// The server could not be started.
    #[error("the MCP server `{server}` did not start: {reason}")]
    StartFailed {
        /// The server.
        server: String,
        /// Why.
        reason: String,
    },
    /// The call itself failed (timeout, cancelled, closed, server error).
    #[error(transparent)]
    Mcp(#[from] McpError),
}

fn list(violations: &[Violation]) -> String {
    let items: Vec<String> = violations.iter().map(ToString::to_string).collect();
    items.join("; ")
}

/// Every problem found in a configuration document, in document order, one per line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .errors.join("\n"))]
pub struct ConfigError {
    /// One message per problem, each naming the server and the field.
    pub errors: Vec<String>,
}

impl ConfigError {
    /// The error of `errors`, or none when the list is empty.
    pub fn from_list(errors: Vec<String>) -> Option<Self> {
        (!errors.is_empty()).then_some(Self { errors })
    }
}

/// Why an answer was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InteractionError {
    /// No interaction with that id is waiting (answered, timed out or cancelled).
    #[error("no request {id} is waiting for an answer")]
    Unknown {
        /// The id given.
        id: String,
    },
    /// The answer does not fit the request (e.g. approve for an elicitation).
    #[error("{answer} is not an answer to {request}")]
    WrongAnswer {
        /// The kind of answer.
        answer: &'static str,
        /// The kind of request.
        request: &'static str,
    },
    /// A host setting was rejected (folders for the roots, the sampling model).
    #[error("{}", .problems.join("; "))]
    BadSetting {
        /// One message per problem.
        problems: Vec<String>,
    },
    /// No model is chosen to answer sampling requests.
    #[error(
        "no model is chosen to answer sampling requests; choose a provider and model for sampling"
    )]
    NoSamplingModel,
    /// The form's content does not match the requested schema; the request keeps waiting.
    #[error("the answer does not match the requested form: {}", .problems.join("; "))]
    Invalid {
        /// One message per problem.
        problems: Vec<String>,
    },
}

/// Why an App could not be shown or its request was refused.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The resource is not an MCP App document.
    #[error("the resource {uri} is not an MCP App ({found}; expected {APP_MIME} text)")]
    NotAnApp {
        /// The resource.
        uri: String,
        /// What it was instead.
        found: String,
    },
    /// The document is too large.
    #[error("the App document {uri} is {bytes} bytes, more than {MAX_HTML_BYTES}")]
    TooLarge {
        /// The resource.
        uri: String,
        /// Its size.
        bytes: usize,
    },
    /// The tool is hidden from Apps (`_meta.ui.visibility` without `app`).
    #[error("the tool `{tool}` of `{server}` is not callable from Apps")]
    HiddenFromApps {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
    },
    /// The approval policy (or the user) refused the call.
    #[error("the call of `{tool}` of `{server}` was denied")]
    Denied {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
    },
    /// No App document is registered under this token.
    #[error("no App view {token}")]
    UnknownView {
        /// The token asked for.
        token: String,
    },
}

/// Errors of the agent itself (providers, tools and the store have their own).
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// No provider is configured or chosen.
    #[error(
        "no model provider is configured; add one in Settings → Providers (or `switchboard providers add`)"
    )]
    NoProvider,
    /// The conversation's provider names no model.
    #[error(
        "{provider} has no model to answer with (it listed none); type a model name in this chat's model box, or set a default model on its card in Settings → Providers"
    )]
    NoModel {
        /// The provider's name.
        provider: String,
    },
    /// The built-in provider has no GGUF file to run yet.
    #[error(
        "the built-in model has no model file yet; download or import one in Settings → Providers → {provider} (or `switchboard models catalogue`, then `switchboard models download ID`, or `switchboard models import FILE.gguf`)"
    )]
    NoLocalModel {
        /// The built-in provider's name.
        provider: String,
    },
    /// A turn is already running in the conversation.
    #[error("a reply is already being written in this conversation; stop it first")]
    Busy,
    /// The message cannot be edited or regenerated.
    #[error("{0}")]
    Invalid(String),
}

/// Errors of finding and installing servers: the MCP Registry, install plans and MCP Bundles.
/// Each message says what went wrong and, where it can, what to do.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The registry could not be reached or answered with an error status.
    #[error("the MCP Registry at {url} could not be reached: {reason}")]
    Unreachable {
        /// The registry URL asked.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The registry did not answer in time.
    #[error(
        "the MCP Registry at {url} did not answer within {seconds} s; the last listing is kept"
    )]
    Timeout {
        /// The registry URL asked.
        url: String,
        /// The time allowed.
        seconds: u64,
    },
    /// The registry's answer is larger than allowed.
    #[error("the MCP Registry at {url} sent more than {limit} bytes; the last listing is kept")]
    TooLarge {
        /// The registry URL asked.
        url: String,
        /// The size allowed.
        limit: usize,
    },
    /// The registry's answer is not the registry API's JSON.
    #[error("the MCP Registry at {url} sent an answer that is not a server listing: {reason}")]
    Malformed {
        /// The registry URL asked.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The entry cannot be installed as asked (no package this app can run, a value missing
    /// or not among its choices, a name taken…).
    #[error("{0}")]
    Plan(String),
    /// The program the server needs is not on the PATH.
    #[error("{program} is not installed (not found on the PATH); {hint}")]
    RuntimeMissing {
        /// The program looked for, e.g. `npx`.
        program: String,
        /// What to install.
        hint: String,
    },
    /// A bundle was refused; nothing was left on disk.
    #[error("the bundle {file} was refused: {reason}")]
    Bundle {
        /// The bundle file.
        file: String,
        /// Why.
        reason: String,
    },
    /// An install link was refused; nothing was saved.
    #[error("the install link was refused: {0}")]
    Link(String),
    /// What would be installed or updated is not what the user was shown (the entry, the
    /// update or the bundle file changed after the preview); nothing was saved.
    #[error("nothing was installed: {0}; preview it again")]
    NotAsShown(String),
    /// Reading or writing a file failed.
    #[error("{0}")]
    Io(String),
}

/// Why a file the user attached was refused. Nothing of it is stored or sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UploadError {
    /// The file is larger than attachments may be.
    #[error("“{name}” is {size_mb:.1} MB; attachments can be at most {limit_mb} MB")]
    TooLarge {
        /// The file's name.
        name: String,
        /// Its size in MB.
        size_mb: f64,
        /// The limit in MB.
        limit_mb: u64,
    },
    /// A file that should be an image cannot be decoded.
    #[error("“{name}” is not an image that can be read ({reason})")]
    CorruptImage {
        /// The file's name.
        name: String,
        /// What the decoder said.
        reason: String,
    },
    /// A file named `.pdf` is not a PDF, or its structure cannot be read.
    #[error("“{name}” is not a readable PDF ({reason})")]
    NotAPdf {
        /// The file's name.
        name: String,
        /// What went wrong.
        reason: String,
    },
    /// A PDF whose pages have no text layer (a scan): there is nothing to send.
    #[error(
        "“{name}” has no text to extract (it looks like a scanned PDF); attach its pages as images instead"
    )]
    NoTextLayer {
        /// The file's name.
        name: String,
    },
    /// A file that is neither an image, a PDF nor text.
    #[error("“{name}” cannot be attached: only images, PDFs and text or code files can be")]
    Unsupported {
        /// The file's name.
        name: String,
    },
    /// The file could not be read from disk.
    #[error("“{name}” could not be read: {reason}")]
    Unreadable {
        /// The file's name.
        name: String,
        /// The I/O error.
        reason: String,
    },
    /// The conversation's model cannot see images.
    #[error(
        "{model} cannot see images (its provider {provider} says so); remove the images or pick a model with vision"
    )]
    NoVision {
        /// The model.
        model: String,
        /// The provider's name.
        provider: String,
    },
    /// An image the message names is not stored (a message must attach images through
    /// the app).
    #[error("the attached image {hash} is not stored; attach it again")]
    MissingImage {
        /// Its hash.
        hash: String,
    },
}
