//! Claude's data export `conversations.json`: a list of conversations (`uuid`, `name`,
//! `created_at`, `chat_messages`), each message with a `sender` (`human` or `assistant`),
//! `text` and/or typed `content` (`text`, `thinking`, `tool_use`, `tool_result`), and
//! attachments. Messages follow `parent_message_uuid` when the export has it, else each
//! other. An assistant message whose content interleaves tool uses and results is split into
//! assistant → tool → assistant messages, as our history keeps them. Missing fields get
//! defaults; unknown fields and content types are ignored.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Value, json};

use super::ExportError;
use crate::store::{Conversation, ImportItem, Message, MessageStatus, Role};
use crate::vocab::content::ContentPart;

/// The server name tool calls from Claude get.
pub(crate) const SERVER: &str = "claude";

#[derive(Deserialize)]
struct Export {
    uuid: Option<String>,
    name: Option<String>,
    created_at: Option<String>,
    updated_at: Option<String>,
    model: Option<String>,
    current_leaf_message_uuid: Option<String>,
    #[serde(default)]
    chat_messages: Vec<Msg>,
}

#[derive(Deserialize)]
struct Msg {
    uuid: Option<String>,
    text: Option<String>,
    content: Option<Vec<Value>>,
    sender: Option<String>,
    created_at: Option<String>,
    updated_at: Option<String>,
    #[serde(default)]
    attachments: Vec<Value>,
    #[serde(default)]
    files: Vec<Value>,
    parent_message_uuid: Option<String>,
}

/// Hands each conversation in `reader` to `each` as it is read.
pub(crate) fn stream(
    reader: impl std::io::Read,
    mut each: impl FnMut(ImportItem) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    super::stream::each_in_list(reader, |i, c: Export| each(convert(i, c)))
}

fn time(text: Option<&str>) -> Option<i64> {
    text?
        .parse::<jiff::Timestamp>()
        .ok()
        .map(|t| t.as_millisecond())
}

fn convert(index: usize, c: Export) -> ImportItem {
    let created = time(c.created_at.as_deref()).unwrap_or(0);
    let id = c
        .uuid
        .clone()
        .unwrap_or_else(|| format!("claude-{created}-{index}"));
    let mut messages: Vec<Message> = Vec::new();
    // Claude's message uuid → the id of the last message it became.
    let mut last_of: HashMap<String, String> = HashMap::new();
    let mut previous: Option<String> = None;
    let mut clock = created;
    for (i, m) in c.chat_messages.iter().enumerate() {
        let uuid = m.uuid.clone().unwrap_or_else(|| format!("{id}-{i}"));
        let parent = match m.parent_message_uuid.as_deref() {
            Some(p) if last_of.contains_key(p) => last_of.get(p).cloned(),
            _ => previous.clone(),
        };
        let at = time(m.created_at.as_deref()).unwrap_or(clock);
        clock = at;
        let updated = time(m.updated_at.as_deref()).unwrap_or(at);
        let pieces = split(m);
        let mut parent = parent;
        for (k, (role, content)) in pieces.into_iter().enumerate() {
            let mid = if k == 0 {
                uuid.clone()
            } else {
                format!("{uuid}-{k}")
            };
            messages.push(Message {
                id: mid.clone(),
                conversation_id: id.clone(),
                parent_id: parent.clone(),
                role,
                content,
                status: MessageStatus::Complete,
                model: c.model.clone().filter(|_| role == Role::Assistant),
                usage: None,
                error: None,
                created_at: at,
                updated_at: updated,
            });
            parent = Some(mid);
        }
        if let Some(p) = parent {
            last_of.insert(uuid, p.clone());
            previous = Some(p);
        }
    }
    let head = c
        .current_leaf_message_uuid
        .as_ref()
        .and_then(|u| last_of.get(u).cloned())
        .or_else(|| previous.clone());
    ImportItem {
        conversation: Conversation {
            id,
            title: c.name.unwrap_or_default().trim().to_owned(),
            created_at: created,
            updated_at: time(c.updated_at.as_deref()).unwrap_or(clock),
            pinned: false,
            archived: false,
            provider_id: None,
            model: c.model,
            system_prompt: None,
            settings: json!({}),
            head_id: head,
            project_id: None,
        },
        messages,
    }
}

