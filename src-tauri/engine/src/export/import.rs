//! Import: recognizes the file (our JSON export, ChatGPT's or Claude's `conversations.json`),
//! converts it to conversations, checks every reference (unique ids, parents and heads in the
//! same conversation, no cycles) and merges it into the store in one transaction — or, in a
//! dry run, reports what would change and writes nothing. A file that cannot be read imports
//! nothing.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::detect::detect;
use super::{ExportError, chatgpt, claude, json};
use serde_json::Value;

use crate::store::{ImportItem, MergeReport, Store};
use crate::vocab::ContentPart;

/// Where an imported file came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ImportSource {
    /// Switchboard's JSON export.
    Switchboard,
    /// ChatGPT's data export (`conversations.json`).
    Chatgpt,
    /// Claude's data export (`conversations.json`).
    Claude,
}

/// What an import did (or would do).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportResult {
    /// The kind of file.
    pub source: ImportSource,
    /// What changed, per conversation.
    pub report: MergeReport,
}

/// Reads and imports the file at `path` (`dry_run`: only report).
pub async fn import_file(
    store: &Store,
    path: &Path,
    dry_run: bool,
) -> Result<ImportResult, ExportError> {
    // Refused before reading when over the cap; the read itself stops at the cap.
    let text = super::limits::read_capped(path, super::limits::max_bytes(store).await?)?;
    let (source, items) = parse_import(&text)?;
    drop(text); // the conversations are read; the file's text is not needed while merging
    let report = store.import_conversations(&items, dry_run).await?;
    Ok(ImportResult { source, report })
}

/// Recognizes and converts a file's text, checking every reference.
pub fn parse_import(text: &str) -> Result<(ImportSource, Vec<ImportItem>), ExportError> {
    let source = detect(text)?;
    let items = match source {
        ImportSource::Switchboard => without_apps(json::read(text)?),
        ImportSource::Chatgpt => chatgpt::read(text)?,
        ImportSource::Claude => claude::read(text)?,
    };
    validate(&items)?;
    Ok((source, items))
}

/// Every id is unique, every parent and head is a message of the same conversation, and no
/// message is its own ancestor.
fn validate(items: &[ImportItem]) -> Result<(), ExportError> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut conversations: HashSet<&str> = HashSet::new();
    for (i, item) in items.iter().enumerate() {
        let c = &item.conversation;
        let at = |what: String| {
            ExportError::Format(format!(
                "conversation #{} ({}) in the file: {what}",
                i + 1,
                c.id
            ))
        };
        if !conversations.insert(c.id.as_str()) {
            return Err(at("the conversation appears twice".into()));
        }
        let parents: HashMap<&str, Option<&str>> = item
            .messages
            .iter()
            .map(|m| (m.id.as_str(), m.parent_id.as_deref()))
            .collect();
        for m in &item.messages {
            if !seen.insert(m.id.as_str()) {
                return Err(at(format!("message {} appears twice", m.id)));
            }
            if let Some(p) = &m.parent_id
                && !parents.contains_key(p.as_str())
            {
                return Err(at(format!(
                    "message {} follows {p}, which is not in this conversation",
                    m.id
                )));
            }
        }
        if let Some(h) = &c.head_id
            && !parents.contains_key(h.as_str())
        {
            return Err(at(format!(
                "its head {h} is not a message of this conversation"
            )));
        }
        if let Some(id) = cycle(&parents) {
            return Err(at(format!("message {id} is its own ancestor")));
        }
    }
    Ok(())
}

/// A message on a parent cycle, if there is one.
fn cycle<'a>(parents: &HashMap<&'a str, Option<&'a str>>) -> Option<&'a str> {
    let mut done: HashSet<&str> = HashSet::new();
    for start in parents.keys() {
        let mut path: HashSet<&str> = HashSet::new();
        let mut at = Some(*start);
        while let Some(id) = at {
            if done.contains(id) {
                break;
            }
            if !path.insert(id) {
                return Some(id);
            }
            at = parents.get(id).copied().flatten();
        }
        done.extend(path);
    }
    None
}

/// `items` without the MCP Apps stored with their tool results: an imported file is
/// untrusted, and an App in it would run bound to whichever server it names.
pub fn without_apps(mut items: Vec<ImportItem>) -> Vec<ImportItem> {
    let parts = items
        .iter_mut()
        .flat_map(|i| i.messages.iter_mut())
        .flat_map(|m| m.content.iter_mut());
    for part in parts {
        if let ContentPart::ToolResult {
            content: Value::Object(result),
            ..
        } = part
        {
            result.remove("app");
        }
    }
    items
}
