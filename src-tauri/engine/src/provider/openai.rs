//! OpenAI Chat Completions, as spoken by OpenAI and every compatible server (DeepSeek, Groq,
//! OpenRouter, vLLM, LM Studio, llama.cpp, Ollama's `/v1`): SSE chunks whose `tool_calls`
//! deltas are assembled by `index`, `reasoning_content` (or `<think>` opening the content),
//! usage in the last chunk, `[DONE]` optional.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Value, json};

use super::openai_reasoning;
use super::think_tags::ThinkTags;
use super::{
    ChatMessage, ChatRequest, ContextRequest, FinishReason, Frame, Framing, ModelInfo,
    ProviderError, ProviderEvent, ReasoningEffort, StreamParser, ToolCall, Usage, UserPart,
    WireFormat, WireRequest, tokens,
};

/// The OpenAI-compatible wire format.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OpenAi;

impl WireFormat for OpenAi {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn build(&self, req: &ChatRequest) -> Result<WireRequest, ProviderError> {
        Ok(WireRequest {
            path: "/chat/completions".into(),
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
        "/models".into()
    }

    fn parse_models(&self, body: &Value) -> Vec<ModelInfo> {
        let list = body.get("data").and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(|m| m.get("id").and_then(Value::as_str))
            .map(|id| ModelInfo {
                id: id.to_owned(),
                name: None,
            })
            .collect()
    }

    /// The model list: OpenRouter gives `context_length`, Groq `context_window`, vLLM
    /// `max_model_len`.
    fn context_request(&self, _model: &str) -> Option<ContextRequest> {
        Some(ContextRequest {
            path: self.models_path(),
            body: None,
        })
    }

    fn parse_context_window(&self, model: &str, body: &Value) -> Option<u32> {
        let entry = listed(model, body)?;
        ["context_length", "context_window", "max_model_len"]
            .iter()
            .find_map(|k| entry.get(*k).and_then(tokens))
            .or_else(|| tokens(&entry["top_provider"]["context_length"]))
    }

    /// OpenRouter's `architecture.input_modalities` (`["text", "image"]`).
    fn parse_vision(&self, model: &str, body: &Value) -> Option<bool> {
        let modalities = listed(model, body)?["architecture"]["input_modalities"].as_array()?;
        Some(modalities.iter().any(|m| m == "image"))
    }
}

/// `model`'s entry in a model list.
fn listed<'a>(model: &str, body: &'a Value) -> Option<&'a Value> {
    let list = body.get("data").and_then(Value::as_array)?;
    list.iter().find(|m| m["id"] == model)
}

/// The JSON body of a streaming Chat Completions request.
pub(crate) fn request_body(req: &ChatRequest) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = req.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({ "role": "system", "content": system }));
    }
    messages.extend(req.messages.iter().map(message));
    let mut body = json!({
        "model": req.model,
        "messages": messages,
        "stream": true,
        "stream_options": { "include_usage": true },
    });
    let p = &req.params;
    let fields = [
        ("temperature", p.temperature.map(Value::from)),
        ("top_p", p.top_p.map(Value::from)),
        ("max_tokens", p.max_tokens.map(Value::from)),
        ("seed", p.seed.map(Value::from)),
        ("stop", (!p.stop.is_empty()).then(|| json!(p.stop))),
        ("reasoning_effort", reasoning_effort(req)),
        ("tools", (!req.tools.is_empty()).then(|| tools(req))),
    ];
    for (k, v) in fields {
        if let Some(v) = v {
            body[k] = v;
        }
    }
    let changed = openai_reasoning::apply(&req.model, &mut body);
    if !changed.is_empty() {
        tracing::info!(model = %req.model, ?changed, "adjusted the request for OpenAI's reasoning-model rules");
    }
    req.merge_extra(&mut body);
    body
}

