//! The OpenAI-compatible API other apps call on the local server (`/v1/models`,
//! `/v1/chat/completions`, `/v1/embeddings`): any OpenAI client — the `openai` package, LangChain, an editor's
//! "custom OpenAI endpoint" — reaches the built-in model and every configured provider's
//! models through Switchboard, which speaks each provider's own wire format, holds the keys
//! (none crosses) and adds its prompt-based tool calling for models without native tools. The
//! routes sit behind the local server's checks (token, `Origin`, rate: `mcp::serve`). An
//! assistant is a model too (`assistant/NAME`): its prompt, model and MCP tools, the tools run
//! by Switchboard for the calling app (`agent::for_client`). This module owns the shapes
//! (`request`, `response`) and the model ids (`models`).

mod embeddings;
mod models;
mod request;
mod response;

use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::{Body, Bytes};
use axum::extract::DefaultBodyLimit;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use futures::StreamExt;
use serde_json::{Value, json};

use crate::agent::{Agent, OutsideCaller};
use crate::knowledge::Knowledge;
use crate::mcp::Authorized;
use crate::provider::prompt_tools::{ModeSwitch, ToolMode};
use crate::provider::{EventStream, Provider};
use crate::providers::Providers;
use crate::store::Store;
use crate::vocab::knowledge::EmbedderChoice;
use request::{BadRequest, Completion};
use response::{Chunks, Whole};

/// What the routes need: the agent (the providers, the store, assistants' answers) and the
/// knowledge bases' embedders.
#[derive(Clone, Debug)]
pub(crate) struct OpenAiApi {
    agent: Agent,
    knowledge: Knowledge,
}

impl OpenAiApi {
    /// The API over the profile's providers and assistants (through `agent`) and its
    /// embedders (`knowledge`).
    pub(crate) fn new(agent: Agent, knowledge: Knowledge) -> Self {
        Self { agent, knowledge }
    }

    fn providers(&self) -> &Providers {
        self.agent.providers()
    }

    fn store(&self) -> &Store {
        self.agent.store()
    }

    /// The routes, to be served behind the local server's checks.
    pub(crate) fn router(self) -> axum::Router {
        let chat = post(chat_completions).layer(DefaultBodyLimit::max(MAX_CHAT_BODY));
        axum::Router::new()
            .route("/v1/models", get(list_models))
            .route("/v1/chat/completions", chat)
            .route("/v1/embeddings", post(embed))
            .route("/v1/{*rest}", any(unknown_route))
            .with_state(self)
    }
}

/// The largest chat-completions body taken, bytes: room for a few images as `data:` URLs
/// (the other routes keep the local server's 4 MiB).
pub(crate) const MAX_CHAT_BODY: usize = 16 << 20;

/// A `/v1/…` path the API does not have, in OpenAI's error shape.
async fn unknown_route(uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        format!(
            "Switchboard serves /v1/models, /v1/chat/completions and /v1/embeddings, not {}",
            uri.path()
        ),
    )
}

/// An error in OpenAI's shape, which every OpenAI client raises with its message.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    kind: &'static str,
    code: Option<&'static str>,
    message: String,
    param: Option<String>,
}

impl ApiError {
    fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            kind,
            code: None,
            message: message.into(),
            param: None,
        }
    }
}

impl From<BadRequest> for ApiError {
    fn from(bad: BadRequest) -> Self {
        Self {
            param: bad.param,
            ..Self::new(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                bad.message,
            )
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {
            "message": self.message,
            "type": self.kind,
            "param": self.param,
            "code": self.code,
        }});
        (self.status, axum::Json(body)).into_response()
    }
}

/// An engine error met while answering: the provider's refusal as a bad gateway.
fn upstream(error: impl std::fmt::Display) -> ApiError {
    ApiError::new(StatusCode::BAD_GATEWAY, "upstream_error", error.to_string())
}

/// The store could not be read.
fn unavailable(error: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "server_error",
        error.to_string(),
    )
}

async fn list_models(State(api): State<OpenAiApi>) -> Result<Response, ApiError> {
    let records = api.store().list_providers().await.map_err(unavailable)?;
    let assistants = api.store().list_assistants().await.map_err(unavailable)?;
    let list = models::list(api.providers(), records, &assistants).await;
    Ok(axum::Json(list).into_response())
}

async fn chat_completions(
    State(api): State<OpenAiApi>,
    authorized: Option<axum::Extension<Authorized>>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let mut completion = request::parse(&body)?;
    let stream = if completion
        .model
        .to_ascii_lowercase()
        .starts_with(models::ASSISTANT)
    {
        let caller = OutsideCaller {
            client: authorized.map(|a| a.0.0),
        };
        api.assistant_answer(&completion, caller).await?
    } else {
        let provider = api.provider_for(&mut completion).await?;
        provider
            .stream(completion.request.clone())
            .await
            .map_err(upstream)?
    };
    let id = format!("chatcmpl-{}", uuid::Uuid::now_v7().simple());
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    if completion.stream {
        let chunks = Chunks::new(id, created, completion.model);
        Ok(sse(stream, chunks, completion.include_usage))
    } else {
        let whole = gather(stream).await?;
        Ok(axum::Json(whole.into_json(&id, created, &completion.model)).into_response())
    }
}

