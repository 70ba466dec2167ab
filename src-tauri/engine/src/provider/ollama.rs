//! Ollama's native `/api/chat`: an NDJSON stream whose `tool_calls` carry `arguments` as a JSON
//! object and no id (we synthesize stable ones), `thinking` text (or `<think>` opening the
//! content), `done_reason`, and eval counts
//! as usage; models from `/api/tags`.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::openai::{bearer, finish_reason, tools};
use super::think_tags::ThinkTags;
use super::{
    ChatMessage, ChatRequest, ContextRequest, FinishReason, Frame, Framing, ModelInfo,
    ProviderError, ProviderEvent, StreamParser, Thinking, ToolCall, Usage, UserPart, WireFormat,
    WireRequest, tokens,
};

/// The Ollama native wire format.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ollama;

impl WireFormat for Ollama {
    fn framing(&self) -> Framing {
        Framing::Ndjson
    }

    fn build(&self, req: &ChatRequest) -> Result<WireRequest, ProviderError> {
        Ok(WireRequest {
            path: "/api/chat".into(),
            headers: Vec::new(),
            body: request_body(req),
        })
    }

    fn auth_headers(&self, key: &str) -> Vec<(String, String)> {
        bearer(key)
    }

    fn parser(&self) -> Box<dyn StreamParser> {
        Box::new(Parser::default())
    }

    fn models_path(&self) -> String {
        "/api/tags".into()
    }

    fn parse_models(&self, body: &Value) -> Vec<ModelInfo> {
        let list = body.get("models").and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(|m| {
                m.get("name")
                    .or_else(|| m.get("model"))
                    .and_then(Value::as_str)
            })
            .map(|id| ModelInfo {
                id: id.to_owned(),
                name: None,
            })
            .collect()
    }

    /// `/api/show`, whose `model_info` holds `<architecture>.context_length`.
    fn context_request(&self, model: &str) -> Option<ContextRequest> {
        Some(ContextRequest {
            path: "/api/show".into(),
            body: Some(json!({ "model": model })),
        })
    }

    /// `capabilities` (Ollama 0.6.4 and later) lists `"vision"` for a model that sees images.
    fn parse_vision(&self, _model: &str, body: &Value) -> Option<bool> {
        let caps = body.get("capabilities")?.as_array()?;
        Some(caps.iter().any(|c| c == "vision"))
    }

    fn parse_context_window(&self, _model: &str, body: &Value) -> Option<u32> {
        let info = body.get("model_info")?.as_object()?;
        let arch = info.get("general.architecture").and_then(Value::as_str);
        let named = arch.and_then(|a| info.get(&format!("{a}.context_length")));
        let any = || {
            info.iter()
                .find(|(k, _)| k.ends_with(".context_length"))
                .map(|(_, v)| v)
        };
        named.or_else(any).and_then(tokens)
    }
}

/// The JSON body of a streaming `/api/chat` request.
pub(crate) fn request_body(req: &ChatRequest) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = req.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({ "role": "system", "content": system }));
    }
    messages.extend(req.messages.iter().map(message));
    let mut body = json!({ "model": req.model, "messages": messages, "stream": true });
    if !req.tools.is_empty() {
        body["tools"] = tools(req);
    }
    let options = options(req);
    if !options.is_empty() {
        body["options"] = Value::Object(options);
    }
    if let Some(thinking) = &req.thinking {
        body["think"] = think(thinking);
    }
    req.merge_extra(&mut body);
    body
}

/// `think`: a level when one is given (gpt-oss and newer models take one), else on or off.
fn think(thinking: &Thinking) -> Value {
    match thinking.effort {
        Some(effort) if thinking.enabled => json!(effort.as_str()),
        _ => json!(thinking.enabled),
    }
}

fn options(req: &ChatRequest) -> Map<String, Value> {
    let p = &req.params;
    let fields = [
        ("temperature", p.temperature.map(Value::from)),
        ("top_p", p.top_p.map(Value::from)),
        ("num_predict", p.max_tokens.map(Value::from)),
        ("num_ctx", req.context_window.map(Value::from)),
        ("seed", p.seed.map(Value::from)),
        ("stop", (!p.stop.is_empty()).then(|| json!(p.stop))),
    ];
    fields
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
        .collect()
}

