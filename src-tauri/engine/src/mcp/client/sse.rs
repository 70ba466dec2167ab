//! The legacy HTTP+SSE client transport (protocol revision 2024-11-05), which rmcp no longer
//! ships: GET an event stream, wait for its `endpoint` event (a URL, resolved against the
//! stream's URL and required to share its origin, so the spec's headers never travel
//! elsewhere), then POST every outgoing JSON-RPC message to that endpoint and read every
//! incoming one from the stream's `message` events. Redirects, of the stream and of the POSTs,
//! stay on the stream's origin too ([`super::redirect::same_origin`]).
//!
//! When the stream ends or fails, [`Transport::receive`] returns `None` (rmcp then closes the
//! connection) and later sends fail with [`SseError::Closed`], naming why.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use reqwest::Url;
use reqwest::header::{ACCEPT, HeaderMap};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::logging::error_chain;
use crate::vocab::mcp::McpError;

/// How many incoming messages may wait for the client before the stream reader pauses.
const INCOMING_BUFFER: usize = 64;
/// How much of an error answer's body an error message quotes.
const BODY_QUOTE_CHARS: usize = 200;

/// Why the transport failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SseError {
    /// POSTing a message to the endpoint failed or was refused.
    #[error("sending to the SSE server failed: {0}")]
    Post(String),
    /// The event stream is gone: nothing more can be exchanged.
    #[error("the SSE stream is closed: {0}")]
    Closed(String),
}

/// A connected legacy HTTP+SSE transport.
pub(crate) struct SseTransport {
    http: reqwest::Client,
    endpoint: Url,
    headers: HeaderMap,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    closed: Arc<OnceLock<String>>,
    reader: AbortHandle,
}

impl std::fmt::Debug for SseTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseTransport")
            .field("endpoint", &self.endpoint.as_str())
            .finish_non_exhaustive()
    }
}

impl SseTransport {
    /// Opens the event stream at `url` with `headers` and waits for its `endpoint` event.
    /// Fails with [`McpError::Connect`] when the stream cannot be opened or names a bad
    /// endpoint, and with [`McpError::Timeout`] when no endpoint arrives within `timeout`.
    pub(crate) async fn open(
        url: &str,
        headers: HeaderMap,
        timeout: Duration,
    ) -> Result<Self, McpError> {
        let base = Url::parse(url)
            .map_err(|e| McpError::Connect(format!("invalid SSE URL `{url}`: {e}")))?;
        let builder = reqwest::Client::builder().connect_timeout(timeout);
        let (http, _) = super::redirect::client(builder)?;
        let opening = open_stream(&http, &base, &headers);
        let (endpoint, events) = tokio::time::timeout(timeout, opening)
            .await
            .map_err(|_| McpError::Timeout { after: timeout })??;
        let (tx, incoming) = mpsc::channel(INCOMING_BUFFER);
        let closed = Arc::new(OnceLock::new());
        let reader = tokio::spawn(read_messages(events, tx, Arc::clone(&closed))).abort_handle();
        Ok(Self {
            http,
            endpoint,
            headers,
            incoming,
            closed,
            reader,
        })
    }

    /// The URL messages are POSTed to.
    #[cfg(test)]
    pub(crate) fn endpoint(&self) -> &Url {
        &self.endpoint
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = self
            .http
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .json(&item);
        let closed = Arc::clone(&self.closed);
        async move {
            if let Some(reason) = closed.get() {
                return Err(SseError::Closed(reason.clone()));
            }
            let response = request
                .send()
                .await
                .map_err(|e| SseError::Post(error_chain(&e)))?;
            let status = response.status();
            if status.is_success() {
                return Ok(());
            }
            let body = response.text().await.unwrap_or_default();
            let quoted: String = body.chars().take(BODY_QUOTE_CHARS).collect();
            Err(SseError::Post(format!(
                "the server answered {status}: {quoted}"
            )))
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        let _ = self.closed.set("closed by the client".to_owned());
        self.incoming.close();
        Ok(())
    }
}

/// A stream of server-sent events.
type Events = std::pin::Pin<
    Box<dyn Stream<Item = Result<Event, EventStreamError<reqwest::Error>>> + Send + 'static>,
>;

/// GETs the event stream and reads it up to the `endpoint` event.
async fn open_stream(
    http: &reqwest::Client,
    base: &Url,
    headers: &HeaderMap,
) -> Result<(Url, Events), McpError> {
    let response = http
        .get(base.clone())
        .headers(headers.clone())
        .header(ACCEPT, "text/event-stream")
        .send()
        .await
        .map_err(|e| {
            McpError::Connect(format!(
                "cannot open the SSE stream at {base}: {}",
                error_chain(&e)
            ))
        })?;
    let status = response.status();
    if !status.is_success() {
        return Err(McpError::Connect(format!(
            "the SSE stream at {base} answered {status}"
        )));
    }
    let mut events: Events = Box::pin(response.bytes_stream().eventsource());
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| {
            McpError::Connect(format!(
                "the SSE stream at {base} failed: {}",
                error_chain(&e)
            ))
        })?;
        if event.event == "endpoint" {
            return Ok((resolve_endpoint(base, event.data.trim())?, events));
        }
    }
    Err(McpError::Connect(format!(
        "the SSE stream at {base} ended before naming its endpoint"
    )))
}

/// Resolves the `endpoint` event's URL against the stream's and checks it has the same origin.
fn resolve_endpoint(base: &Url, data: &str) -> Result<Url, McpError> {
    let endpoint = base.join(data).map_err(|e| {
        McpError::Connect(format!(
            "the SSE server named an invalid endpoint `{data}`: {e}"
        ))
    })?;
    if endpoint.origin() != base.origin() {
        return Err(McpError::Connect(format!(
            "the SSE server named an endpoint on another origin ({endpoint}); refused"
        )));
    }
    Ok(endpoint)
}

/// Forwards every `message` event's JSON-RPC message until the stream ends, then records why.
async fn read_messages(
    mut events: Events,
    tx: mpsc::Sender<RxJsonRpcMessage<RoleClient>>,
    closed: Arc<OnceLock<String>>,
) {
    let reason = loop {
        match events.next().await {
            None => break "the server ended the event stream".to_owned(),
            Some(Err(e)) => break format!("the event stream failed: {}", error_chain(&e)),
            Some(Ok(event)) if event.event == "message" => {
                match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&event.data) {
                    Ok(message) => {
                        if tx.send(message).await.is_err() {
                            break "the client stopped reading".to_owned();
                        }
                    }
                    Err(e) => tracing::warn!("skipping an SSE message that is not JSON-RPC: {e}"),
                }
            }
            Some(Ok(_)) => {}
        }
    };
    tracing::warn!("SSE transport closed: {reason}");
    let _ = closed.set(reason);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_resolve_relative_to_the_stream_and_stay_on_its_origin() {
        let base = Url::parse("http://127.0.0.1:9/sse").expect("url");
        let relative = resolve_endpoint(&base, "/message?sessionId=abc").expect("relative");
        assert_eq!(
            relative.as_str(),
            "http://127.0.0.1:9/message?sessionId=abc"
        );
        let absolute = resolve_endpoint(&base, "http://127.0.0.1:9/m?x=1").expect("absolute");
        assert_eq!(absolute.as_str(), "http://127.0.0.1:9/m?x=1");
        let elsewhere = resolve_endpoint(&base, "http://example.com/m");
        assert!(matches!(elsewhere, Err(McpError::Connect(m)) if m.contains("another origin")));
    }
}
