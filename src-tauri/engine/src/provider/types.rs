//! The provider-neutral request and event vocabulary every adapter speaks: a [`ChatRequest`]
//! goes in, a stream of [`ProviderEvent`]s comes out.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use crate::vocab::Usage;

/// One model call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The model id as the provider knows it.
    pub model: String,
    /// The system prompt, sent the way the wire format wants it.
    pub system: Option<String>,
    /// The conversation so far, oldest first.
    pub messages: Vec<ChatMessage>,
    /// Tools the model may call, under provider-safe names.
    pub tools: Vec<ToolSpec>,
    /// Sampling parameters.
    pub params: SamplingParams,
    /// Reasoning asked of the model (`None`: the provider's default), sent in each wire
    /// format's own field.
    pub thinking: Option<Thinking>,
    /// The context window the user chose, for formats that size it per request (Ollama's
    /// `num_ctx`); `None` leaves the server's.
    pub context_window: Option<u32>,
    /// Provider-specific top-level body fields (e.g. Ollama's `keep_alive`), merged last.
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl ChatRequest {
    /// Merges `extra` into a request body object.
    pub fn merge_extra(&self, body: &mut serde_json::Value) {
        if let Some(obj) = body.as_object_mut() {
            for (k, v) in &self.extra {
                obj.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Reasoning ("thinking") asked of the model: each wire format sends it in its own field
/// (OpenAI `reasoning_effort`, Anthropic `thinking.budget_tokens`, Gemini `thinkingConfig`,
/// DashScope `enable_thinking`/`thinking_budget`, Ollama `think`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct Thinking {
    /// Reasoning on (true) or suppressed (false) where the model has the switch.
    pub enabled: bool,
    /// How hard to think, for formats that take a level.
    #[ts(optional)]
    pub effort: Option<ReasoningEffort>,
    /// The most reasoning tokens, for formats that take a budget.
    #[ts(optional)]
    pub budget_tokens: Option<u32>,
}

impl Thinking {
    /// Reasoning switched on with no level or budget.
    pub fn on() -> Self {
        Self {
            enabled: true,
            ..Self::default()
        }
    }

    /// The budget to send where a format takes one: the one given, else one for the effort.
    pub fn budget(&self) -> Option<u32> {
        self.budget_tokens
            .or_else(|| self.effort.map(ReasoningEffort::budget))
    }
}

/// A reasoning level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningEffort {
    /// Little reasoning.
    Low,
    /// The usual.
    Medium,
    /// As much as the model will.
    High,
}

impl ReasoningEffort {
    /// Its name on the wire (OpenAI's `reasoning_effort`, Ollama's `think`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }

    /// A token budget standing for the level, for formats that take a budget.
    pub fn budget(self) -> u32 {
        match self {
            Self::Low => 1024,
            Self::Medium => 4096,
            Self::High => 16384,
        }
    }
}

/// Sampling parameters; `None` leaves the provider's default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingParams {
    /// Temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    pub top_p: Option<f64>,
    /// The most tokens to generate.
    pub max_tokens: Option<u32>,
    /// Stop sequences.
    pub stop: Vec<String>,
    /// A seed, where supported.
    pub seed: Option<u64>,
}

/// One message of the conversation as sent to a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    /// The user: text and images.
    User {
        /// The parts, in order.
        parts: Vec<UserPart>,
    },
    /// The model's earlier turn: text, and the tools it called.
    Assistant {
        /// Its text (may be empty when it only called tools).
        text: String,
        /// The calls it made, each answered by a later `Tool` message.
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call.
    Tool {
        /// The call this answers.
        call_id: String,
        /// The provider-safe tool name of that call.
        name: String,
        /// The result as text (JSON or prose).
        content: String,
        /// Whether the tool failed.
        is_error: bool,
    },
}

impl ChatMessage {
    /// Splits a conversation before every user message: its exchanges (a user message and
    /// everything up to the next one), which are kept or left out whole.
    pub fn exchanges(messages: Vec<ChatMessage>) -> Vec<Vec<ChatMessage>> {
        let mut groups: Vec<Vec<ChatMessage>> = Vec::new();
        for m in messages {
            let starts = matches!(m, ChatMessage::User { .. }) || groups.is_empty();
            if starts {
                groups.push(vec![m]);
            } else if let Some(last) = groups.last_mut() {
                last.push(m);
            }
        }
        groups
    }

    /// A user message of plain text.
    pub fn user(text: impl Into<String>) -> Self {
        Self::User {
            parts: vec![UserPart::Text { text: text.into() }],
        }
    }
}

/// A part of a user message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UserPart {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64.
    Image {
        /// MIME type.
        mime_type: String,
        /// Base64 data.
        data: String,
    },
}

impl UserPart {
    /// The text parts of a user message joined by newlines (for formats that take one string).
    pub fn text_of(parts: &[UserPart]) -> String {
        let texts: Vec<&str> = parts
            .iter()
            .filter_map(|p| match p {
                UserPart::Text { text } => Some(text.as_str()),
                UserPart::Image { .. } => None,
            })
            .collect();
        texts.join("\n")
    }
}

/// A tool the model may call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The provider-safe name (see `names`).
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its input JSON Schema.
    pub parameters: serde_json::Value,
}

/// A complete tool call from the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The call id: the provider's, or a stable one we made when it sent none.
    pub id: String,
    /// The provider-safe tool name.
    pub name: String,
    /// The parsed arguments (an object).
    pub arguments: serde_json::Value,
}

/// Why the model stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end.
    Stop,
    /// The token limit.
    Length,
    /// It wants tool results.
    ToolCalls,
    /// A safety filter.
    ContentFilter,
    /// Anything else the provider said.
    Other(String),
}

/// One normalized event of a model's streamed answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProviderEvent {
    /// More answer text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// More reasoning text.
    ReasoningDelta {
        /// The new text.
        text: String,
    },
    /// A tool call, complete with parsed arguments.
    ToolCall {
        /// The call.
        call: ToolCall,
    },
    /// A tool call whose arguments are not valid JSON; the agent feeds the error back.
    ToolCallInvalid {
        /// The call id.
        id: String,
        /// The tool name.
        name: String,
        /// The raw argument text.
        raw: String,
        /// What is wrong with it.
        error: String,
    },
    /// Token usage.
    Usage {
        /// The counts.
        usage: Usage,
    },
    /// The end of the answer.
    Finish {
        /// Why it ended.
        reason: FinishReason,
    },
}

impl ProviderEvent {
    /// A text delta.
    pub fn text(text: impl Into<String>) -> Self {
        Self::TextDelta { text: text.into() }
    }
}
