//! An OpenAI `POST /v1/chat/completions` body, read into the provider-neutral [`ChatRequest`]:
//! system and developer messages become the system prompt, user text and `data:` images the
//! user parts, an assistant's `tool_calls` and the `tool` messages that answer them the calls
//! and results, `tools` the tool specs. What cannot be honoured is refused with the field it
//! concerns (`n` > 1, an image by URL, a tool result that answers no call) rather than ignored.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::provider::{
    ChatMessage, ChatRequest, ReasoningEffort, SamplingParams, Thinking, ToolCall, ToolSpec,
    UserPart,
};

/// A request the API cannot take: what is wrong, and the field it concerns.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct BadRequest {
    /// What is wrong.
    pub(crate) message: String,
    /// The request field, as OpenAI names it (`messages[2].content`).
    pub(crate) param: Option<String>,
}

impl BadRequest {
    fn at(param: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            param: Some(param.into()),
        }
    }
}

/// The fields of a chat-completions body that Switchboard reads (others are ignored, as
/// OpenAI-compatible servers do).
#[derive(Debug, Deserialize)]
struct Body {
    model: String,
    messages: Vec<Value>,
    #[serde(default)]
    tools: Vec<InTool>,
    #[serde(default)]
    tool_choice: Option<Value>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    stream_options: Option<StreamOptions>,
    temperature: Option<f64>,
    top_p: Option<f64>,
    max_tokens: Option<u32>,
    max_completion_tokens: Option<u32>,
    #[serde(default)]
    stop: Option<Stop>,
    seed: Option<u64>,
    n: Option<u32>,
    reasoning_effort: Option<String>,
}

#[derive(Debug, Deserialize)]
struct StreamOptions {
    #[serde(default)]
    include_usage: bool,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Stop {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize)]
struct InTool {
    #[serde(rename = "type", default = "function_type")]
    kind: String,
    function: InFunction,
}

fn function_type() -> String {
    "function".into()
}

#[derive(Debug, Deserialize)]
struct InFunction {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    parameters: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum InMessage {
    System {
        content: Content,
    },
    Developer {
        content: Content,
    },
    User {
        content: Content,
    },
    Assistant {
        #[serde(default)]
        content: Option<Content>,
        #[serde(default)]
        tool_calls: Vec<InCall>,
    },
    Tool {
        tool_call_id: String,
        content: Content,
    },
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Debug, Deserialize)]
struct ImageUrl {
    url: String,
}

#[derive(Debug, Deserialize)]
struct InCall {
    id: String,
    function: InCallFunction,
}

#[derive(Debug, Deserialize)]
struct InCallFunction {
    name: String,
    #[serde(default)]
    arguments: String,
}

/// A chat-completions request as Switchboard runs it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Completion {
    /// The model id the client asked for (`provider/model`, or an assistant).
    pub(crate) model: String,
    /// The request for the provider; its `model` is filled in once the id is resolved.
    pub(crate) request: ChatRequest,
    /// Whether the answer streams as server-sent events.
    pub(crate) stream: bool,
    /// Whether a streamed answer ends with a usage chunk.
    pub(crate) include_usage: bool,
}

/// Reads a chat-completions body.
pub(crate) fn parse(body: &[u8]) -> Result<Completion, BadRequest> {
    let body: Body = serde_json::from_slice(body).map_err(|e| BadRequest {
        message: format!("the body is not a chat completion request: {e}"),
        param: None,
    })?;
    if body.n.is_some_and(|n| n != 1) {
        return Err(BadRequest::at("n", "only one choice is made (n = 1)"));
    }
    if body.messages.is_empty() {
        return Err(BadRequest::at("messages", "at least one message is needed"));
    }
    let (system, messages) = messages(body.messages)?;
    let tools = if matches!(&body.tool_choice, Some(Value::String(s)) if s == "none") {
        Vec::new()
    } else {
        tools(body.tools)?
    };
    let stop = match body.stop {
        None => Vec::new(),
        Some(Stop::One(s)) => vec![s],
        Some(Stop::Many(v)) => v,
    };
    let request = ChatRequest {
        model: String::new(),
        system,
        messages,
        tools,
        params: SamplingParams {
            temperature: body.temperature,
            top_p: body.top_p,
            max_tokens: body.max_completion_tokens.or(body.max_tokens),
            stop,
            seed: body.seed,
        },
        thinking: body.reasoning_effort.as_deref().map(thinking).transpose()?,
        context_window: None,
        extra: serde_json::Map::new(),
    };
    Ok(Completion {
        model: body.model,
        request,
        stream: body.stream,
        include_usage: body.stream_options.is_some_and(|o| o.include_usage),
    })
}

/// `reasoning_effort` as the neutral request says it.
fn thinking(effort: &str) -> Result<Thinking, BadRequest> {
    let level = |effort| Thinking {
        enabled: true,
        effort: Some(effort),
        budget_tokens: None,
    };
    match effort {
        "none" => Ok(Thinking::default()),
        "minimal" | "low" => Ok(level(ReasoningEffort::Low)),
        "medium" => Ok(level(ReasoningEffort::Medium)),
        "high" | "xhigh" => Ok(level(ReasoningEffort::High)),
        other => Err(BadRequest::at(
            "reasoning_effort",
            format!("`{other}` is not a reasoning effort (none, minimal, low, medium or high)"),
        )),
    }
}

