//! The vocabulary of the servers' requests to the user, in our own types: what a sampling
//! request asks and what the model answered; what an elicitation asks and what the user
//! replied. The client converts rmcp's wire types to and from these.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// The author of a sampling message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SamplingRole {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One piece of a sampling message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SamplingContent {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64.
    Image {
        /// Its MIME type.
        mime: String,
        /// Base64 data.
        data: String,
    },
    /// Audio, base64 (shown to the user; not sent to chat models).
    Audio {
        /// Its MIME type.
        mime: String,
        /// Base64 data.
        data: String,
    },
    /// A part we do not forward (tool use or tool results in sampling), named by its type.
    Unsupported {
        /// The wire type, e.g. `tool_use`.
        kind: String,
    },
}

/// One message of a sampling request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SamplingMessage {
    /// Who wrote it.
    pub role: SamplingRole,
    /// Its parts, in order.
    pub content: Vec<SamplingContent>,
}

/// What a server asks a model to do (`sampling/createMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SamplingRequest {
    /// The conversation to answer.
    pub messages: Vec<SamplingMessage>,
    /// The server's system prompt, if any.
    pub system_prompt: Option<String>,
    /// The most tokens to generate.
    pub max_tokens: u32,
    /// The temperature, if given.
    pub temperature: Option<f64>,
    /// Stop sequences.
    pub stop_sequences: Vec<String>,
    /// The server's model name hints, most preferred first (advisory).
    pub model_hints: Vec<String>,
}

/// Why the model stopped, in MCP's words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// A natural end (`endTurn`).
    EndTurn,
    /// The token limit (`maxTokens`).
    MaxTokens,
    /// A stop sequence (`stopSequence`).
    StopSequence,
    /// Anything else the provider said.
    Other(String),
}

impl StopReason {
    /// The wire value of `CreateMessageResult.stopReason`.
    pub fn as_wire(&self) -> &str {
        match self {
            Self::EndTurn => "endTurn",
            Self::MaxTokens => "maxTokens",
            Self::StopSequence => "stopSequence",
            Self::Other(other) => other,
        }
    }
}

/// A model's answer to a sampling request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SamplingResult {
    /// The model that answered.
    pub model: String,
    /// Its text.
    pub text: String,
    /// Why it stopped.
    pub stop_reason: StopReason,
}

/// What a server asks the user (`elicitation/create`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ElicitationRequest {
    /// Fill in a form.
    Form {
        /// What the server wants and why.
        message: String,
        /// The JSON Schema of the answer (flat object of primitives).
        requested_schema: Value,
    },
    /// Open a URL in the browser (e.g. to sign in somewhere).
    Url {
        /// What the server wants and why.
        message: String,
        /// The page to open.
        url: String,
    },
}

/// The user's reply to an elicitation, as sent to the server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ElicitationReply {
    /// Accepted, with the form's content (none for URL mode).
    Accept(Option<Value>),
    /// Declined explicitly.
    Decline,
    /// Dismissed without a choice (also: timed out, server stopped).
    Cancel,
}

/// Why a sampling request was not answered with a model's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SamplingRefused {
    /// This host does not do sampling.
    #[error("this client does not support sampling")]
    Unsupported,
    /// The user denied it.
    #[error("the user rejected the sampling request")]
    Denied,
    /// The user did not answer in time.
    #[error("the user did not answer the sampling request within {0:?}")]
    TimedOut(Duration),
    /// The server stopped while it waited.
    #[error("the sampling request was cancelled")]
    Cancelled,
    /// The model failed.
    #[error("sampling failed: {0}")]
    Failed(String),
    /// The server made more sampling requests than its rate allows; nobody was asked.
    #[error("too many sampling requests from this server; try again in {retry_after:?}")]
    RateLimited {
        /// How long until a request would be admitted.
        retry_after: Duration,
    },
}
