//! What the readable formats show of a message tree: the branch the conversation shows
//! (root → head), which version of its siblings each message is, and the server and tool of
//! every call id (so a result can name them).

use std::collections::{HashMap, HashSet};

use crate::store::{Conversation, Message};
use crate::vocab::content::ContentPart;

/// The shown branch of a conversation and what the renderers need to know about it.
#[derive(Debug)]
pub(crate) struct View<'a> {
    /// Root first.
    pub branch: Vec<&'a Message>,
    /// For a message with siblings: its 1-based position and the number of siblings.
    pub versions: HashMap<&'a str, (usize, usize)>,
    /// Call id → (server, tool).
    pub calls: HashMap<&'a str, (&'a str, &'a str)>,
    /// Messages in other branches, not shown.
    pub hidden: usize,
}

/// Builds the view: the branch ends at the conversation's head (or, without a valid head,
/// at the last message).
pub(crate) fn view<'a>(c: &Conversation, messages: &'a [Message]) -> View<'a> {
    let by_id: HashMap<&str, &Message> = messages.iter().map(|m| (m.id.as_str(), m)).collect();
    let head = c
        .head_id
        .as_deref()
        .and_then(|h| by_id.get(h).copied())
        .or_else(|| messages.last());
    let mut branch = Vec::new();
    let mut seen = HashSet::new();
    let mut at = head;
    while let Some(m) = at {
        if !seen.insert(m.id.as_str()) {
            break;
        }
        branch.push(m);
        at = m.parent_id.as_deref().and_then(|p| by_id.get(p).copied());
    }
    branch.reverse();
    let mut siblings: HashMap<(Option<&str>, u8), Vec<&str>> = HashMap::new();
    for m in messages {
        siblings
            .entry((m.parent_id.as_deref(), m.role as u8))
            .or_default()
            .push(m.id.as_str());
    }
    let mut versions = HashMap::new();
    for m in &branch {
        if let Some(group) = siblings.get(&(m.parent_id.as_deref(), m.role as u8))
            && group.len() > 1
            && let Some(i) = group.iter().position(|id| *id == m.id)
        {
            versions.insert(m.id.as_str(), (i + 1, group.len()));
        }
    }
    let calls = messages
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|p| match p {
            ContentPart::ToolCall {
                id, server, tool, ..
            } => Some((id.as_str(), (server.as_str(), tool.as_str()))),
            _ => None,
        })
        .collect();
    View {
        hidden: messages.len() - branch.len(),
        branch,
        versions,
        calls,
    }
}
