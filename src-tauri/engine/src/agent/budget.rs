//! The context budget: what of a conversation fits the model's window. Tokens are estimated
//! with tiktoken's `o200k_base` (a close estimate for most models, exact for OpenAI's newer
//! ones). Large tool results are cut in the request (never in storage); then the oldest whole
//! exchanges (a user message and everything up to the next one) are dropped, so a request
//! never holds a tool result without its call. The system prompt and tools always stay, and
//! so does the newest exchange.
//!
//! Every `o200k_base` token covers at least one byte, so a text's byte length bounds its
//! tokens. When the bound of the whole request fits, nothing is counted: the tokenizer (some
//! 50 MB of tables, and a few hundred milliseconds to build them) is loaded only for a
//! request that may not fit, or for the tool costs shown to the user.

use std::sync::OnceLock;

use crate::provider::{ChatMessage, ToolSpec, UserPart};

/// The window assumed when neither the conversation nor the model says.
pub(crate) const DEFAULT_WINDOW: u32 = 32_768;
/// Tokens per message for role and framing, as OpenAI counts them.
const PER_MESSAGE: u32 = 4;
/// The marker appended to a tool result cut for the request.
pub(crate) const CUT_MARKER: &str = "\n[… result truncated to fit the context window]";

/// Tokens an image is assumed to take.
/// The tokens an image is estimated at.
pub(crate) const IMAGE: u32 = 765;

#[cfg(test)]
thread_local! {
    /// How many texts this thread's [`count`] tokenized (tests check when none are).
    pub static COUNTED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Estimated tokens of `text`.
pub(crate) fn count(text: &str) -> u32 {
    #[cfg(test)]
    COUNTED.with(|c| c.set(c.get() + 1));
    let n = tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A bound on the tokens of `text` that needs no tokenizer: its length in bytes.
pub(crate) fn bound(text: &str) -> u32 {
    u32::try_from(text.len()).unwrap_or(u32::MAX)
}

/// Estimated tokens of one message.
pub(crate) fn message_tokens(m: &ChatMessage) -> u32 {
    message_cost(m, count)
}

/// A bound on [`message_tokens`] that needs no tokenizer.
fn message_bound(m: &ChatMessage) -> u32 {
    message_cost(m, bound)
}

fn message_cost(m: &ChatMessage, text: impl Fn(&str) -> u32) -> u32 {
    let body = match m {
        ChatMessage::User { parts } => parts
            .iter()
            .map(|p| match p {
                UserPart::Text { text: t } => text(t),
                UserPart::Image { .. } => IMAGE,
            })
            .fold(0u32, u32::saturating_add),
        ChatMessage::Assistant {
            text: t,
            tool_calls,
        } => tool_calls
            .iter()
            .map(|c| text(&c.name).saturating_add(text(&c.arguments.to_string())))
            .fold(text(t), u32::saturating_add),
        ChatMessage::Tool { content, .. } => text(content),
    };
    body.saturating_add(PER_MESSAGE)
}

/// Estimated tokens of one tool definition (name, description, input schema).
pub(crate) fn tool_tokens(name: &str, description: &str, schema: &serde_json::Value) -> u32 {
    count(name) + count(description) + count(&schema.to_string())
}

/// Estimated tokens of the tool definitions of a request (count once per turn: they do not
/// change between its steps).
pub(crate) fn tools_tokens(tools: &[ToolSpec]) -> u32 {
    tools
        .iter()
        .map(|t| tool_tokens(&t.name, &t.description, &t.parameters))
        .sum()
}

/// What a turn has measured of its tool definitions (they do not change between its steps):
/// their byte bound and, only when a request may not fit, their token count.
#[derive(Debug, Default)]
pub(crate) struct ToolsMeasures {
    bound: OnceLock<u32>,
    counted: OnceLock<u32>,
}

impl ToolsMeasures {
    /// The token count, if one was made.
    #[cfg(test)]
    pub(crate) fn counted(&self) -> Option<u32> {
        self.counted.get().copied()
    }
}

/// The cost of a request's tool definitions, measured at most once per turn.
pub(crate) struct ToolsCost<'a> {
    /// The definitions.
    pub specs: &'a [ToolSpec],
    /// What was measured of them so far.
    pub measures: &'a ToolsMeasures,
}

impl ToolsCost<'_> {
    fn bound(&self) -> u32 {
        *self.measures.bound.get_or_init(|| {
            self.specs
                .iter()
                .map(|t| {
                    bound(&t.name)
                        .saturating_add(bound(&t.description))
                        .saturating_add(bound(&t.parameters.to_string()))
                })
                .fold(0, u32::saturating_add)
        })
    }

    fn tokens(&self) -> u32 {
        *self
            .measures
            .counted
            .get_or_init(|| tools_tokens(self.specs))
    }
}

/// What [`fit`] kept.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fitted {
    /// The messages to send.
    pub messages: Vec<ChatMessage>,
    /// How many messages were left out (oldest first).
    pub dropped: usize,
    /// The estimated prompt tokens, system and tools included; when the byte bound of the
    /// whole request fit, that bound (nothing was counted).
    pub estimate: u32,
}

/// Fits `messages` into `window` tokens, leaving `reserve` for the answer, beside the system
/// prompt and the tool definitions.
pub(crate) fn fit(
    system: Option<&str>,
    tools: &ToolsCost<'_>,
    messages: Vec<ChatMessage>,
    window: u32,
    reserve: u32,
) -> Fitted {
    let limit = window.saturating_sub(reserve);
    let messages = cut_tool_results(messages, (limit / 4).max(256));
    let bounded = messages
        .iter()
        .map(message_bound)
        .fold(system.map_or(0, bound), u32::saturating_add)
        .saturating_add(tools.bound());
    if bounded <= limit {
        return Fitted {
            messages,
            dropped: 0,
            estimate: bounded,
        };
    }
    let groups = ChatMessage::exchanges(messages);
    let fixed = system.map_or(0, count).saturating_add(tools.tokens());
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