/// `reasoning_effort` when reasoning is asked for: the level given, else `medium`. Switching
/// reasoning off sends nothing (the format has no "off"; servers reject unknown levels).
fn reasoning_effort(req: &ChatRequest) -> Option<Value> {
    let thinking = req.thinking.as_ref().filter(|t| t.enabled)?;
    let effort = thinking.effort.unwrap_or(ReasoningEffort::Medium);
    Some(json!(effort.as_str()))
}

/// Tools in the OpenAI `{type: function, function: {…}}` shape (also Ollama's and DashScope's).
pub(crate) fn tools(req: &ChatRequest) -> Value {
    req.tools
        .iter()
        .map(|t| {
            json!({ "type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.parameters } })
        })
        .collect()
}

fn message(m: &ChatMessage) -> Value {
    match m {
        ChatMessage::User { parts } => json!({ "role": "user", "content": user_content(parts) }),
        ChatMessage::Assistant { text, tool_calls } if tool_calls.is_empty() => {
            json!({ "role": "assistant", "content": text })
        }
        ChatMessage::Assistant { text, tool_calls } => {
            let calls: Vec<Value> = tool_calls
                .iter()
                .map(|c| {
                    json!({ "id": c.id, "type": "function", "function": {
                        "name": c.name, "arguments": c.arguments.to_string() } })
                })
                .collect();
            let mut v = json!({ "role": "assistant", "tool_calls": calls });
            if !text.is_empty() {
                v["content"] = json!(text);
            }
            v
        }
        ChatMessage::Tool {
            call_id, content, ..
        } => json!({ "role": "tool", "tool_call_id": call_id, "content": content }),
    }
}

/// Plain text as a string; anything with images as an array of parts.
fn user_content(parts: &[UserPart]) -> Value {
    if let [UserPart::Text { text }] = parts {
        return json!(text);
    }
    parts
        .iter()
        .map(|p| match p {
            UserPart::Text { text } => json!({ "type": "text", "text": text }),
            UserPart::Image { mime_type, data } => json!({ "type": "image_url",
                "image_url": { "url": format!("data:{mime_type};base64,{data}") } }),
        })
        .collect()
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Delta,
    finish_reason: Option<String>,
}

#[derive(Default, Deserialize)]
struct Delta {
    content: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ToolDelta>,
}

/// A streamed piece of a tool call (OpenAI's shape, also DashScope's).
#[derive(Deserialize)]
pub(crate) struct ToolDelta {
    #[serde(default)]
    index: usize,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
pub(crate) struct FunctionDelta {
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

/// A tool call being assembled from deltas.
#[derive(Default)]
pub(crate) struct PendingCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: String,
}

impl PendingCall {
    /// Adds a delta's name: set once, ignored when repeated whole (llama.cpp), appended when it
    /// continues.
    pub(crate) fn add_name(&mut self, name: &str) {
        if self.name.is_empty() || (!self.name.ends_with(name) && !self.name.eq(name)) {
            self.name.push_str(name);
        }
    }

    /// The finished call, or the reason its arguments are unusable.
    pub(crate) fn into_event(self, fallback_id: String) -> ProviderEvent {
        let id = if self.id.is_empty() {
            fallback_id
        } else {
            self.id
        };
        let raw = self.arguments.trim();
        let parsed = if raw.is_empty() {
            Ok(json!({}))
        } else {
            serde_json::from_str::<Value>(raw)
        };
        match parsed {
            Ok(arguments) if arguments.is_object() => ProviderEvent::ToolCall {
                call: ToolCall {
                    id,
                    name: self.name,
                    arguments,
                },
            },
            Ok(other) => ProviderEvent::ToolCallInvalid {
                id,
                name: self.name,
                raw: self.arguments,
                error: format!("the arguments are {other}, not a JSON object"),
            },
            Err(e) => ProviderEvent::ToolCallInvalid {
                id,
                name: self.name,
                raw: self.arguments,
                error: format!("the arguments are not valid JSON: {e}"),
            },
        }
    }
}

/// Adds streamed tool-call pieces to the calls being assembled, keyed by their `index`.
pub(crate) fn absorb_deltas(calls: &mut BTreeMap<usize, PendingCall>, deltas: Vec<ToolDelta>) {
    for d in deltas {
        let call = calls.entry(d.index).or_default();
        if let Some(id) = d.id.filter(|i| !i.is_empty()) {
            call.id = id;
        }
        if let Some(f) = d.function {
            if let Some(n) = f.name.filter(|n| !n.is_empty()) {
                call.add_name(&n);
            }
            call.arguments
                .push_str(f.arguments.as_deref().unwrap_or(""));
        }
    }
}

/// An `Authorization: Bearer` header (OpenAI, Ollama behind a proxy, DashScope).
pub(crate) fn bearer(key: &str) -> Vec<(String, String)> {
    vec![("Authorization".into(), format!("Bearer {key}"))]
}

/// Decodes one Chat Completions stream.
#[derive(Default)]
pub(crate) struct Parser {
    think: ThinkTags,
    calls: BTreeMap<usize, PendingCall>,
    emitted_calls: bool,
    finish: Option<FinishReason>,
    done: bool,
}

impl Parser {
    fn flush_calls(&mut self, out: &mut Vec<ProviderEvent>) {
        for (index, call) in std::mem::take(&mut self.calls) {
            self.emitted_calls = true;
            out.push(call.into_event(format!("call_{index}")));
        }
    }

    fn end(&mut self, out: &mut Vec<ProviderEvent>) {
        self.think.finish(out);
        self.flush_calls(out);
        let reason = match self.finish.take() {
            Some(FinishReason::Stop) | None if self.emitted_calls => FinishReason::ToolCalls,
            Some(r) => r,
            None => FinishReason::Stop,
        };
        out.push(ProviderEvent::Finish { reason });
        self.done = true;
    }

    fn delta(&mut self, delta: Delta, out: &mut Vec<ProviderEvent>) {
        if let Some(r) = delta
            .reasoning_content
            .or(delta.reasoning)
            .filter(|r| !r.is_empty())
        {
            out.push(ProviderEvent::ReasoningDelta { text: r });
        }
        if let Some(t) = delta.content.filter(|t| !t.is_empty()) {
            self.think.push(&t, out);
        }
        absorb_deltas(&mut self.calls, delta.tool_calls);
    }
}

/// Maps a wire finish reason.
pub(crate) fn finish_reason(r: &str) -> FinishReason {
    match r {
        "stop" | "end_turn" | "STOP" => FinishReason::Stop,
        "length" | "max_tokens" | "MAX_TOKENS" => FinishReason::Length,
        "tool_calls" | "function_call" | "tool_use" => FinishReason::ToolCalls,
        "content_filter" | "SAFETY" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
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
        if data == "[DONE]" {
            self.end(out);
            return Ok(());
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
            ProviderError::MalformedStream(format!("a chunk is not valid JSON ({e}): {data:.200}"))
        })?;
        if let Some(err) = chunk.error {
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| err.to_string(), str::to_owned);
            return Err(ProviderError::Server {
                status: 200,
                message,
            });
        }
        for choice in chunk.choices {
            self.delta(choice.delta, out);
            if let Some(r) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.flush_calls(out);
                self.finish = Some(finish_reason(&r));
            }
        }
        if let Some(u) = chunk.usage {
            out.push(ProviderEvent::Usage {
                usage: Usage {
                    input_tokens: u.prompt_tokens,
                    output_tokens: u.completion_tokens,
                },
            });
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        if self.done {
            return Ok(());
        }
        if self.finish.is_some() {
            self.end(out);
            return Ok(());
        }
        self.think.finish(out);
        self.flush_calls(out);
        Err(ProviderError::MalformedStream(
            "the stream ended before the model finished its answer".into(),
        ))
    }
}
