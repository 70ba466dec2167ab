//! Anthropic Messages (`POST /v1/messages`): a top-level `system`, strictly alternating
//! user/assistant turns of content blocks (tool results travel in user turns), and an SSE
//! stream of typed events whose tool inputs arrive as `input_json_delta` pieces per block.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Value, json};

use super::openai::{PendingCall, finish_reason};
use super::{
    ChatMessage, ChatRequest, FinishReason, Frame, Framing, ModelInfo, ProviderError,
    ProviderEvent, StreamParser, Thinking, ToolCall, Usage, UserPart, WireFormat, WireRequest,
};

/// The API version sent in `anthropic-version`.
pub(crate) const API_VERSION: &str = "2023-06-01";
/// The `max_tokens` sent when the request leaves it unset (Anthropic requires one).
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 4096;
/// The smallest thinking budget Anthropic accepts.
const MIN_THINKING_BUDGET: u32 = 1024;

/// The Anthropic Messages wire format.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Anthropic;

impl WireFormat for Anthropic {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn build(&self, req: &ChatRequest) -> Result<WireRequest, ProviderError> {
        Ok(WireRequest {
            path: "/v1/messages".into(),
            headers: Vec::new(),
            body: request_body(req),
        })
    }

    fn auth_headers(&self, key: &str) -> Vec<(String, String)> {
        vec![
            ("x-api-key".into(), key.to_owned()),
            ("anthropic-version".into(), API_VERSION.into()),
        ]
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(Parser::default())
    }

    fn models_path(&self) -> String {
        "/v1/models?limit=1000".into()
    }

    fn parse_models(&self, body: &Value) -> Vec<ModelInfo> {
        let list = body.get("data").and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(|m| {
                Some(ModelInfo {
                    id: m.get("id")?.as_str()?.to_owned(),
                    name: m
                        .get("display_name")
                        .and_then(Value::as_str)
                        .map(Into::into),
                })
            })
            .collect()
    }
}

/// The JSON body of a streaming Messages request. Thinking is requested only when a new
/// assistant turn starts: a turn continuing after tool results would have to replay the
/// signed thinking blocks of its start, which the neutral history does not keep. While it
/// thinks, Anthropic's rules are applied rather than sending a request it refuses (see
/// [`thinking_rules`]).
pub(crate) fn request_body(req: &ChatRequest) -> Value {
    let messages = messages(&req.messages);
    let thinking = req
        .thinking
        .as_ref()
        .filter(|t| t.enabled && !continues_tool_loop(&messages));
    let p = &req.params;
    let mut sampling = Sampling {
        max_tokens: p.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        temperature: p.temperature,
        top_p: p.top_p,
        budget: None,
    };
    if let Some(t) = thinking {
        let dropped = thinking_rules(&mut sampling, t);
        if !dropped.is_empty() {
            tracing::info!(model = %req.model, ?dropped, "adjusted the request for Anthropic's thinking rules");
        }
    }
    let mut body = json!({
        "model": req.model,
        "max_tokens": sampling.max_tokens,
        "messages": messages,
        "stream": true,
    });
    let system = req.system.as_deref().filter(|s| !s.is_empty());
    let fields = [
        ("system", system.map(Value::from)),
        ("temperature", sampling.temperature.map(Value::from)),
        ("top_p", sampling.top_p.map(Value::from)),
        (
            "stop_sequences",
            (!p.stop.is_empty()).then(|| json!(p.stop)),
        ),
        ("tools", (!req.tools.is_empty()).then(|| tools(req))),
        (
            "thinking",
            sampling
                .budget
                .map(|b| json!({ "type": "enabled", "budget_tokens": b })),
        ),
    ];
    for (k, v) in fields {
        if let Some(v) = v {
            body[k] = v;
        }
    }
    req.merge_extra(&mut body);
    body
}

/// The sampling fields of one request as Anthropic will get them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sampling {
    /// `max_tokens` (thinking included).
    pub max_tokens: u32,
    /// `temperature`.
    pub temperature: Option<f64>,
    /// `top_p`.
    pub top_p: Option<f64>,
    /// `thinking.budget_tokens`, when thinking.
    pub budget: Option<u32>,
}

