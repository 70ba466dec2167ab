//! [`HttpProvider`]: sends a wire format's request over reqwest, retries with jittered backoff
//! while nothing has been emitted yet, classifies error responses, enforces an idle timeout
//! between chunks, and aborts the HTTP request when the event stream is dropped; it also asks
//! embedding endpoints for vectors (`embeddings`).

use std::time::Duration;

use futures::future::BoxFuture;
use futures::{StreamExt, stream};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};
use secrecy::{ExposeSecret, SecretString};

use super::embeddings::{self, EmbedPurpose};
use super::framing::decode;
use super::{
    ChatRequest, Endpoint, EventStream, ModelFacts, ModelInfo, Provider, ProviderError, WireFormat,
    WireRequest, wire_format,
};

/// Timeouts and retry policy.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpOptions {
    /// Connecting and waiting for response headers.
    pub connect_timeout: Duration,
    /// The longest silence allowed between two chunks of a streamed answer.
    pub idle_timeout: Duration,
    /// Attempts in all (1 = no retry), only while nothing has been emitted.
    pub attempts: u32,
    /// The first backoff; doubled each retry, with ±50 % jitter.
    pub backoff: Duration,
    /// The longest wait honoured from a `Retry-After` header.
    pub max_retry_after: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(300),
            attempts: 3,
            backoff: Duration::from_millis(500),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

/// A provider reached over HTTP with one wire format.
pub struct HttpProvider {
    endpoint: Endpoint,
    key: Option<SecretString>,
    format: Box<dyn WireFormat>,
    client: reqwest::Client,
    options: HttpOptions,
}

impl std::fmt::Debug for HttpProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpProvider")
            .field("endpoint", &self.endpoint)
            .field("key", &self.key.as_ref().map(|_| "[REDACTED]"))
            .finish_non_exhaustive()
    }
}

impl HttpProvider {
    /// A provider for `endpoint`, authenticating with `key` when given.
    pub fn new(
        endpoint: Endpoint,
        key: Option<SecretString>,
        options: HttpOptions,
    ) -> Result<Self, ProviderError> {
        let client = Self::client(&options)?;
        Ok(Self::with_client(endpoint, key, options, client))
    }

    /// An HTTP client for `options`: share one across providers (building one loads TLS
    /// roots, and a shared one reuses connections).
    pub fn client(options: &HttpOptions) -> Result<reqwest::Client, ProviderError> {
        reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .tcp_nodelay(true)
            .build()
            .map_err(|e| ProviderError::Config(e.to_string()))
    }

    /// A provider on an existing client (see [`HttpProvider::client`]).
    pub fn with_client(
        endpoint: Endpoint,
        key: Option<SecretString>,
        options: HttpOptions,
        client: reqwest::Client,
    ) -> Self {
        Self {
            format: wire_format(endpoint.kind),
            endpoint,
            key,
            client,
            options,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.endpoint.base_url.trim_end_matches('/'))
    }

    fn headers(&self, extra: &[(String, String)]) -> Result<HeaderMap, ProviderError> {
        let mut map = HeaderMap::new();
        let auth = match &self.key {
            Some(k) if !k.expose_secret().is_empty() => self.format.auth_headers(k.expose_secret()),
            _ => Vec::new(),
        };
        let configured = self
            .endpoint
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()));
        for (k, v) in auth
            .into_iter()
            .chain(configured)
            .chain(extra.iter().cloned())
        {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|_| ProviderError::Config(format!("invalid header name {k:?}")))?;
            let mut value = HeaderValue::from_str(&v)
                .map_err(|_| ProviderError::Config(format!("invalid value for header {k}")))?;
            value.set_sensitive(true);
            map.insert(name, value);
        }
        Ok(map)
    }

    /// One attempt: send, check the status, and return the event stream.
    async fn attempt(&self, req: &ChatRequest) -> Result<EventStream, ProviderError> {
        let mut wire = self.format.build(req)?;
        if self.endpoint.strict_tools && self.endpoint.kind == super::ProviderKind::Openai {
            super::strict::apply(&mut wire.body);
        }
        let response = self
            .client
            .post(self.url(&wire.path))
            .headers(self.headers(&wire.headers)?)
            .json(&wire.body)
            .timeout(self.options.connect_timeout.max(self.options.idle_timeout))
            .send();
        let response = tokio::time::timeout(self.options.connect_timeout, response)
            .await
            .map_err(|_| ProviderError::Timeout(self.options.connect_timeout))?
            .map_err(network_error)?;
        let response = check_status(response, &req.model, self.options.max_retry_after).await?;
        let body = idle_limited(response.bytes_stream(), self.options.idle_timeout);
        Ok(Box::pin(decode(
            body,
            self.format.framing(),
            self.format.parser(),
        )))
    }

    /// Sends with retries; a stream whose first item is an error counts as a failed attempt.
    async fn stream_with_retries(&self, req: ChatRequest) -> Result<EventStream, ProviderError> {
        let mut tries = 0;
        loop {
            tries += 1;
            let result: Result<(), ProviderError> = match self.attempt(&req).await {
                Ok(mut events) => match events.next().await {
                    Some(Ok(first)) => {
                        return Ok(Box::pin(stream::once(async { Ok(first) }).chain(events)));
                    }
                    Some(Err(e)) => Err(e),
                    None => return Ok(Box::pin(stream::empty())),
                },
                Err(e) => Err(e),
            };
            let Err(err) = result else { continue };
            if !err.is_retryable() || tries >= self.options.attempts {
                return Err(err);
            }
            let wait = backoff(&err, self.options.backoff, tries);
            tracing::warn!(attempt = tries, ?wait, error = %err, "retrying the model request");
            tokio::time::sleep(wait).await;
        }
    }
}