async fn embed(State(api): State<OpenAiApi>, body: Bytes) -> Result<Response, ApiError> {
    let request = embeddings::parse(&body)?;
    let records = api.store().list_providers().await.map_err(unavailable)?;
    let lower = request.model.to_ascii_lowercase();
    let choice = match models::resolve(&records, &request.model) {
        Some((record, _)) if record.kind == crate::provider::ProviderKind::Local => {
            EmbedderChoice::Builtin
        }
        Some((record, Some(model))) => EmbedderChoice::Provider {
            provider: record.id.clone(),
            model,
        },
        Some((record, None)) => {
            return Err(BadRequest {
                message: format!(
                    "name the embedding model: {}/MODEL (e.g. text-embedding-3-small, nomic-embed-text)",
                    models::slug(record)
                ),
                param: Some("model".into()),
            }
            .into());
        }
        None if lower == "local" || lower.starts_with("local/") => EmbedderChoice::Builtin,
        None => {
            return Err(not_found(format!(
                "no embedding model `{}`: `local` is the built-in embedder, PROVIDER/MODEL a provider's",
                request.model
            )));
        }
    };
    let embedder = match (api.knowledge.embedder_for(&choice).await, &choice) {
        (Ok(embedder), _) => embedder,
        // The built-in embedder is a file on this computer: its absence is ours, not upstream's.
        (Err(why), EmbedderChoice::Builtin) => {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "server_error",
                format!("the built-in embedder cannot be used: {why}"),
            ));
        }
        (Err(why), EmbedderChoice::Provider { .. }) => return Err(upstream(why)),
    };
    match embeddings::run(embedder, request).await? {
        Ok(body) => Ok(axum::Json(body).into_response()),
        Err(why) => Err(upstream(why)),
    }
}

/// A model id that names nothing.
fn not_found(message: String) -> ApiError {
    let mut error = ApiError::new(StatusCode::NOT_FOUND, "invalid_request_error", message);
    error.code = Some("model_not_found");
    error.param = Some("model".into());
    error
}

impl OpenAiApi {
    /// An assistant's answer: its provider, model, prompt and MCP tools, the tools run by
    /// Switchboard for the calling app.
    async fn assistant_answer(
        &self,
        completion: &Completion,
        caller: OutsideCaller,
    ) -> Result<EventStream, ApiError> {
        let assistants = self.store().list_assistants().await.map_err(unavailable)?;
        let Some(assistant) = models::assistant(&assistants, &completion.model) else {
            return Err(not_found(format!(
                "no assistant `{}`: GET /v1/models lists them as assistant/NAME",
                completion.model
            )));
        };
        if !completion.request.tools.is_empty() {
            let mut error = ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                "an assistant runs its own MCP tools in Switchboard; send your own tools to a provider's model (PROVIDER/MODEL) instead",
            );
            error.param = Some("tools".into());
            return Err(error);
        }
        self.agent
            .answer_for_client(assistant, completion.request.clone(), caller)
            .await
            .map_err(upstream)
    }
}

impl OpenAiApi {
    /// The client of the provider the id names, with the model filled into the request.
    async fn provider_for(
        &self,
        completion: &mut Completion,
    ) -> Result<Box<dyn Provider>, ApiError> {
        let records = self.store().list_providers().await.map_err(unavailable)?;
        let Some((record, model)) = models::resolve(&records, &completion.model) else {
            return Err(not_found(format!(
                "no model `{}`: ids are PROVIDER/MODEL as GET /v1/models lists them (local/… for the built-in model, assistant/NAME for an assistant)",
                completion.model
            )));
        };
        let model = match model {
            Some(model) => model,
            None => self
                .providers()
                .default_model(record)
                .await
                .ok_or_else(|| {
                    ApiError::new(
                        StatusCode::NOT_FOUND,
                        "invalid_request_error",
                        format!(
                            "the provider {} has no default model: name one as {}/MODEL",
                            record.name,
                            models::slug(record)
                        ),
                    )
                })?,
        };
        let mode = record
            .settings
            .tool_modes
            .get(&model)
            .copied()
            .unwrap_or(ToolMode::Auto);
        let client = self
            .providers()
            .client_of(record.clone())
            .await
            .map_err(upstream)?;
        completion.request.model = model;
        Ok(Box::new(ModeSwitch::new(client, mode)))
    }
}

/// Every event of an answer, gathered.
async fn gather(mut stream: EventStream) -> Result<Whole, ApiError> {
    let mut whole = Whole::default();
    while let Some(event) = stream.next().await {
        whole.push(event.map_err(upstream)?);
    }
    Ok(whole)
}

/// One server-sent event.
fn event(value: &Value) -> Bytes {
    Bytes::from(format!("data: {value}\n\n"))
}

/// The answer as server-sent events, ending with `data: [DONE]`. A provider error midway
/// is sent as an error event and ends the stream; a client that goes away drops the stream,
/// which stops the provider's request (or the built-in model's generation).
fn sse(stream: EventStream, chunks: Chunks, include_usage: bool) -> Response {
    let first = futures::stream::iter([event(&chunks.start())]);
    let state = (stream, chunks, false);
    let rest = futures::stream::unfold(state, move |(mut stream, mut chunks, done)| async move {
        if done {
            return None;
        }
        loop {
            match stream.next().await {
                Some(Ok(ev)) => {
                    if let Some(chunk) = chunks.event(ev) {
                        return Some((vec![event(&chunk)], (stream, chunks, false)));
                    }
                }
                Some(Err(error)) => {
                    let out = vec![event(&Chunks::error(&error.to_string()))];
                    return Some((out, (stream, chunks, true)));
                }
                None => {
                    let mut out = Vec::new();
                    if include_usage {
                        out.push(event(&chunks.usage()));
                    }
                    out.push(Bytes::from_static(b"data: [DONE]\n\n"));
                    return Some((out, (stream, chunks, true)));
                }
            }
        }
    })
    .flat_map(futures::stream::iter);
    let body = first.chain(rest).map(Ok::<_, std::convert::Infallible>);
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
