//! Prompt-mode tool calling, for models and endpoints without native function calling: the
//! tools are described in the system prompt ([`tools_system_prompt`]), the model answers with
//! fenced `{"tool": …, "arguments": {…}}` blocks, and its reply text is scanned for calls
//! ([`extract_tool_calls`]). [`to_prompt_request`] rewrites a native request (tools, earlier
//! calls and results) into that form, [`PromptTools`] wraps any provider to speak it, and
//! [`ModeSwitch`] picks native or prompt mode per request, learning which models need prompt
//! mode.

mod extract;
mod repair;
mod stream;
mod switch;
#[cfg(test)]
mod tests;

use serde_json::Value;

use super::{ChatMessage, ChatRequest, ToolCall, ToolSpec, UserPart};

pub use crate::vocab::ToolMode;
pub use extract::{Extraction, extract_tool_calls};
pub use stream::{PromptTools, scan_events as scan_tool_calls, scan_native_text};
pub use switch::{ModeSwitch, PromptOnlyModels};

const HOW_TO_CALL: &str = r#"
# How to call a tool

To call a tool, reply with a fenced JSON code block holding one object with the tool's name and its arguments:

```json
{"tool": "tool_name", "arguments": {"argument_name": "value"}}
```

- One block per reply; to call several tools at once, put an array of such objects in it.
- Put only the JSON object in the block: no comments, no other text.
- `arguments` is a JSON object that follows the tool's parameters; use {} when it has none.
- Use only the tools listed above, spelled exactly as listed.
- After your calls, stop: the results come back in the next message.
- When no tool is needed, answer normally, without any JSON block."#;

/// The instructions that describe `tools` and how to call them, for the end of the system
/// prompt; empty when there are no tools.
pub fn tools_system_prompt(tools: &[ToolSpec]) -> String {
    if tools.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "# Tools\n\nYou can call these tools. Each has a name, a description and its \
         parameters as a JSON Schema.\n",
    );
    for tool in tools {
        out.push_str(&format!("\n## {}\n", tool.name));
        let description = tool.description.trim();
        if !description.is_empty() {
            out.push_str(&format!("{description}\n"));
        }
        let parameters = match &tool.parameters {
            Value::Null => "{}".to_owned(),
            p => p.to_string(),
        };
        out.push_str(&format!("Parameters: {parameters}\n"));
    }
    out.push_str(HOW_TO_CALL);
    out
}

/// The user message that carries a tool's result (or its failure) back to the model.
pub fn tool_result_message(name: &str, content: &str, is_error: bool) -> String {
    let body = match content.trim() {
        "" => "(no output)",
        body => body,
    };
    let lang = match serde_json::from_str::<Value>(body) {
        Ok(_) if !is_error => "json",
        _ => "text",
    };
    let fence = fence_for(body);
    let block = format!("{fence}{lang}\n{body}\n{fence}");
    if is_error {
        format!(
            "The call to {name} failed:\n{block}\nCheck the arguments and try again, or go on \
             without this tool."
        )
    } else {
        format!("Tool result for {name}:\n{block}")
    }
}

/// A backtick fence longer than any backtick run in `body`.
fn fence_for(body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// A tool call as the fenced block a model writes in prompt mode.
pub fn call_block(call: &ToolCall) -> String {
    let name = Value::String(call.name.clone());
    format!(
        "```json\n{{\"tool\": {name}, \"arguments\": {}}}\n```",
        call.arguments
    )
}

/// How the message that carries a turn's last results asks for the answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AnswerAsk {
    /// The question again ([`MAX_RESTATED`] characters at most), to be answered from the
    /// results.
    #[default]
    Question,
    /// The same, and "Answer in plain words.": for small models, which otherwise talk about
    /// the result's format or the code that would read it (`time.strftime`, a JSON parser).
    PlainWords,
}

/// Rewrites a native request into prompt mode: the tools move into the system prompt, earlier
/// calls become fenced blocks in the assistant's text, and tool results become user messages
/// (consecutive results in one message; the last ones ask for the answer, [`AnswerAsk`]).
pub fn to_prompt_request(req: &ChatRequest) -> ChatRequest {
    to_prompt_request_asking(req, AnswerAsk::default())
}

