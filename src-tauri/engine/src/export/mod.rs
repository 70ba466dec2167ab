//! Conversation export and import. Export writes Markdown (readable anywhere), lossless
//! versioned JSON, or self-contained HTML for one conversation, a selection or all of them;
//! import reads our JSON (merged by id), ChatGPT's and Claude's `conversations.json`.
//!
//! Only conversations and messages are read: provider keys, OAuth tokens and MCP server
//! configurations (with their environment) are never part of an export.

mod assets;
pub mod assistants;
pub(crate) mod chatgpt;
pub(crate) mod claude;
mod detect;
mod error;
mod highlight;
pub(crate) mod html;
pub(crate) mod import;
pub(crate) mod json;
pub mod limits;
pub(crate) mod markdown;
mod names;
mod stream;
#[cfg(test)]
mod tests;
mod tree;
mod write;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use assets::{Assets, DirAssets, MemoryAssets};
pub use detect::ImportSource;
pub use error::ExportError;
pub use import::{ImportResult, import_file, parse_import};
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
    /// The conversations of a project (archived ones too), oldest first.
    Project {
        /// The project's id or name.
        project: String,
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

/// How an export labels a tool result: a refused call (marked [`crate::vocab::chat::DENIED`])
/// apart from a failed one.
pub(crate) fn result_label(content: &serde_json::Value, is_error: bool) -> &'static str {
    if content.get(crate::vocab::chat::DENIED) == Some(&serde_json::Value::Bool(true)) {
        "Denied"
    } else if is_error {
        "Tool error"
    } else {
        "Result"
    }
}

/// A Unix-milliseconds time as `2025-07-08 00:43 UTC`.
pub(crate) fn format_time(ms: i64) -> String {
    Time(ms).to_string()
}

/// A Unix-milliseconds time that displays as `2025-07-08 00:43 UTC` (as [`format_time`],
/// written in place: the exporters show one per message).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Time(pub i64);

impl std::fmt::Display for Time {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Ok(t) = jiff::Timestamp::from_millisecond(self.0) else {
            return write!(f, "{} ms", self.0);
        };
        let d = jiff::tz::Offset::UTC.to_datetime(t);
        if (1000..=9999).contains(&d.year()) {
            write!(
                f,
                "{}-{:02}-{:02} {:02}:{:02} UTC",
                d.year(),
                d.month(),
                d.day(),
                d.hour(),
                d.minute()
            )
        } else {
            write!(f, "{}", t.strftime("%Y-%m-%d %H:%M UTC"))
        }
    }
}

#[cfg(test)]
mod helper_tests {
    #[test]
    fn a_denied_result_is_labelled_denied_and_a_failure_tool_error() {
        use serde_json::json;
        let denied = json!({"content": [], "is_error": true, "denied": true});
        assert_eq!(super::result_label(&denied, true), "Denied");
        assert_eq!(
            super::result_label(&json!({"content": []}), true),
            "Tool error"
        );
        assert_eq!(
            super::result_label(&json!({"denied": "yes"}), false),
            "Result"
        );
    }

    use super::format_time;

    #[test]
    fn times_read_as_jiff_formats_them_across_the_whole_range() {
        let strftime = |ms: i64| match jiff::Timestamp::from_millisecond(ms) {
            Ok(t) => t.strftime("%Y-%m-%d %H:%M UTC").to_string(),
            Err(_) => format!("{ms} ms"),
        };
        let mut samples = vec![
            0,
            -1,
            1_751_935_438_000,
            -30_610_224_000_001,
            -30_610_224_000_000,
            253_402_300_799_999,
            253_402_300_800_000,
            i64::MIN,
            i64::MAX,
        ];
        let mut x: i64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            samples.push(x % 400_000_000_000_000);
        }
        for ms in samples {
            assert_eq!(format_time(ms), strftime(ms), "at {ms} ms");
        }
        assert_eq!(format_time(1_751_935_438_000), "2025-07-08 00:43 UTC");
    }
}
