//! Model providers: one neutral interface ([`Provider::stream`]) over every wire format the
//! users need. Each wire format is a [`WireFormat`]: how to build the HTTP request and how to
//! decode the streamed answer into [`ProviderEvent`]s; [`HttpProvider`] does the rest
//! (retries before the first token, error classification, idle timeouts, abort on drop).

pub(crate) mod anthropic;
pub(crate) mod dashscope;
pub mod embeddings;
mod error;
pub mod framing;
pub(crate) mod gemini;
mod http;
pub(crate) mod names;
pub(crate) mod ollama;
pub(crate) mod openai;
pub(crate) mod openai_reasoning;
pub mod presets;
pub mod prompt_tools;
pub(crate) mod strict;
pub(crate) mod think_tags;
mod types;

use std::collections::BTreeMap;
use std::pin::Pin;

use futures::future::BoxFuture;
use futures::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use crate::vocab::provider::ProviderKind;
pub use embeddings::EmbedPurpose;
pub use error::ProviderError;
pub use framing::{Frame, Framing, StreamParser};
pub use http::{HttpOptions, HttpProvider};
pub use types::*;

/// A stream of normalized events; it ends after `Finish` or with an error.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<ProviderEvent, ProviderError>> + Send>>;

/// A model a provider offers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// The id to send in requests.
    pub id: String,
    /// A display name, when the provider gives one.
    pub name: Option<String>,
}

/// The HTTP request a wire format wants sent.
#[derive(Clone, Debug, PartialEq)]
pub struct WireRequest {
    /// Path and query, appended to the base URL (which has no trailing slash).
    pub path: String,
    /// Extra headers for this request.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: serde_json::Value,
}

/// One wire format: request building and response decoding, with no I/O.
pub trait WireFormat: Send + Sync {
    /// How responses are framed.
    fn framing(&self) -> Framing;
    /// The streaming request for `req`.
    fn build(&self, req: &ChatRequest) -> Result<WireRequest, ProviderError>;
    /// Authentication headers for `key`.
    fn auth_headers(&self, key: &str) -> Vec<(String, String)>;
    /// A fresh decoder for one response.
    fn parser(&self) -> Box<dyn StreamParser>;
    /// The path that lists models.
    fn models_path(&self) -> String;
    /// The models in a model-list response.
    fn parse_models(&self, body: &serde_json::Value) -> Vec<ModelInfo>;
    /// The request that tells about `model` (its context window, whether it sees images),
    /// when the format has one.
    fn context_request(&self, model: &str) -> Option<ContextRequest> {
        let _ = model;
        None
    }
    /// `model`'s context window in the answer to [`WireFormat::context_request`], if it says.
    fn parse_context_window(&self, model: &str, body: &serde_json::Value) -> Option<u32> {
        let _ = (model, body);
        None
    }
    /// Whether `model` sees images, in the same answer, if it says.
    fn parse_vision(&self, model: &str, body: &serde_json::Value) -> Option<bool> {
        let _ = (model, body);
        None
    }
}

/// What a provider says about one of its models (each `None` when it does not say).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModelFacts {
    /// The context window in tokens.
    pub context_window: Option<u32>,
    /// Whether it takes images.
    pub vision: Option<bool>,
}

/// A request that asks a provider about one model (a GET, or a POST with a JSON body).
#[derive(Clone, Debug, PartialEq)]
pub struct ContextRequest {
    /// Path and query, appended to the base URL.
    pub path: String,
    /// The JSON body of a POST; `None` for a GET.
    pub body: Option<serde_json::Value>,
}

/// A JSON number as a token count.
pub(crate) fn tokens(v: &serde_json::Value) -> Option<u32> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n > 0)
}

/// The wire format of a kind. The built-in model (`Local`) never goes over HTTP (the providers
/// service builds its own client for it); it gets OpenAI's so that every kind has one.
pub fn wire_format(kind: ProviderKind) -> Box<dyn WireFormat> {
    match kind {
        ProviderKind::Openai | ProviderKind::Local => Box::new(openai::OpenAi),
        ProviderKind::Ollama => Box::new(ollama::Ollama),
        ProviderKind::Dashscope => Box::new(dashscope::DashScope),
        ProviderKind::Anthropic => Box::new(anthropic::Anthropic),
        ProviderKind::Gemini => Box::new(gemini::Gemini),
    }
}

/// A chat model endpoint.
pub trait Provider: Send + Sync {
    /// Starts a streamed answer to `req`.
    fn stream(&self, req: ChatRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>>;

    /// The models this endpoint offers.
    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>>;

    /// A whole answer: every event of [`Provider::stream`] collected.
    fn complete(
        &self,
        req: ChatRequest,
    ) -> BoxFuture<'_, Result<Vec<ProviderEvent>, ProviderError>> {
        Box::pin(async move {
            let mut stream = self.stream(req).await?;
            let mut events = Vec::new();
            while let Some(ev) = stream.next().await {
                events.push(ev?);
            }
            Ok(events)
        })
    }
}

impl<P: Provider + ?Sized> Provider for Box<P> {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
        (**self).stream(req)
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        (**self).list_models()
    }
}

/// Connection settings of one configured provider (the key is passed separately).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// The wire format.
    pub kind: ProviderKind,
    /// The base URL, e.g. `http://127.0.0.1:11434` or `https://api.openai.com/v1`.
    pub base_url: String,
    /// Extra headers sent with every request.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// OpenAI strict mode for tools whose schema allows it (api.openai.com supports it; many
    /// compatible servers reject the field).
    #[serde(default)]
    pub strict_tools: bool,
}