/// One Claude message as our messages: runs of text and calls (as the sender's role)
/// separated by runs of tool results (as tool messages).
fn split(m: &Msg) -> Vec<(Role, Vec<ContentPart>)> {
    let role = match m.sender.as_deref() {
        Some("human" | "user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => return Vec::new(),
    };
    let mut out: Vec<(Role, Vec<ContentPart>)> = Vec::new();
    let mut push = |r: Role, part: ContentPart| match out.last_mut() {
        Some((last, parts)) if *last == r => parts.push(part),
        _ => out.push((r, vec![part])),
    };
    let mut calls: Vec<(String, String)> = Vec::new();
    let uuid = m.uuid.as_deref().unwrap_or("message");
    match m.content.as_ref().filter(|c| !c.is_empty()) {
        Some(items) => {
            for (k, item) in items.iter().enumerate() {
                if let Some((r, part)) = item_part(item, role, uuid, k, &mut calls) {
                    push(r, part);
                }
            }
        }
        None => {
            if let Some(t) = m.text.as_deref().filter(|t| !t.trim().is_empty()) {
                push(role, ContentPart::text(t));
            }
        }
    }
    for a in m.attachments.iter().chain(&m.files) {
        if let Some(t) = attachment(a) {
            push(role, ContentPart::text(t));
        }
    }
    out
}

fn item_part(
    item: &Value,
    role: Role,
    uuid: &str,
    k: usize,
    calls: &mut Vec<(String, String)>,
) -> Option<(Role, ContentPart)> {
    let s = |key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    match item.get("type").and_then(Value::as_str)? {
        "text" => Some(s("text"))
            .filter(|t| !t.trim().is_empty())
            .map(|t| (role, ContentPart::text(t))),
        "thinking" => Some(s("thinking"))
            .filter(|t| !t.is_empty())
            .map(|t| (role, ContentPart::Reasoning { text: t })),
        "tool_use" => {
            let id = Some(s("id"))
                .filter(|i| !i.is_empty())
                .unwrap_or_else(|| format!("{uuid}-call-{k}"));
            let name = s("name");
            calls.push((id.clone(), name.clone()));
            let arguments = item
                .get("input")
                .cloned()
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({}));
            Some((
                role,
                ContentPart::ToolCall {
                    id,
                    server: SERVER.into(),
                    tool: name,
                    arguments,
                },
            ))
        }
        "tool_result" => {
            let wanted = s("tool_use_id");
            let name = s("name");
            let call_id = calls
                .iter()
                .rev()
                .find(|(id, n)| {
                    (!wanted.is_empty() && *id == wanted) || (wanted.is_empty() && *n == name)
                })
                .map(|(id, _)| id.clone())
                .unwrap_or_else(|| {
                    if wanted.is_empty() {
                        format!("{uuid}-result-{k}")
                    } else {
                        wanted.clone()
                    }
                });
            let is_error = item
                .get("is_error")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let text = result_text(item.get("content"));
            Some((
                Role::Tool,
                ContentPart::ToolResult {
                    call_id,
                    content: json!({ "content": [{ "type": "text", "text": text }], "structured": null, "is_error": is_error }),
                    is_error,
                },
            ))
        }
        _ => None,
    }
}

/// The text of a `tool_result`'s content: a string, or a list of text blocks.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

fn attachment(a: &Value) -> Option<String> {
    let name = a
        .get("file_name")
        .and_then(Value::as_str)
        .unwrap_or("attachment");
    match a.get("extracted_content").and_then(Value::as_str) {
        Some(body) if !body.trim().is_empty() => Some(format!("Attachment {name}:\n\n{body}")),
        _ => Some(format!("[file: {name}]")),
    }
}
