//! The context budget: what of a conversation fits the model's window. Tokens are estimated
//! with tiktoken's `o200k_base` (a close estimate for most models, exact for OpenAI's newer
//! ones). Large tool results are cut in the request (never in storage); then the oldest whole
//! exchanges (a user message and everything up to the next one) are dropped, so a request
//! never holds a tool result without its call. The system prompt and tools always stay, and
//! so does the newest exchange.

use crate::provider::{ChatMessage, ToolSpec, UserPart};

/// The window assumed when neither the conversation nor the model says.
pub const DEFAULT_WINDOW: u32 = 32_768;
/// Tokens per message for role and framing, as OpenAI counts them.
const PER_MESSAGE: u32 = 4;
/// The marker appended to a tool result cut for the request.
pub const CUT_MARKER: &str = "\n[… result truncated to fit the context window]";

/// Estimated tokens of `text`.
pub fn count(text: &str) -> u32 {
    let n = tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Estimated tokens of one message.
pub fn message_tokens(m: &ChatMessage) -> u32 {
    let body = match m {
        ChatMessage::User { parts } => parts
            .iter()
            .map(|p| match p {
                UserPart::Text { text } => count(text),
                UserPart::Image { .. } => 765,
            })
            .sum(),
        ChatMessage::Assistant { text, tool_calls } => {
            count(text)
                + tool_calls
                    .iter()
                    .map(|c| count(&c.name) + count(&c.arguments.to_string()))
                    .sum::<u32>()
        }
        ChatMessage::Tool { content, .. } => count(content),
    };
    body.saturating_add(PER_MESSAGE)
}

/// Estimated tokens of one tool definition (name, description, input schema).
pub fn tool_tokens(name: &str, description: &str, schema: &serde_json::Value) -> u32 {
    count(name) + count(description) + count(&schema.to_string())
}

/// Estimated tokens of the tool definitions of a request (count once per turn: they do not
/// change between its steps).
pub fn tools_tokens(tools: &[ToolSpec]) -> u32 {
    tools
        .iter()
        .map(|t| tool_tokens(&t.name, &t.description, &t.parameters))
        .sum()
}

/// What [`fit`] kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The messages to send.
    pub messages: Vec<ChatMessage>,
    /// How many messages were left out (oldest first).
    pub dropped: usize,
    /// The estimated prompt tokens, system and tools included.
    pub estimate: u32,
}

/// Fits `messages` into `window` tokens, leaving `reserve` for the answer, beside the system
/// prompt and tool definitions that take `tools` tokens.
pub fn fit(
    system: Option<&str>,
    tools: u32,
    messages: Vec<ChatMessage>,
    window: u32,
    reserve: u32,
) -> Fitted {
    let limit = window.saturating_sub(reserve);
    let messages = cut_tool_results(messages, (limit / 4).max(256));
    let groups = exchanges(messages);
    let fixed = system.map_or(0, count).saturating_add(tools);
    let mut total = fixed;
    let mut keep = 0;
    for (i, g) in groups.iter().enumerate().rev() {
        let t: u32 = g.iter().map(message_tokens).sum();
        if i + 1 < groups.len() && total.saturating_add(t) > limit {
            break;
        }
        total = total.saturating_add(t);
        keep += 1;
    }
    let skip = groups.len() - keep;
    let dropped = groups[..skip].iter().map(Vec::len).sum();
    Fitted {
        messages: groups.into_iter().skip(skip).flatten().collect(),
        dropped,
        estimate: total,
    }
}

/// Splits a conversation before every user message.
fn exchanges(messages: Vec<ChatMessage>) -> Vec<Vec<ChatMessage>> {
    let mut groups: Vec<Vec<ChatMessage>> = Vec::new();
    for m in messages {
        let starts = matches!(m, ChatMessage::User { .. }) || groups.is_empty();
        if starts {
            groups.push(vec![m]);
        } else if let Some(last) = groups.last_mut() {
            last.push(m);
        }
    }
    groups
}

/// Cuts every tool result longer than about `max_tokens` (four characters a token).
fn cut_tool_results(messages: Vec<ChatMessage>, max_tokens: u32) -> Vec<ChatMessage> {
    let max_chars = max_tokens as usize * 4;
    messages
        .into_iter()
        .map(|m| match m {
            ChatMessage::Tool {
                call_id,
                name,
                content,
                is_error,
            } if content.chars().count() > max_chars => ChatMessage::Tool {
                call_id,
                name,
                content: content.chars().take(max_chars).collect::<String>() + CUT_MARKER,
                is_error,
            },
            other => other,
        })
        .collect()
}
