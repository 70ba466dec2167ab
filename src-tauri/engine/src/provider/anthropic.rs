//! Anthropic Messages (`POST /v1/messages`): a top-level `system`, strictly alternating
//! user/assistant turns of content blocks (tool results travel in user turns), and an SSE
//! stream of typed events whose tool inputs arrive as `input_json_delta` pieces per block.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Value, json};

use super::openai::{PendingCall, finish_reason};
use super::{
    ChatMessage, ChatRequest, FinishReason, Frame, Framing, ModelInfo, ProviderError,
    ProviderEvent, StreamParser, ToolCall, Usage, UserPart, WireFormat, WireRequest,
};

/// The API version sent in `anthropic-version`.
pub const API_VERSION: &str = "2023-06-01";
/// The `max_tokens` sent when the request leaves it unset (Anthropic requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;
/// The smallest thinking budget Anthropic accepts.
const MIN_THINKING_BUDGET: u32 = 1024;

/// The Anthropic Messages wire format.
#[derive(Clone, Copy, Debug, Default)]
pub struct Anthropic;

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
/// signed thinking blocks of its start, which the neutral history does not keep.
pub fn request_body(req: &ChatRequest) -> Value {
    let messages = messages(&req.messages);
    let thinking = req.reasoning == Some(true) && !continues_tool_loop(&messages);
    let max_tokens = req.params.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let mut body = json!({
        "model": req.model,
        "max_tokens": max_tokens,
        "messages": messages,
        "stream": true,
    });
    let p = &req.params;
    let system = req.system.as_deref().filter(|s| !s.is_empty());
    let fields = [
        ("system", system.map(Value::from)),
        // Anthropic rejects sampling changes while thinking.
        (
            "temperature",
            p.temperature.filter(|_| !thinking).map(Value::from),
        ),
        ("top_p", p.top_p.filter(|_| !thinking).map(Value::from)),
        (
            "stop_sequences",
            (!p.stop.is_empty()).then(|| json!(p.stop)),
        ),
        ("tools", (!req.tools.is_empty()).then(|| tools(req))),
    ];
    for (k, v) in fields {
        if let Some(v) = v {
            body[k] = v;
        }
    }
    if thinking {
        add_thinking(&mut body, max_tokens);
    }
    req.merge_extra(&mut body);
    body
}

