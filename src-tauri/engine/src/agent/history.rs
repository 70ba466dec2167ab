//! Stored messages → the provider-neutral conversation a model is sent. The result is always
//! valid for every provider: every tool call is answered by exactly one result right after
//! its assistant message (a synthetic "did not complete" one when a crash or a stop left it
//! unanswered), results without a call are dropped, and call ids are unique (providers that
//! send no ids get synthetic ones that can repeat across turns; repeats are renamed).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::provider::names::{MAX_LEN, ToolNames, sanitize};
use crate::provider::{ChatMessage, ToolCall, UserPart};
use crate::store::{Message, Role};
use crate::vocab::content::ContentPart;
pub use crate::vocab::mcp::result_text;

/// The text a model sees for a call that never finished.
pub const UNFINISHED: &str = "The tool call did not complete (it was interrupted or stopped).";

/// The provider-safe name of `server`'s `tool`: the request's name when it offers the tool,
/// else the sanitized `server__tool` (a tool from an earlier turn that is gone now).
pub fn safe_name(names: &ToolNames, server: &str, tool: &str) -> String {
    if let Some(n) = names.safe_name(server, tool) {
        return n.to_owned();
    }
    let raw = if server.is_empty() {
        tool.to_owned()
    } else {
        format!("{server}__{tool}")
    };
    let mut s = sanitize(&raw);
    s.truncate(MAX_LEN);
    if s.is_empty() { "tool".to_owned() } else { s }
}

/// Converts a branch (root first) into the messages a model is sent.
pub fn to_chat(branch: &[Message], names: &ToolNames) -> Vec<ChatMessage> {
    let mut out = Vec::new();
    let mut seen_ids: HashSet<String> = HashSet::new();
    let mut i = 0;
    while i < branch.len() {
        let m = &branch[i];
        match m.role {
            Role::User => out.push(user(m)),
            Role::Assistant => {
                let results = branch.get(i + 1).filter(|n| n.role == Role::Tool);
                if results.is_some() {
                    i += 1;
                }
                exchange(m, results, names, &mut seen_ids, &mut out);
            }
            Role::Tool | Role::System => {}
        }
        i += 1;
    }
    out
}

fn user(m: &Message) -> ChatMessage {
    let parts = m
        .content
        .iter()
        .filter_map(|p| match p {
            ContentPart::Text { text } => Some(UserPart::Text { text: text.clone() }),
            ContentPart::Image {
                mime_type, data, ..
            } => Some(UserPart::Image {
                mime_type: mime_type.clone(),
                data: data.clone(),
            }),
            ContentPart::Resource(a) => Some(super::attachments::user_part(a)),
            ContentPart::File(f) => Some(UserPart::Text {
                text: super::upload::text::for_model(f),
            }),
            _ => None,
        })
        .collect();
    ChatMessage::User { parts }
}

/// One assistant message and the results of its calls, repaired.
fn exchange(
    m: &Message,
    results: Option<&Message>,
    names: &ToolNames,
    seen_ids: &mut HashSet<String>,
    out: &mut Vec<ChatMessage>,
) {
    let text: String = m
        .content
        .iter()
        .filter_map(|p| match p {
            ContentPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let mut renamed: HashMap<String, String> = HashMap::new();
    let calls: Vec<ToolCall> = m
        .content
        .iter()
        .filter_map(|p| match p {
            ContentPart::ToolCall {
                id,
                server,
                tool,
                arguments,
            } => Some((id, server, tool, arguments)),
            _ => None,
        })
        .map(|(id, server, tool, arguments)| {
            let unique = unique_id(id, seen_ids);
            renamed.insert(id.clone(), unique.clone());
            ToolCall {
                id: unique,
                name: safe_name(names, server, tool),
                arguments: object_or_wrapped(arguments),
            }
        })
        .collect();
    if text.is_empty() && calls.is_empty() {
        return;
    }
    let answers = answers_by_id(results);
    out.push(ChatMessage::Assistant {
        text,
        tool_calls: calls.clone(),
    });
    let originals: HashMap<&String, &String> = renamed.iter().map(|(o, n)| (n, o)).collect();
    for c in &calls {
        let original = originals.get(&c.id).map_or(c.id.as_str(), |s| s.as_str());
        let (content, is_error) = answers
            .get(original)
            .cloned()
            .unwrap_or_else(|| (UNFINISHED.to_owned(), true));
        out.push(ChatMessage::Tool {
            call_id: c.id.clone(),
            name: c.name.clone(),
            content,
            is_error,
        });
    }
}

/// The results in a tool message, by call id.
fn answers_by_id(results: Option<&Message>) -> HashMap<String, (String, bool)> {
    let Some(results) = results else {
        return HashMap::new();
    };
    results
        .content
        .iter()
        .filter_map(|p| match p {
            ContentPart::ToolResult {
                call_id,
                content,
                is_error,
            } => Some((call_id.clone(), (result_text(content), *is_error))),
            _ => None,
        })
        .collect()
}

/// `id`, or `id_2`, `id_3`… when an earlier call of the conversation already used it.
fn unique_id(id: &str, seen: &mut HashSet<String>) -> String {
    let base = if id.is_empty() { "call" } else { id };
    let mut candidate = base.to_owned();
    let mut n = 1;
    while seen.contains(&candidate) {
        n += 1;
        candidate = format!("{base}_{n}");
    }
    seen.insert(candidate.clone());
    candidate
}

/// Arguments as an object: invalid JSON a model sent is kept as `{"_raw": "…"}` so every
/// provider accepts the history.
fn object_or_wrapped(arguments: &Value) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        other => serde_json::json!({ "_raw": other }),
    }
}
