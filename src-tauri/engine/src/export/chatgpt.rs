//! ChatGPT's `conversations.json` (Settings → Data controls → Export): a list of
//! conversations, each a `mapping` of nodes (`id`, `message`, `parent`, `children`) with a
//! `current_node`. The node tree becomes our message tree (so edits and regenerations stay
//! branches); empty and hidden nodes are skipped and their children attached to the nearest
//! kept ancestor. An assistant message addressed to a tool (`recipient` other than `all`,
//! e.g. `python` or `browser`) becomes a tool call of server `chatgpt`; `tool` messages
//! (code output, browsing results) become its result. Missing fields get defaults; unknown
//! fields are ignored.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::ExportError;
use crate::store::{Conversation, ImportItem, Message, MessageStatus, Role};
use crate::vocab::content::ContentPart;

/// The server name tool calls from ChatGPT get.
pub(crate) const SERVER: &str = "chatgpt";

#[derive(Deserialize)]
struct Export {
    title: Option<String>,
    create_time: Option<f64>,
    update_time: Option<f64>,
    #[serde(default)]
    mapping: BTreeMap<String, Node>,
    current_node: Option<String>,
    conversation_id: Option<String>,
    id: Option<String>,
    default_model_slug: Option<String>,
    is_archived: Option<bool>,
}

#[derive(Deserialize)]
struct Node {
    message: Option<Msg>,
    parent: Option<String>,
    #[serde(default)]
    children: Vec<String>,
}

#[derive(Deserialize)]
struct Msg {
    author: Option<Author>,
    create_time: Option<f64>,
    update_time: Option<f64>,
    content: Option<Value>,
    status: Option<String>,
    recipient: Option<String>,
    metadata: Option<Value>,
}

#[derive(Deserialize)]
struct Author {
    role: Option<String>,
    name: Option<String>,
}

/// Hands each conversation in `reader` to `each` as it is read.
pub(crate) fn stream(
    reader: impl std::io::Read,
    mut each: impl FnMut(ImportItem) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    super::stream::each_in_list(reader, |i, c: Export| each(convert(i, c)))
}

fn ms(seconds: Option<f64>) -> Option<i64> {
    seconds
        .filter(|s| s.is_finite())
        .map(|s| (s * 1000.0).round() as i64)
}

/// A stable id for a conversation that has none (so importing twice does not duplicate).
fn synthetic_id(index: usize, c: &Export) -> String {
    let mut h = Sha256::new();
    h.update(c.title.as_deref().unwrap_or("").as_bytes());
    h.update(c.create_time.unwrap_or(0.0).to_le_bytes());
    h.update(
        c.mapping
            .keys()
            .next()
            .map_or("", String::as_str)
            .as_bytes(),
    );
    h.update(index.to_le_bytes());
    let hex: String = h
        .finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("chatgpt-{hex}")
}

/// State carried down the tree walk.
#[derive(Clone)]
struct Down {
    parent: Option<String>,
    call: Option<String>,
    time: i64,
}

fn convert(index: usize, c: Export) -> ImportItem {
    let id = c
        .conversation_id
        .clone()
        .or_else(|| c.id.clone())
        .unwrap_or_else(|| synthetic_id(index, &c));
    let created = ms(c.create_time).unwrap_or(0);
    let mut messages: Vec<Message> = Vec::new();
    let mut kept_at: BTreeMap<String, Option<String>> = BTreeMap::new();
    let roots: Vec<&String> = c
        .mapping
        .iter()
        .filter(|(_, n)| n.parent.as_ref().is_none_or(|p| !c.mapping.contains_key(p)))
        .map(|(k, _)| k)
        .collect();
    let mut visited: HashSet<&str> = HashSet::new();
    let mut stack: Vec<(&String, Down)> = roots
        .into_iter()
        .rev()
        .map(|r| {
            (
                r,
                Down {
                    parent: None,
                    call: None,
                    time: created,
                },
            )
        })
        .collect();
    while let Some((key, down)) = stack.pop() {
        if !visited.insert(key.as_str()) {
            continue;
        }
        let Some(node) = c.mapping.get(key) else {
            continue;
        };
        let mut next = down.clone();
        if let Some(m) = node
            .message
            .as_ref()
            .and_then(|m| message(key, &id, m, &down))
        {
            next.parent = Some(m.id.clone());
            next.time = m.created_at;
            if let Some(ContentPart::ToolCall { id, .. }) = m.content.first() {
                next.call = Some(id.clone());
            }
            messages.push(m);
        }
        kept_at.insert(key.clone(), next.parent.clone());
        for child in node.children.iter().rev() {
            stack.push((child, next.clone()));
        }
    }
    let head = c
        .current_node
        .as_ref()
        .and_then(|n| kept_at.get(n).cloned().flatten())
        .or_else(|| messages.last().map(|m| m.id.clone()));
    let updated = ms(c.update_time)
        .or_else(|| messages.iter().map(|m| m.updated_at).max())
        .unwrap_or(created);
    ImportItem {
        conversation: Conversation {
            id,
            title: c.title.unwrap_or_default().trim().to_owned(),
            created_at: created,
            updated_at: updated,
            pinned: false,
            archived: c.is_archived.unwrap_or(false),
            provider_id: None,
            model: c.default_model_slug,
            system_prompt: None,
            settings: json!({}),
            head_id: head,
            project_id: None,
        },
        messages,
    }
}