impl HttpProvider {
    /// What the provider says about `model` (its context window, whether it sees images), in
    /// one request: nothing when the format has no way to ask or the answer does not say; an
    /// error when asking failed.
    pub async fn model_facts(&self, model: &str) -> Result<ModelFacts, ProviderError> {
        let Some(ask) = self.format.context_request(model) else {
            return Ok(ModelFacts::default());
        };
        let request = match &ask.body {
            Some(body) => self.client.post(self.url(&ask.path)).json(body),
            None => self.client.get(self.url(&ask.path)),
        };
        let response = request
            .headers(self.headers(&[])?)
            .timeout(self.options.connect_timeout)
            .send()
            .await
            .map_err(network_error)?;
        let response = check_status(response, model, self.options.max_retry_after).await?;
        let body = read_json(response, "the model's details").await?;
        Ok(ModelFacts {
            context_window: self.format.parse_context_window(model, &body),
            vision: self.format.parse_vision(model, &body),
        })
    }
}

impl HttpProvider {
    /// The unit-length vectors of `texts` from embedding model `model`, in order, asked for in
    /// groups the endpoint takes; a failed group is tried again like a chat request.
    pub async fn embed(
        &self,
        model: &str,
        texts: &[String],
        purpose: EmbedPurpose,
    ) -> Result<Vec<Vec<f32>>, ProviderError> {
        let limit = embeddings::batch_limit(self.endpoint.kind).unwrap_or(1);
        let mut vectors = Vec::with_capacity(texts.len());
        for group in texts.chunks(limit) {
            let ask = embeddings::request(self.endpoint.kind, model, group, purpose)?;
            let mut tries = 0;
            let body = loop {
                tries += 1;
                match self.post_json(&ask, model).await {
                    Ok(body) => break body,
                    Err(err) if err.is_retryable() && tries < self.options.attempts => {
                        tokio::time::sleep(backoff(&err, self.options.backoff, tries)).await;
                    }
                    Err(err) => return Err(err),
                }
            };
            let found = embeddings::parse(self.endpoint.kind, &body, group.len())?;
            vectors.extend(found.into_iter().map(unit));
        }
        Ok(vectors)
    }

    /// Posts `ask` and reads the JSON answer (the whole exchange bounded by [`EMBED_WAIT`]).
    async fn post_json(
        &self,
        ask: &WireRequest,
        model: &str,
    ) -> Result<serde_json::Value, ProviderError> {
        let response = self
            .client
            .post(self.url(&ask.path))
            .headers(self.headers(&ask.headers)?)
            .json(&ask.body)
            .timeout(EMBED_WAIT)
            .send()
            .await
            .map_err(network_error)?;
        let response = check_status(response, model, self.options.max_retry_after).await?;
        read_json(response, "the embedding answer").await
    }
}

/// The longest one embedding request may take, answer read: a group of 100 passages takes a
/// few seconds; a server that takes a minute is treated as down.
const EMBED_WAIT: Duration = Duration::from_secs(60);

/// `v` scaled to unit length (providers differ in whether they normalise).
fn unit(v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.into_iter().map(|x| x / norm).collect()
    } else {
        v
    }
}

impl Provider for HttpProvider {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
        Box::pin(self.stream_with_retries(req))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async move {
            let response = self
                .client
                .get(self.url(&self.format.models_path()))
                .headers(self.headers(&[])?)
                .timeout(self.options.connect_timeout)
                .send()
                .await
                .map_err(network_error)?;
            let response = check_status(response, "", self.options.max_retry_after).await?;
            let body = read_json(response, "the model list").await?;
            Ok(self.format.parse_models(&body))
        })
    }
}

/// The largest model list or model details answer read: a few hundred models take well under
/// a megabyte; a bigger answer is refused before it fills memory.
const MAX_JSON_ANSWER_BYTES: usize = 8 * 1024 * 1024;

/// Reads `response`'s body as JSON, at most [`MAX_JSON_ANSWER_BYTES`] of it (stops reading at
/// the limit); `what` names it in errors ("the model list").
async fn read_json(
    response: reqwest::Response,
    what: &str,
) -> Result<serde_json::Value, ProviderError> {
    let too_large = || {
        ProviderError::MalformedStream(format!(
            "{what} is larger than {} MiB; refused",
            MAX_JSON_ANSWER_BYTES / (1024 * 1024)
        ))
    };
    if response
        .content_length()
        .is_some_and(|n| n > MAX_JSON_ANSWER_BYTES as u64)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(network_error)?;
        if chunk.len() > MAX_JSON_ANSWER_BYTES - body.len() {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body)
        .map_err(|e| ProviderError::MalformedStream(format!("{what} is not JSON: {e}")))
}

