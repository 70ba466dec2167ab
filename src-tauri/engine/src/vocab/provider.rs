//! What the parts say about model providers: the wire formats ([`ProviderKind`]), how tools
//! reach a model ([`ToolMode`]) and token counts ([`Usage`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The wire formats Switchboard speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// OpenAI Chat Completions and every compatible server.
    Openai,
    /// Ollama's native `/api/chat`.
    Ollama,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `streamGenerateContent`.
    Gemini,
    /// Alibaba DashScope's native text-generation API.
    Dashscope,
    /// The built-in model: GGUF files from the models folder, run in process by llama.cpp
    /// (no HTTP, no key).
    Local,
}

/// How tools reach a model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolMode {
    /// The endpoint's native function calling.
    Native,
    /// Tools described in the system prompt, calls read from the reply text.
    Prompt,
    /// Native, falling back to prompt mode (and remembering it) when the endpoint refuses tools.
    #[default]
    Auto,
}

/// Token usage reported by the provider.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
}
