//! Conversation export and import. Export writes Markdown (readable anywhere), lossless
//! versioned JSON, or self-contained HTML for one conversation, a selection or all of them;
//! import reads our JSON (merged by id), ChatGPT's and Claude's `conversations.json`.
//!
//! Only conversations and messages are read: provider keys, OAuth tokens and MCP server
//! configurations (with their environment) are never part of an export.

mod assets;
pub mod chatgpt;
pub mod claude;
mod error;
mod highlight;
pub mod html;
pub mod import;
pub mod json;
pub mod markdown;
mod names;
#[cfg(test)]
mod tests;
mod tree;
mod write;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use assets::{Assets, DirAssets, MemoryAssets};
pub use error::ExportError;
pub use import::{ImportResult, ImportSource, import_file, parse_import};
pub use names::file_stem;
pub use write::{ExportProgress, ExportSummary, export};

/// The output format of an export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// Markdown, images beside the file.
    #[serde(rename = "md")]
    Markdown,
    /// Lossless, versioned JSON (one file).
    Json,
    /// Self-contained HTML.
    Html,
}

/// Which conversations to export.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ExportScope {
    /// Every conversation, archived ones too.
    All,
    /// These conversations, in this order.
    Ids {
        /// Their ids.
        ids: Vec<String>,
    },
    /// The conversations with a message matching a search.
    Search {
        /// The search words.
        query: String,
    },
}

/// What to export, how and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportRequest {
    /// The format.
    pub format: ExportFormat,
    /// The conversations.
    pub scope: ExportScope,
    /// Where: a file (JSON; Markdown or HTML of one conversation when the name ends in
    /// `.md` or `.html`) or a folder (one file per conversation and an index).
    pub out: String,
    /// Leave tool results out (Markdown and HTML; JSON is always complete).
    #[serde(default)]
    pub no_tool_results: bool,
    /// Leave reasoning out (Markdown and HTML; JSON is always complete).
    #[serde(default)]
    pub no_reasoning: bool,
}

/// What the Markdown and HTML renderers include.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// Show tool results.
    pub tool_results: bool,
    /// Show reasoning.
    pub reasoning: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            tool_results: true,
            reasoning: true,
        }
    }
}

impl ExportRequest {
    /// The renderer options this request asks for.
    pub fn render_options(&self) -> RenderOptions {
        RenderOptions {
            tool_results: !self.no_tool_results,
            reasoning: !self.no_reasoning,
        }
    }
}

/// A Unix-milliseconds time as `2025-07-08 00:43 UTC`.
pub(crate) fn format_time(ms: i64) -> String {
    match jiff::Timestamp::from_millisecond(ms) {
        Ok(t) => t.strftime("%Y-%m-%d %H:%M UTC").to_string(),
        Err(_) => format!("{ms} ms"),
    }
}