fn network_error(e: reqwest::Error) -> ProviderError {
    if e.is_timeout() {
        return ProviderError::Timeout(Duration::ZERO);
    }
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        msg = format!("{msg}: {s}");
        source = s.source();
    }
    ProviderError::Network(format!("the connection failed or broke: {msg}"))
}

/// The wait before retry `tries`: the server's `Retry-After` if it gave one, else jittered
/// exponential backoff.
fn backoff(err: &ProviderError, base: Duration, tries: u32) -> Duration {
    if let ProviderError::RateLimited {
        retry_after: Some(d),
        ..
    } = err
    {
        return *d;
    }
    let exp = base.saturating_mul(1 << (tries - 1).min(8));
    exp.mul_f64(0.5 + fastrand::f64())
}

/// Fails the stream with a timeout when no chunk arrives within `idle`.
fn idle_limited<S>(
    body: S,
    idle: Duration,
) -> impl futures::Stream<Item = Result<bytes::Bytes, ProviderError>> + Send + Unpin + 'static
where
    S: futures::Stream<Item = Result<bytes::Bytes, reqwest::Error>> + Send + 'static,
{
    let body = Box::pin(body);
    Box::pin(stream::unfold(
        (body, false),
        move |(mut body, done)| async move {
            if done {
                return None;
            }
            match tokio::time::timeout(idle, body.next()).await {
                Ok(Some(Ok(b))) => Some((Ok(b), (body, false))),
                Ok(Some(Err(e))) => Some((Err(network_error(e)), (body, true))),
                Ok(None) => None,
                Err(_) => Some((Err(ProviderError::Timeout(idle)), (body, true))),
            }
        },
    ))
}

/// Passes a successful response; turns an error status into a typed error.
async fn check_status(
    response: reqwest::Response,
    model: &str,
    max_retry_after: Duration,
) -> Result<reqwest::Response, ProviderError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let retry_after = response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|s| Duration::from_secs(s).min(max_retry_after));
    let body = error_body(response).await;
    Err(classify(status.as_u16(), &body, model, retry_after))
}

/// The most of an error answer's body read (the rest is not waited for).
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// An error answer's body as text, its first [`MAX_ERROR_BODY_BYTES`] only.
async fn error_body(response: reqwest::Response) -> String {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(Ok(chunk)) = chunks.next().await {
        let room = MAX_ERROR_BODY_BYTES - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() == MAX_ERROR_BODY_BYTES {
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// Maps an error status and body to a typed error.
pub(crate) fn classify(
    status: u16,
    body: &str,
    model: &str,
    retry_after: Option<Duration>,
) -> ProviderError {
    let message = error_message(body);
    let lower = message.to_lowercase();
    let mentions = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    match status {
        401 | 403 => ProviderError::Auth { status, message },
        429 => ProviderError::RateLimited {
            retry_after,
            message,
        },
        404 if mentions(&["model"]) || !model.is_empty() => ProviderError::ModelNotFound {
            model: model.to_owned(),
            message,
        },
        400..=499
            if mentions(&[
                "context length",
                "context window",
                "maximum context",
                "too long",
                "context_length",
            ]) =>
        {
            ProviderError::ContextLengthExceeded { message }
        }
        400..=499
            if mentions(&[
                "does not support tools",
                "tools is not supported",
                "tool use is not supported",
                "function calling is not",
            ]) =>
        {
            ProviderError::ToolsUnsupported { message }
        }
        400..=499 => ProviderError::BadRequest { status, message },
        _ => ProviderError::Server { status, message },
    }
}

/// The human-readable part of an error body: `error.message`, `error` (a string), `message`,
/// or the body itself, shortened.
fn error_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let from_json = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .and_then(|m| m.as_str())
            .map(str::to_owned)
    });
    let text = from_json.unwrap_or_else(|| body.trim().to_owned());
    if text.is_empty() {
        return "no details given".into();
    }
    text.chars().take(500).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_of_each_shape_are_classified() {
        let openai = r#"{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error"}}"#;
        assert!(matches!(
            classify(400, openai, "m", None),
            ProviderError::ContextLengthExceeded { .. }
        ));
        let ollama = r#"{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}"#;
        assert!(matches!(
            classify(400, ollama, "m", None),
            ProviderError::ToolsUnsupported { .. }
        ));
        let missing = r#"{"error":"model \"nope\" not found, try pulling it first"}"#;
        assert_eq!(
            classify(404, missing, "nope", None),
            ProviderError::ModelNotFound {
                model: "nope".into(),
                message: "model \"nope\" not found, try pulling it first".into()
            }
        );
        assert_eq!(
            classify(503, "", "m", None),
            ProviderError::Server {
                status: 503,
                message: "no details given".into()
            }
        );
    }
}