/// Anthropic's rules for extended thinking, applied to `s`: a budget of at least 1024 (the one
/// asked, else half the tokens), `max_tokens` above it (the budget is added when it is not),
/// no `temperature`, `top_p` only from 0.95 to 1. Returns what was changed or dropped, in words.
pub(crate) fn thinking_rules(s: &mut Sampling, thinking: &Thinking) -> Vec<String> {
    let mut dropped = Vec::new();
    let asked = thinking.budget().unwrap_or(s.max_tokens / 2);
    let budget = asked.max(MIN_THINKING_BUDGET);
    if budget != asked && thinking.budget().is_some() {
        dropped.push(format!(
            "thinking budget {asked} raised to Anthropic's minimum {MIN_THINKING_BUDGET}"
        ));
    }
    if s.max_tokens <= budget {
        let raised = s.max_tokens + budget;
        dropped.push(format!(
            "max_tokens {} raised to {raised} to leave room above the thinking budget",
            s.max_tokens
        ));
        s.max_tokens = raised;
    }
    if let Some(t) = s.temperature.take() {
        dropped.push(format!(
            "temperature {t} left out (not allowed with thinking)"
        ));
    }
    if let Some(p) = s.top_p.filter(|p| !(0.95..=1.0).contains(p)) {
        s.top_p = None;
        dropped.push(format!(
            "top_p {p} left out (only 0.95 to 1 is allowed with thinking)"
        ));
    }
    s.budget = Some(budget);
    dropped
}

/// Whether the last turn hands tool results back (so the assistant turn is still going on).
fn continues_tool_loop(messages: &[Value]) -> bool {
    let last = messages.last().and_then(|m| m["content"].as_array());
    last.into_iter()
        .flatten()
        .any(|b| b["type"] == "tool_result")
}

fn tools(req: &ChatRequest) -> Value {
    req.tools
        .iter()
        .map(|t| json!({ "name": t.name, "description": t.description, "input_schema": t.parameters }))
        .collect()
}

