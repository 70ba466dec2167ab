//! Redirects of remote MCP transports (streamable HTTP and legacy SSE): followed only within
//! the origin the request started at (scheme, host and port, so never https → http) and only
//! when the status keeps the method and body (307, 308), at most [`MAX_REDIRECTS`] hops. A
//! redirect to another origin fails the request with [`CrossOrigin`], before anything (the
//! configured headers, a session id, the message) is sent there; a same-origin 301/302/303
//! is handed back to the caller as the answer (rmcp's own client does the same, since those
//! would turn a POST into a bodyless GET).

use reqwest::redirect::{Action, Attempt, Policy};

/// How many redirects one request may follow.
pub(crate) const MAX_REDIRECTS: usize = 10;

/// A redirect to another origin, refused.
#[derive(Debug, thiserror::Error)]
#[error(
    "the server at {from} redirected to another origin ({to}); refused so that its headers \
     stay with it (use that URL in the server's settings if you trust it)"
)]
pub(crate) struct CrossOrigin {
    /// The origin the request started at.
    pub from: String,
    /// The origin it was sent to.
    pub to: String,
}

/// Too many same-origin redirects.
#[derive(Debug, thiserror::Error)]
#[error("the server at {0} redirected more than {MAX_REDIRECTS} times; refused")]
pub(crate) struct TooMany(String);

/// The redirect policy of remote MCP transports (see the module header).
pub(crate) fn same_origin() -> Policy {
    Policy::custom(decide)
}

fn decide(attempt: Attempt) -> Action {
    let Some(first) = attempt.previous().first() else {
        return attempt.stop();
    };
    let from = first.origin();
    let to = attempt.url().origin();
    if from != to {
        let refused = CrossOrigin {
            from: from.ascii_serialization(),
            to: to.ascii_serialization(),
        };
        tracing::warn!("{refused}");
        return attempt.error(refused);
    }
    let keeps_body = matches!(
        attempt.status(),
        reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
    );
    if !keeps_body {
        return attempt.stop();
    }
    if attempt.previous().len() > MAX_REDIRECTS {
        return attempt.error(TooMany(from.ascii_serialization()));
    }
    attempt.follow()
}

/// An HTTP client for a remote MCP server: [`same_origin`] redirects, and no idle pooling
/// (as rmcp's own client: avoids stalls reusing a connection whose body was not read).
pub(crate) fn client(
    builder: reqwest::ClientBuilder,
) -> Result<reqwest::Client, crate::vocab::mcp::McpError> {
    builder
        .pool_max_idle_per_host(0)
        .redirect(same_origin())
        .build()
        .map_err(|e| {
            crate::vocab::mcp::McpError::Connect(format!("cannot create an HTTP client: {e}"))
        })
}