/// Converts one node's message; `None` for nodes we skip (empty, hidden, context).
fn message(key: &str, conversation: &str, m: &Msg, down: &Down) -> Option<Message> {
    let author = m.author.as_ref();
    let role = author.and_then(|a| a.role.as_deref()).unwrap_or("");
    let hidden = m
        .metadata
        .as_ref()
        .and_then(|md| md.get("is_visually_hidden_from_conversation"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if hidden {
        return None;
    }
    let content = m.content.clone().unwrap_or(Value::Null);
    let kind = content
        .get("content_type")
        .and_then(Value::as_str)
        .unwrap_or("text");
    if kind == "user_editable_context" {
        return None;
    }
    let body = content_text(&content, kind);
    let recipient = m.recipient.as_deref().unwrap_or("all");
    let (role, parts) = match role {
        "user" => (Role::User, text_parts(&body)),
        "system" => (Role::System, text_parts(&body)),
        "assistant" if recipient != "all" => (
            Role::Assistant,
            vec![call(key, recipient, kind, &content, &body)],
        ),
        "assistant" if kind == "thoughts" || kind == "reasoning_recap" => (
            Role::Assistant,
            (!body.is_empty())
                .then(|| ContentPart::Reasoning { text: body.clone() })
                .into_iter()
                .collect(),
        ),
        "assistant" => (Role::Assistant, text_parts(&body)),
        "tool" => {
            let name = author.and_then(|a| a.name.as_deref()).unwrap_or("tool");
            (Role::Tool, vec![result(key, down, name, &body)])
        }
        _ => return None,
    };
    if parts.is_empty() {
        return None;
    }
    let created = ms(m.create_time).unwrap_or(down.time);
    let model = m
        .metadata
        .as_ref()
        .and_then(|md| md.get("model_slug"))
        .and_then(Value::as_str)
        .filter(|_| role == Role::Assistant)
        .map(str::to_owned);
    Some(Message {
        id: key.to_owned(),
        conversation_id: conversation.to_owned(),
        parent_id: down.parent.clone(),
        role,
        content: parts,
        status: match m.status.as_deref() {
            Some("in_progress") => MessageStatus::Interrupted,
            _ => MessageStatus::Complete,
        },
        model,
        usage: None,
        error: None,
        created_at: created,
        updated_at: ms(m.update_time).unwrap_or(created),
    })
}

fn text_parts(body: &str) -> Vec<ContentPart> {
    if body.trim().is_empty() {
        Vec::new()
    } else {
        vec![ContentPart::text(body)]
    }
}

fn call(key: &str, recipient: &str, kind: &str, content: &Value, body: &str) -> ContentPart {
    let arguments = if kind == "code" {
        let language = content
            .get("language")
            .and_then(Value::as_str)
            .unwrap_or("");
        json!({ "language": language, "code": body })
    } else {
        serde_json::from_str::<Value>(body)
            .ok()
            .filter(Value::is_object)
            .unwrap_or_else(|| json!({ "input": body }))
    };
    ContentPart::ToolCall {
        id: format!("call-{key}"),
        server: SERVER.to_owned(),
        tool: recipient.to_owned(),
        arguments,
    }
}

fn result(key: &str, down: &Down, name: &str, body: &str) -> ContentPart {
    let text = if body.is_empty() {
        format!("({name} returned nothing)")
    } else {
        body.to_owned()
    };
    ContentPart::ToolResult {
        call_id: down.call.clone().unwrap_or_else(|| format!("call-{key}")),
        content: json!({ "content": [{ "type": "text", "text": text }], "structured": null, "is_error": false }),
        is_error: false,
    }
}

/// The text of a message's content, whatever its `content_type`.
fn content_text(content: &Value, kind: &str) -> String {
    let s = |k: &str| {
        content
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    match kind {
        "code" | "execution_output" | "system_error" => s("text"),
        "reasoning_recap" => s("content"),
        "thoughts" => content
            .get("thoughts")
            .and_then(Value::as_array)
            .map(|ts| {
                ts.iter()
                    .filter_map(|t| t.get("content").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n\n")
            })
            .unwrap_or_default(),
        "tether_quote" => [s("title"), s("url"), s("text")]
            .into_iter()
            .filter(|x| !x.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        "tether_browsing_display" => [s("summary"), s("result")]
            .into_iter()
            .filter(|x| !x.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => match content.get("parts").and_then(Value::as_array) {
            Some(parts) => parts
                .iter()
                .filter_map(part_text)
                .collect::<Vec<_>>()
                .join("\n"),
            None if !s("text").is_empty() => s("text"),
            None => format!("[unsupported ChatGPT content: {kind}]"),
        },
    }
}

fn part_text(part: &Value) -> Option<String> {
    match part {
        Value::String(t) => Some(t.clone()).filter(|t| !t.is_empty()),
        Value::Object(o) => {
            let kind = o.get("content_type").and_then(Value::as_str).unwrap_or("");
            match kind {
                "image_asset_pointer" => Some(format!(
                    "[image: {}]",
                    o.get("asset_pointer")
                        .and_then(Value::as_str)
                        .unwrap_or("not included in the export")
                )),
                "audio_transcription" => o.get("text").and_then(Value::as_str).map(str::to_owned),
                _ => o.get("text").and_then(Value::as_str).map(str::to_owned),
            }
        }
        _ => None,
    }
}