/// Turns of content blocks, consecutive same-role turns merged (Anthropic requires
/// alternation), empty turns dropped.
fn messages(history: &[ChatMessage]) -> Vec<Value> {
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for m in history {
        let (role, blocks) = blocks(m);
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    let turn = |(role, content)| json!({ "role": role, "content": content });
    turns.into_iter().map(turn).collect()
}

fn blocks(m: &ChatMessage) -> (&'static str, Vec<Value>) {
    match m {
        ChatMessage::User { parts } => ("user", parts.iter().filter_map(user_block).collect()),
        ChatMessage::Assistant { text, tool_calls } => {
            let text = (!text.is_empty()).then(|| json!({ "type": "text", "text": text }));
            let calls = tool_calls.iter().map(tool_use);
            ("assistant", text.into_iter().chain(calls).collect())
        }
        ChatMessage::Tool {
            call_id,
            content,
            is_error,
            ..
        } => ("user", vec![tool_result(call_id, content, *is_error)]),
    }
}

/// A tool result block; a failure needs some content (Anthropic rejects it empty).
fn tool_result(call_id: &str, content: &str, is_error: bool) -> Value {
    let content = match content {
        "" if is_error => "the tool failed without saying why",
        c => c,
    };
    json!({ "type": "tool_result", "tool_use_id": call_id,
        "content": content, "is_error": is_error })
}

/// A user part as a block; empty text is dropped (Anthropic rejects empty text blocks).
fn user_block(part: &UserPart) -> Option<Value> {
    match part {
        UserPart::Text { text } if text.is_empty() => None,
        UserPart::Text { text } => Some(json!({ "type": "text", "text": text })),
        UserPart::Image { mime_type, data } => Some(json!({ "type": "image",
            "source": { "type": "base64", "media_type": mime_type, "data": data } })),
    }
}

fn tool_use(c: &ToolCall) -> Value {
    let input = if c.arguments.is_object() {
        c.arguments.clone()
    } else {
        json!({})
    };
    json!({ "type": "tool_use", "id": c.id, "name": c.name, "input": input })
}

/// One SSE event; its `type` repeats the SSE event name.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    MessageStart {
        message: StartedMessage,
    },
    ContentBlockStart {
        index: usize,
        content_block: Block,
    },
    ContentBlockDelta {
        index: usize,
        delta: BlockDelta,
    },
    ContentBlockStop {
        index: usize,
    },
    MessageDelta {
        delta: MessageDelta,
        usage: Option<WireUsage>,
    },
    MessageStop,
    Error {
        error: WireError,
    },
    /// `ping` and event types added later.
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct StartedMessage {
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        #[serde(default)]
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    ToolUse {
        id: String,
        name: String,
    },
    /// `redacted_thinking`, server tools and blocks added later.
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    TextDelta {
        text: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    ThinkingDelta {
        thinking: String,
    },
    /// `signature_delta`, `citations_delta` and deltas added later.
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct MessageDelta {
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct WireError {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    message: String,
}

/// Decodes one Messages stream.
#[derive(Default)]
pub(crate) struct Parser {
    calls: BTreeMap<usize, PendingCall>,
    emitted_calls: bool,
    usage: Usage,
    stop: Option<FinishReason>,
    done: bool,
}

impl Parser {
    fn event(&mut self, event: Event, out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        match event {
            Event::MessageStart { message } => self.add_usage(message.usage),
            Event::ContentBlockStart {
                index,
                content_block,
            } => self.start_block(index, content_block, out),
            Event::ContentBlockDelta { index, delta } => self.delta(index, delta, out),
            Event::ContentBlockStop { index } => self.stop_block(index, out),
            Event::MessageDelta { delta, usage } => {
                self.stop = delta
                    .stop_reason
                    .as_deref()
                    .map(stop_reason)
                    .or(self.stop.take());
                self.add_usage(usage);
            }
            Event::MessageStop => self.end(out),
            Event::Error { error } => return Err(server_error(error)),
            Event::Other => {}
        }
        Ok(())
    }

    /// Input counts include cache reads and writes, which Anthropic reports apart.
    fn add_usage(&mut self, usage: Option<WireUsage>) {
        let Some(u) = usage else { return };
        if let Some(input) = u.input_tokens {
            let cached = u.cache_creation_input_tokens.unwrap_or(0);
            self.usage.input_tokens = input + cached + u.cache_read_input_tokens.unwrap_or(0);
        }
        if let Some(output) = u.output_tokens {
            self.usage.output_tokens = output;
        }
    }

    fn start_block(&mut self, index: usize, block: Block, out: &mut Vec<ProviderEvent>) {
        match block {
            Block::Text { text } if !text.is_empty() => out.push(ProviderEvent::text(text)),
            Block::Thinking { thinking } if !thinking.is_empty() => {
                out.push(ProviderEvent::ReasoningDelta { text: thinking });
            }
            Block::ToolUse { id, name } => {
                let call = PendingCall {
                    id,
                    name,
                    arguments: String::new(),
                };
                self.calls.insert(index, call);
            }
            _ => {}
        }
    }

    fn delta(&mut self, index: usize, delta: BlockDelta, out: &mut Vec<ProviderEvent>) {
        match delta {
            BlockDelta::TextDelta { text } if !text.is_empty() => {
                out.push(ProviderEvent::text(text));
            }
            BlockDelta::ThinkingDelta { thinking } if !thinking.is_empty() => {
                out.push(ProviderEvent::ReasoningDelta { text: thinking });
            }
            BlockDelta::InputJsonDelta { partial_json } => {
                if let Some(call) = self.calls.get_mut(&index) {
                    call.arguments.push_str(&partial_json);
                }
            }
            _ => {}
        }
    }

    fn stop_block(&mut self, index: usize, out: &mut Vec<ProviderEvent>) {
        if let Some(call) = self.calls.remove(&index) {
            self.emitted_calls = true;
            out.push(call.into_event(format!("toolu_{index}")));
        }
    }

    fn end(&mut self, out: &mut Vec<ProviderEvent>) {
        let open: Vec<usize> = self.calls.keys().copied().collect();
        for index in open {
            self.stop_block(index, out);
        }
        let reason = match self.stop.take() {
            Some(r) => r,
            None if self.emitted_calls => FinishReason::ToolCalls,
            None => FinishReason::Stop,
        };
        out.push(ProviderEvent::Usage { usage: self.usage });
        out.push(ProviderEvent::Finish { reason });
        self.done = true;
    }
}

/// Maps a Messages `stop_reason`.
fn stop_reason(r: &str) -> FinishReason {
    match r {
        "stop_sequence" => FinishReason::Stop,
        "refusal" => FinishReason::ContentFilter,
        "model_context_window_exceeded" => FinishReason::Length,
        other => finish_reason(other),
    }
}

/// An in-stream `error` event: 529 for `overloaded_error` (as Anthropic's HTTP status), else 500.
fn server_error(error: WireError) -> ProviderError {
    let status = if error.kind == "overloaded_error" {
        529
    } else {
        500
    };
    let message = if error.message.is_empty() {
        error.kind
    } else {
        error.message
    };
    ProviderError::Server { status, message }
}

impl StreamParser for Parser {
    fn frame(
        &mut self,
        frame: Frame<'_>,
        out: &mut Vec<ProviderEvent>,
    ) -> Result<(), ProviderError> {
        let data = frame.data.trim();
        if self.done || data.is_empty() {
            return Ok(());
        }
        let event: Event = serde_json::from_str(data).map_err(|e| {
            ProviderError::MalformedStream(format!("an event is not valid ({e}): {data:.200}"))
        })?;
        self.event(event, out)
    }

    /// Without `message_stop` the answer is incomplete; blocks still open are dropped.
    fn finish(&mut self, _out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        if self.done {
            return Ok(());
        }
        Err(ProviderError::MalformedStream(
            "the stream ended before message_stop".into(),
        ))
    }
}

#[cfg(test)]
mod tests;
