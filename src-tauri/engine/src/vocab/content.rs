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
        /// The file name it was attached as, if any (an export keeps it, so an import
        /// gives back the same message).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        name: Option<String>,
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
    /// An image the user attached, stored once in the blob store by its content hash.
    ImageRef(ImageRef),
    /// A text, code or PDF file the user attached, as the text the model is sent.
    File(FileText),
}

/// An image attached to a user message: its bytes live once in the blob store, keyed by the
/// SHA-256 of the (downscaled) bytes, however many messages show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImageRef {
    /// Lowercase hex SHA-256 of the stored bytes.
    pub hash: String,
    /// MIME type of the stored bytes (`image/png`, `image/jpeg`, …).
    pub mime_type: String,
    /// Width in pixels, as stored (after downscaling).
    pub width: u32,
    /// Height in pixels, as stored.
    pub height: u32,
    /// The file name it was attached as, if any.
    pub name: Option<String>,
}

/// A text, code or PDF file attached to a user message, inlined for the model as a fenced block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileText {
    /// The file name it was attached as.
    pub name: String,
    /// The fence's language (from the extension), empty when unknown.
    pub language: String,
    /// The file's text (for a PDF, the extracted text of its first pages).
    pub text: String,
    /// The tokens the text costs, estimated when attached.
    pub tokens: u32,
    /// For a PDF: how many pages it has, and how many were extracted.
    pub pages: Option<PdfPages>,
}

/// How much of a PDF was extracted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PdfPages {
    /// Pages in the document.
    pub total: u32,
    /// Pages whose text was taken (the first ones, up to the page limit).
    pub extracted: u32,
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