fn message(m: &ChatMessage) -> Value {
    match m {
        ChatMessage::User { parts } => {
            let images: Vec<&str> = parts
                .iter()
                .filter_map(|p| match p {
                    UserPart::Image { data, .. } => Some(data.as_str()),
                    UserPart::Text { .. } => None,
                })
                .collect();
            let mut v = json!({ "role": "user", "content": UserPart::text_of(parts) });
            if !images.is_empty() {
                v["images"] = json!(images);
            }
            v
        }
        ChatMessage::Assistant { text, tool_calls } => {
            let mut v = json!({ "role": "assistant", "content": text });
            if !tool_calls.is_empty() {
                let calls: Vec<Value> = tool_calls
                    .iter()
                    .map(|c| json!({ "function": { "name": c.name, "arguments": c.arguments } }))
                    .collect();
                v["tool_calls"] = json!(calls);
            }
            v
        }
        ChatMessage::Tool { name, content, .. } => {
            json!({ "role": "tool", "content": content, "tool_name": name })
        }
    }
}

#[derive(Deserialize)]
struct Line {
    message: Option<WireMessage>,
    #[serde(default)]
    done: bool,
    done_reason: Option<String>,
    prompt_eval_count: Option<u64>,
    eval_count: Option<u64>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: String,
    #[serde(default)]
    thinking: String,
    #[serde(default)]
    tool_calls: Vec<WireCall>,
}

#[derive(Deserialize)]
struct WireCall {
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// Decodes one `/api/chat` NDJSON stream.
#[derive(Default)]
pub(crate) struct Parser {
    think: ThinkTags,
    calls: usize,
    done: bool,
}

impl Parser {
    fn call(&mut self, c: WireCall) -> ProviderEvent {
        self.calls += 1;
        let arguments = match c.function.arguments {
            Value::Null => json!({}),
            Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
            v => v,
        };
        let id = super::names::synthetic_call_id(self.calls, &c.function.name, &arguments);
        if !arguments.is_object() {
            return ProviderEvent::ToolCallInvalid {
                id,
                name: c.function.name,
                raw: arguments.to_string(),
                error: "the arguments are not a JSON object".into(),
            };
        }
        ProviderEvent::ToolCall {
            call: ToolCall {
                id,
                name: c.function.name,
                arguments,
            },
        }
    }

    fn end(&mut self, line: &Line, out: &mut Vec<ProviderEvent>) {
        self.done = true;
        self.think.finish(out);
        if line.prompt_eval_count.is_some() || line.eval_count.is_some() {
            out.push(ProviderEvent::Usage {
                usage: Usage {
                    input_tokens: line.prompt_eval_count.unwrap_or(0),
                    output_tokens: line.eval_count.unwrap_or(0),
                },
            });
        }
        let reason = match line.done_reason.as_deref().map(finish_reason) {
            Some(FinishReason::Stop) | None if self.calls > 0 => FinishReason::ToolCalls,
            Some(r) => r,
            None => FinishReason::Stop,
        };
        out.push(ProviderEvent::Finish { reason });
    }
}

impl StreamParser for Parser {
    fn frame(
        &mut self,
        frame: Frame<'_>,
        out: &mut Vec<ProviderEvent>,
    ) -> Result<(), ProviderError> {
        if self.done {
            return Ok(());
        }
        let mut line: Line = serde_json::from_str(frame.data).map_err(|e| {
            ProviderError::MalformedStream(format!(
                "a line is not valid JSON ({e}): {:.200}",
                frame.data
            ))
        })?;
        if let Some(err) = &line.error {
            let message = err.as_str().map_or_else(|| err.to_string(), str::to_owned);
            return Err(ProviderError::Server {
                status: 200,
                message,
            });
        }
        if let Some(m) = line.message.take() {
            if !m.thinking.is_empty() {
                out.push(ProviderEvent::ReasoningDelta { text: m.thinking });
            }
            self.think.push(&m.content, out);
            for c in m.tool_calls {
                let ev = self.call(c);
                out.push(ev);
            }
        }
        if line.done {
            self.end(&line, out);
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        if self.done {
            return Ok(());
        }
        Err(ProviderError::MalformedStream(
            "the stream ended before Ollama said it was done".into(),
        ))
    }
}