/// A budget of half the tokens (at least the minimum), leaving room for the answer.
fn add_thinking(body: &mut Value, max_tokens: u32) {
    let budget = (max_tokens / 2).max(MIN_THINKING_BUDGET);
    if max_tokens <= budget {
        body["max_tokens"] = json!(max_tokens + budget);
    }
    body["thinking"] = json!({ "type": "enabled", "budget_tokens": budget });
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
pub struct Parser {
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
mod tests {
    use super::*;
    use crate::provider::framing::decode_at_every_split;
    use crate::provider::{SamplingParams, ToolSpec, wire_format};

    type Decoded = Vec<Result<ProviderEvent, ProviderError>>;

    async fn decode(body: &str) -> Decoded {
        decode_at_every_split(
            body.as_bytes(),
            Framing::Sse,
            || Box::new(Parser::default()),
        )
        .await
        .unwrap()
    }

    /// SSE events from `(name, data)` pairs.
    fn sse(events: &[(&str, &str)]) -> String {
        let event = |(name, data): &(&str, &str)| format!("event: {name}\ndata: {data}\n\n");
        events.iter().map(event).collect()
    }

    const START: (&str, &str) = (
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}"#,
    );
    const TEXT_START: (&str, &str) = (
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    );
    const TEXT_HI: (&str, &str) = (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
    );

    /// The basic example of Anthropic's streaming documentation.
    const DOCS_TEXT: &str = r#"event: message_start
data: {"type": "message_start", "message": {"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}

event: content_block_start
data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "!"}}

event: content_block_stop
data: {"type": "content_block_stop", "index": 0}

event: message_delta
data: {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence":null}, "usage": {"output_tokens": 15}}

event: message_stop
data: {"type": "message_stop"}

"#;

    /// Thinking, text and a tool call, shaped like the documentation's extended-thinking and
    /// tool-use streaming examples.
    const DOCS_THINKING_AND_TOOL: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_sequence":null,"usage":{"input_tokens":472,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2},"content":[],"stop_reason":null}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user wants the weather in São Paulo."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" I should call get_weather."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Okay, let's check the weather"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" for São Paulo — one moment."}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"location\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":" \"São Paulo, "}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"BR\", \"unit\": \"celsius\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}

"#;

    fn usage(input_tokens: u64, output_tokens: u64) -> ProviderEvent {
        ProviderEvent::Usage {
            usage: Usage {
                input_tokens,
                output_tokens,
            },
        }
    }

    fn finish(reason: FinishReason) -> ProviderEvent {
        ProviderEvent::Finish { reason }
    }

    fn reasoning(text: &str) -> ProviderEvent {
        ProviderEvent::ReasoningDelta { text: text.into() }
    }

    #[tokio::test]
    async fn the_documented_text_stream_ends_with_usage_then_stop() {
        let expected = vec![
            Ok(ProviderEvent::text("Hello")),
            Ok(ProviderEvent::text("!")),
            Ok(usage(25, 15)),
            Ok(finish(FinishReason::Stop)),
        ];
        assert_eq!(decode(DOCS_TEXT).await, expected);
    }

    #[tokio::test]
    async fn a_tool_use_block_streamed_in_pieces_becomes_one_call_after_thinking_and_text() {
        let call = ToolCall {
            id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".into(),
            name: "get_weather".into(),
            arguments: json!({ "location": "São Paulo, BR", "unit": "celsius" }),
        };
        let expected = vec![
            Ok(reasoning("The user wants the weather in São Paulo.")),
            Ok(reasoning(" I should call get_weather.")),
            Ok(ProviderEvent::text("Okay, let's check the weather")),
            Ok(ProviderEvent::text(" for São Paulo — one moment.")),
            Ok(ProviderEvent::ToolCall { call }),
            Ok(usage(472, 89)),
            Ok(finish(FinishReason::ToolCalls)),
        ];
        assert_eq!(decode(DOCS_THINKING_AND_TOOL).await, expected);
    }

    #[tokio::test]
    async fn a_garbage_data_line_fails_after_the_events_before_it() {
        let body = sse(&[
            START,
            TEXT_START,
            TEXT_HI,
            ("content_block_delta", "{not json"),
        ]);
        let got = decode(&body).await;
        assert_eq!(got[..1], [Ok(ProviderEvent::text("Hi"))]);
        assert!(
            matches!(got[1], Err(ProviderError::MalformedStream(_))),
            "{got:?}"
        );
        assert_eq!(got.len(), 2);
    }

    #[tokio::test]
    async fn a_stream_cut_before_message_stop_is_malformed_after_its_events() {
        let delta = (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#,
        );
        let expected = vec![
            Ok(ProviderEvent::text("Hi")),
            Err(ProviderError::MalformedStream(
                "the stream ended before message_stop".into(),
            )),
        ];
        assert_eq!(
            decode(&sse(&[START, TEXT_START, TEXT_HI, delta])).await,
            expected
        );
    }

    #[tokio::test]
    async fn an_error_event_is_a_server_error_529_when_overloaded_else_500() {
        let overloaded =
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
        let expected = vec![
            Ok(ProviderEvent::text("Hi")),
            Err(ProviderError::Server {
                status: 529,
                message: "Overloaded".into(),
            }),
        ];
        let body = sse(&[START, TEXT_START, TEXT_HI, ("error", overloaded)]);
        assert_eq!(decode(&body).await, expected);
        let api =
            r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#;
        let expected = vec![Err(ProviderError::Server {
            status: 500,
            message: "Internal server error".into(),
        })];
        assert_eq!(decode(&sse(&[("error", api)])).await, expected);
    }

    #[tokio::test]
    async fn invalid_tool_json_becomes_a_tool_call_invalid() {
        let body = sse(&[
            START,
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_9","name":"get_weather","input":{}}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Par"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":4096}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ]);
        let got = decode(&body).await;
        let Ok(ProviderEvent::ToolCallInvalid {
            id,
            name,
            raw,
            error,
        }) = &got[0]
        else {
            panic!("{got:?}");
        };
        assert_eq!((id.as_str(), name.as_str()), ("toolu_9", "get_weather"));
        assert_eq!(raw, r#"{"city": "Par"#);
        assert!(error.contains("not valid JSON"), "{error}");
        assert_eq!(
            got[1..],
            [Ok(usage(10, 4096)), Ok(finish(FinishReason::Length))]
        );
    }

    #[test]
    fn stop_reasons_map_to_finish_reasons() {
        let cases = [
            ("end_turn", FinishReason::Stop),
            ("max_tokens", FinishReason::Length),
            ("tool_use", FinishReason::ToolCalls),
            ("stop_sequence", FinishReason::Stop),
            ("refusal", FinishReason::ContentFilter),
            ("pause_turn", FinishReason::Other("pause_turn".into())),
        ];
        for (wire, reason) in cases {
            assert_eq!(stop_reason(wire), reason, "{wire}");
        }
    }

    fn call(id: &str, city: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "get_weather".into(),
            arguments: json!({ "city": city }),
        }
    }

    fn result_message(call_id: &str, content: &str, is_error: bool) -> ChatMessage {
        ChatMessage::Tool {
            call_id: call_id.into(),
            name: "get_weather".into(),
            content: content.into(),
            is_error,
        }
    }

    /// A conversation with every kind of message: two parallel calls, their results and a
    /// follow-up.
    fn request() -> ChatRequest {
        let question = vec![
            UserPart::Text {
                text: "What's the weather here and in Rome?".into(),
            },
            UserPart::Image {
                mime_type: "image/png".into(),
                data: "iVBORw0KGgo=".into(),
            },
        ];
        ChatRequest {
            model: "claude-sonnet-4-5".into(),
            system: Some("Be brief.".into()),
            messages: vec![
                ChatMessage::User { parts: question },
                ChatMessage::Assistant {
                    text: "Checking both.".into(),
                    tool_calls: vec![call("toolu_a", "Paris"), call("toolu_b", "Rome")],
                },
                result_message("toolu_a", "18°C, sunny", false),
                result_message("toolu_b", "", true),
                ChatMessage::user("And tomorrow?"),
            ],
            tools: vec![ToolSpec {
                name: "get_weather".into(),
                description: "Current weather for a city".into(),
                parameters: json!({ "type": "object",
                    "properties": { "city": { "type": "string" } }, "required": ["city"] }),
            }],
            params: SamplingParams {
                temperature: Some(0.5),
                stop: vec!["END".into()],
                seed: Some(7),
                ..SamplingParams::default()
            },
            ..ChatRequest::default()
        }
    }

    #[test]
    fn tool_results_and_the_follow_up_share_one_user_turn() {
        let body = Anthropic.build(&request()).unwrap().body;
        let expected = json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 4096,
            "stream": true,
            "system": "Be brief.",
            "temperature": 0.5,
            "stop_sequences": ["END"],
            "tools": [{ "name": "get_weather", "description": "Current weather for a city",
                "input_schema": { "type": "object",
                    "properties": { "city": { "type": "string" } }, "required": ["city"] } }],
            "messages": [
                { "role": "user", "content": [
                    { "type": "text", "text": "What's the weather here and in Rome?" },
                    { "type": "image", "source": { "type": "base64",
                        "media_type": "image/png", "data": "iVBORw0KGgo=" } },
                ] },
                { "role": "assistant", "content": [
                    { "type": "text", "text": "Checking both." },
                    { "type": "tool_use", "id": "toolu_a", "name": "get_weather",
                        "input": { "city": "Paris" } },
                    { "type": "tool_use", "id": "toolu_b", "name": "get_weather",
                        "input": { "city": "Rome" } },
                ] },
                { "role": "user", "content": [
                    { "type": "tool_result", "tool_use_id": "toolu_a",
                        "content": "18°C, sunny", "is_error": false },
                    { "type": "tool_result", "tool_use_id": "toolu_b",
                        "content": "the tool failed without saying why", "is_error": true },
                    { "type": "text", "text": "And tomorrow?" },
                ] },
            ],
        });
        assert_eq!(body, expected);
    }

    #[test]
    fn reasoning_opens_a_turn_with_a_thinking_budget_and_no_sampling_changes() {
        let mut req = ChatRequest {
            model: "claude-sonnet-4-5".into(),
            messages: vec![ChatMessage::user("Why is the sky blue?")],
            reasoning: Some(true),
            params: SamplingParams {
                temperature: Some(0.2),
                ..SamplingParams::default()
            },
            ..ChatRequest::default()
        };
        let expected = json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 4096,
            "stream": true,
            "thinking": { "type": "enabled", "budget_tokens": 2048 },
            "messages": [{ "role": "user",
                "content": [{ "type": "text", "text": "Why is the sky blue?" }] }],
        });
        assert_eq!(request_body(&req), expected);
        req.params.max_tokens = Some(1000);
        let body = request_body(&req);
        assert_eq!(
            (&body["max_tokens"], &body["thinking"]["budget_tokens"]),
            (&json!(2024), &json!(1024))
        );
    }

    #[test]
    fn reasoning_is_left_off_while_a_tool_loop_continues() {
        let req = ChatRequest {
            reasoning: Some(true),
            ..request()
        };
        let body = request_body(&req);
        assert_eq!(body.get("thinking"), None);
        assert_eq!(body["temperature"], json!(0.5));
    }

    #[test]
    fn the_format_is_registered_with_its_headers_and_model_list() {
        let format = wire_format(crate::provider::ProviderKind::Anthropic);
        let headers = format.auth_headers("sk-ant-1");
        assert_eq!(
            headers,
            [
                ("x-api-key".to_owned(), "sk-ant-1".to_owned()),
                ("anthropic-version".to_owned(), "2023-06-01".to_owned()),
            ]
        );
        assert_eq!(format.build(&request()).unwrap().path, "/v1/messages");
        assert_eq!(format.models_path(), "/v1/models?limit=1000");
        let body = json!({ "data": [
            { "type": "model", "id": "claude-sonnet-4-5-20250929", "display_name": "Claude Sonnet 4.5",
                "created_at": "2025-09-29T00:00:00Z" },
            { "type": "model", "id": "claude-haiku-4-5" },
        ], "has_more": false, "first_id": "claude-sonnet-4-5-20250929", "last_id": "claude-haiku-4-5" });
        let expected = vec![
            ModelInfo {
                id: "claude-sonnet-4-5-20250929".into(),
                name: Some("Claude Sonnet 4.5".into()),
            },
            ModelInfo {
                id: "claude-haiku-4-5".into(),
                name: None,
            },
        ];
        assert_eq!(format.parse_models(&body), expected);
    }
}