/// The offered tools.
fn tools(tools: Vec<InTool>) -> Result<Vec<ToolSpec>, BadRequest> {
    tools
        .into_iter()
        .enumerate()
        .map(|(i, tool)| {
            if tool.kind != "function" {
                return Err(BadRequest::at(
                    format!("tools[{i}].type"),
                    format!("`{}` tools are not offered; only `function`", tool.kind),
                ));
            }
            let name = tool.function.name;
            if name.is_empty() || name.len() > 64 {
                return Err(BadRequest::at(
                    format!("tools[{i}].function.name"),
                    "a tool name has 1 to 64 characters",
                ));
            }
            Ok(ToolSpec {
                name,
                description: tool.function.description.unwrap_or_default(),
                parameters: tool
                    .function
                    .parameters
                    .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}})),
            })
        })
        .collect()
}

/// The system prompt (every system and developer message, in order) and the conversation.
fn messages(raw: Vec<Value>) -> Result<(Option<String>, Vec<ChatMessage>), BadRequest> {
    let mut system: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut call_names: HashMap<String, String> = HashMap::new();
    for (i, value) in raw.into_iter().enumerate() {
        let at = |field: &str| format!("messages[{i}]{field}");
        let message: InMessage = serde_json::from_value(value)
            .map_err(|e| BadRequest::at(at(""), format!("not a chat message: {e}")))?;
        match message {
            InMessage::System { content } | InMessage::Developer { content } => {
                system.push(text_only(content, &at(".content"))?);
            }
            InMessage::User { content } => out.push(ChatMessage::User {
                parts: user_parts(content, &at(".content"))?,
            }),
            InMessage::Assistant {
                content,
                tool_calls,
            } => {
                let text = match content {
                    Some(content) => text_only(content, &at(".content"))?,
                    None => String::new(),
                };
                let mut calls = Vec::with_capacity(tool_calls.len());
                for (j, call) in tool_calls.into_iter().enumerate() {
                    let arguments = arguments(&call.function.arguments).map_err(|e| {
                        BadRequest::at(at(&format!(".tool_calls[{j}].function.arguments")), e)
                    })?;
                    call_names.insert(call.id.clone(), call.function.name.clone());
                    calls.push(ToolCall {
                        id: call.id,
                        name: call.function.name,
                        arguments,
                    });
                }
                out.push(ChatMessage::Assistant {
                    text,
                    tool_calls: calls,
                });
            }
            InMessage::Tool {
                tool_call_id,
                content,
            } => {
                let Some(name) = call_names.get(&tool_call_id) else {
                    return Err(BadRequest::at(
                        at(".tool_call_id"),
                        format!(
                            "`{tool_call_id}` answers no tool call of an earlier assistant message"
                        ),
                    ));
                };
                out.push(ChatMessage::Tool {
                    call_id: tool_call_id,
                    name: name.clone(),
                    content: text_only(content, &at(".content"))?,
                    is_error: false,
                });
            }
        }
    }
    let system = (!system.is_empty()).then(|| system.join("\n\n"));
    Ok((system, out))
}

/// A call's arguments: a JSON object (an empty string is no arguments).
fn arguments(raw: &str) -> Result<Value, String> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("the arguments are not a JSON object".into()),
        Err(e) => Err(format!("the arguments are not JSON: {e}")),
    }
}

/// Content that may only be text (system, assistant and tool messages).
fn text_only(content: Content, param: &str) -> Result<String, BadRequest> {
    match content {
        Content::Text(text) => Ok(text),
        Content::Parts(parts) => {
            let mut texts = Vec::with_capacity(parts.len());
            for part in parts {
                match part {
                    Part::Text { text } => texts.push(text),
                    Part::ImageUrl { .. } => {
                        return Err(BadRequest::at(
                            param,
                            "only a user message may hold an image",
                        ));
                    }
                }
            }
            Ok(texts.join("\n"))
        }
    }
}

/// A user message's parts: text, and images sent as `data:` URLs.
fn user_parts(content: Content, param: &str) -> Result<Vec<UserPart>, BadRequest> {
    match content {
        Content::Text(text) => Ok(vec![UserPart::Text { text }]),
        Content::Parts(parts) => parts
            .into_iter()
            .map(|part| match part {
                Part::Text { text } => Ok(UserPart::Text { text }),
                Part::ImageUrl { image_url } => image(&image_url.url)
                    .ok_or_else(|| BadRequest::at(param, "an image is sent as a base64 `data:` URL (data:image/png;base64,…); Switchboard does not fetch image URLs")),
            })
            .collect(),
    }
}

/// The image in a `data:<mime>;base64,<data>` URL.
fn image(url: &str) -> Option<UserPart> {
    let rest = url.strip_prefix("data:")?;
    let (meta, data) = rest.split_once(',')?;
    let mime_type = meta.strip_suffix(";base64")?;
    if !mime_type.starts_with("image/") || data.is_empty() {
        return None;
    }
    Some(UserPart::Image {
        mime_type: mime_type.to_owned(),
        data: data.to_owned(),
    })
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
