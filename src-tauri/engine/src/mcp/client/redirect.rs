//! Redirects of remote MCP transports (streamable HTTP and legacy SSE): followed only within
//! the origin the request started at (scheme, host and port, so never https → http) and only
//! when the status keeps the method and body (307, 308), at most [`MAX_REDIRECTS`] hops. A
//! redirect to another origin fails the request with [`CrossOrigin`], before anything (the
//! configured headers, a session id, the message) is sent there; a same-origin 301/302/303
//! is handed back to the caller as the answer (rmcp's own client does the same, since those
//! would turn a POST into a bodyless GET).

use std::sync::{Arc, Mutex};

use reqwest::redirect::{Action, Attempt, Policy};

use crate::vocab::mcp::McpError;

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

/// The last redirect refused on a client (see [`client`]), so a failed connection can say why
/// (rmcp quotes the HTTP client's error without its causes).
#[derive(Clone, Debug, Default)]
pub(crate) struct Refused(Arc<Mutex<Option<String>>>);

impl Refused {
    /// `error`, or the refused redirect that caused it (said plainly).
    pub(crate) fn explain(&self, error: McpError) -> McpError {
        let refused = match self.0.lock() {
            Ok(mut slot) => slot.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        match refused {
            Some(why) => McpError::Connect(why),
            None => error,
        }
    }

    fn note(&self, why: String) {
        match self.0.lock() {
            Ok(mut slot) => *slot = Some(why),
            Err(poisoned) => *poisoned.into_inner() = Some(why),
        }
    }
}

/// The redirect policy of remote MCP transports (see the module header); refusals are noted
/// in `refused`.
pub(crate) fn same_origin(refused: Refused) -> Policy {
    Policy::custom(move |attempt| decide(attempt, &refused))
}

fn decide(attempt: Attempt, refused: &Refused) -> Action {
    let Some(first) = attempt.previous().first() else {
        return attempt.stop();
    };
    let from = first.origin();
    let to = attempt.url().origin();
    if from != to {
        let refusal = CrossOrigin {
            from: from.ascii_serialization(),
            to: to.ascii_serialization(),
        };
        tracing::warn!("{refusal}");
        refused.note(refusal.to_string());
        return attempt.error(refusal);
    }
    let keeps_body = matches!(
        attempt.status(),
        reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
    );
    if !keeps_body {
        return attempt.stop();
    }
    if attempt.previous().len() > MAX_REDIRECTS {
        let refusal = TooMany(from.ascii_serialization());
        refused.note(refusal.to_string());
        return attempt.error(refusal);
    }
    attempt.follow()
}

/// An HTTP client for a remote MCP server: [`same_origin`] redirects, and no idle pooling
/// (as rmcp's own client: avoids stalls reusing a connection whose body was not read); and
/// where it notes the redirects it refuses.
pub(crate) fn client(
    builder: reqwest::ClientBuilder,
) -> Result<(reqwest::Client, Refused), McpError> {
    let refused = Refused::default();
    let client = builder
        .pool_max_idle_per_host(0)
        .redirect(same_origin(refused.clone()))
        .build()
        .map_err(|e| McpError::Connect(format!("cannot create an HTTP client: {e}")))?;
    Ok((client, refused))
}
