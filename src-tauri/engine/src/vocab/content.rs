//! The parts a message is made of, provider-neutral and stored as JSON in `messages.content`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::mcp::ResourceBody;

/// One part of a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// Plain or Markdown text.
    Text {
        /// The text.
        text: String,
    },
    /// The model's reasoning, shown collapsed.
    Reasoning {
        /// The reasoning text.
        text: String,
    },
    /// An image, inline as base64.
    Image {
        /// MIME type, e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Base64 data.
        data: String,
    },
    /// A call the model asked for.
    ToolCall {
        /// The call id (the provider's, or one we synthesized).
        id: String,
        /// The MCP server that owns the tool.
        server: String,
        /// The tool's name on that server.
        tool: String,
        /// The arguments as the model sent them.
        arguments: serde_json::Value,
    },
    /// The result of a call.
    ToolResult {
        /// The id of the call this answers.
        #[serde(rename = "callId")]
        call_id: String,
        /// The normalized result content.
        content: serde_json::Value,
        /// Whether the tool reported an error.
        #[serde(rename = "isError")]
        is_error: bool,
    },
    /// An MCP resource the user attached to a message (its contents as read when attached).
    Resource(Attachment),
}

/// A resource attached to a user message: where it came from and its contents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    /// The MCP server it was read from.
    pub server: String,
    /// Its URI.
    pub uri: String,
    /// A name to show (the resource's title or name).
    pub name: String,
    /// Its MIME type, if known.
    pub mime_type: Option<String>,
    /// Its contents: text, or base64 bytes.
    pub body: ResourceBody,
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }
}
