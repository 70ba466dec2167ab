//! Provider errors as types the UI and the agent loop can act on.

use std::time::Duration;

/// What went wrong talking to a model provider.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// 401/403: the key is missing, wrong or lacks access.
    #[error("the provider refused the credentials (HTTP {status}): {message}")]
    Auth {
        /// The HTTP status.
        status: u16,
        /// The provider's explanation.
        message: String,
    },
    /// The model does not exist on this provider.
    #[error("the model {model} is not available on this provider: {message}")]
    ModelNotFound {
        /// The model asked for.
        model: String,
        /// The provider's explanation.
        message: String,
    },
    /// 429: slow down, and retry after the given time if the provider said.
    #[error("the provider is rate limiting requests{}: {message}", retry_hint(.retry_after))]
    RateLimited {
        /// From `Retry-After`, when present.
        retry_after: Option<Duration>,
        /// The provider's explanation.
        message: String,
    },
    /// The prompt does not fit the model's context window.
    #[error("the conversation is longer than the model's context window: {message}")]
    ContextLengthExceeded {
        /// The provider's explanation.
        message: String,
    },
    /// The endpoint does not accept tool definitions (auto tool mode falls back to prompt).
    #[error("this model or endpoint does not support native tool calling: {message}")]
    ToolsUnsupported {
        /// The provider's explanation.
        message: String,
    },
    /// Any other 4xx.
    #[error("the provider rejected the request (HTTP {status}): {message}")]
    BadRequest {
        /// The HTTP status.
        status: u16,
        /// The provider's explanation.
        message: String,
    },
    /// 5xx.
    #[error("the provider failed (HTTP {status}): {message}")]
    Server {
        /// The HTTP status.
        status: u16,
        /// The provider's explanation.
        message: String,
    },
    /// The connection failed or dropped.
    #[error("network error: {0}")]
    Network(String),
    /// No data arrived within the timeout.
    #[error("the provider sent nothing for {0:?}")]
    Timeout(Duration),
    /// The stream broke its wire format.
    #[error("the provider's stream is malformed: {0}")]
    MalformedStream(String),
    /// The built-in model (llama.cpp in process) failed: a file it cannot load, a template or
    /// a grammar it cannot use.
    #[error("the built-in model failed: {0}")]
    Local(String),
    /// The provider's configuration is unusable (bad URL, header, missing key).
    #[error("the provider is misconfigured: {0}")]
    Config(String),
}

fn retry_hint(after: &Option<Duration>) -> String {
    after
        .map(|d| format!(" (retry after {}s)", d.as_secs()))
        .unwrap_or_default()
}

impl ProviderError {
    /// Whether retrying the same request may succeed (only done before the first token).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. } | Self::Server { .. } | Self::Network(_) | Self::Timeout(_)
        )
    }
}