/// [`to_prompt_request`], the answer after the turn's results asked for as `ask` says.
pub fn to_prompt_request_asking(req: &ChatRequest, ask: AnswerAsk) -> ChatRequest {
    ChatRequest {
        system: prompt_system(req),
        messages: prompt_messages(&req.messages, ask),
        tools: Vec::new(),
        ..req.clone()
    }
}

fn prompt_system(req: &ChatRequest) -> Option<String> {
    let tools = tools_system_prompt(&req.tools);
    let own = req.system.as_deref().map(str::trim_end);
    match own.filter(|s| !s.is_empty()) {
        _ if tools.is_empty() => req.system.clone(),
        Some(own) => Some(format!("{own}\n\n{tools}")),
        None => Some(tools),
    }
}

fn prompt_messages(messages: &[ChatMessage], ask: AnswerAsk) -> Vec<ChatMessage> {
    let mut out = Vec::with_capacity(messages.len());
    let mut results: Vec<String> = Vec::new();
    for message in messages {
        if let ChatMessage::Tool {
            name,
            content,
            is_error,
            ..
        } = message
        {
            results.push(tool_result_message(name, content, *is_error));
            continue;
        }
        flush_results(&mut results, &mut out);
        out.push(match message {
            ChatMessage::Assistant { text, tool_calls } if !tool_calls.is_empty() => {
                ChatMessage::Assistant {
                    text: assistant_text(text, tool_calls),
                    tool_calls: Vec::new(),
                }
            }
            other => other.clone(),
        });
    }
    if !results.is_empty() {
        results.push(answer_request(last_question(messages).as_deref(), ask));
    }
    flush_results(&mut results, &mut out);
    out
}

/// The longest question said again after the results; a longer one is referred to.
pub const MAX_RESTATED: usize = 500;

/// The lines after results that end the conversation (the model answers next): the question
/// again, so that the answer is to it — small models otherwise describe the result's format or
/// call the tool again — and, as `ask` says, plain words asked for.
fn answer_request(question: Option<&str>, ask: AnswerAsk) -> String {
    let question = question.map(str::trim).filter(|q| !q.is_empty());
    let mut out = match question {
        Some(q) if q.chars().count() <= MAX_RESTATED => {
            format!("Use these results to answer the question: {q}")
        }
        Some(_) => "Use these results to answer the question above.".to_owned(),
        None => "Use these results to answer the question.".to_owned(),
    };
    if ask == AnswerAsk::PlainWords {
        out.push_str("\nAnswer in plain words.");
    }
    out
}

/// The text of the last user message (the question the turn's results are for).
fn last_question(messages: &[ChatMessage]) -> Option<String> {
    messages.iter().rev().find_map(|m| match m {
        ChatMessage::User { parts } => Some(UserPart::text_of(parts)),
        _ => None,
    })
}

fn flush_results(results: &mut Vec<String>, out: &mut Vec<ChatMessage>) {
    if !results.is_empty() {
        let text = std::mem::take(results).join("\n\n");
        out.push(ChatMessage::User {
            parts: vec![UserPart::Text { text }],
        });
    }
}

fn assistant_text(text: &str, calls: &[ToolCall]) -> String {
    let text = text.trim();
    let blocks = calls.iter().map(call_block);
    let parts: Vec<String> = (!text.is_empty())
        .then(|| text.to_owned())
        .into_iter()
        .chain(blocks)
        .collect();
    parts.join("\n\n")
}

/// Whether the conversation holds tool calls or results (which a prompt-mode model can only
/// read once rewritten).
fn has_tool_history(req: &ChatRequest) -> bool {
    req.messages.iter().any(|m| match m {
        ChatMessage::Assistant { tool_calls, .. } => !tool_calls.is_empty(),
        ChatMessage::Tool { .. } => true,
        ChatMessage::User { .. } => false,
    })
}
