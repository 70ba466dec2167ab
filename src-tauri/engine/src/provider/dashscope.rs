//! Alibaba DashScope's native text-generation API (seed 000): `input.messages`, `parameters`
//! with `result_format: "message"`, `incremental_output` and `enable_thinking`, tools in
//! `parameters`; streamed as SSE when `X-DashScope-SSE: enable`, each event a whole
//! `output.choices[0].message` delta with cumulative `usage`. A request with an image goes to
//! the multimodal endpoint, its user content a list of `{"image": "data:…"}` and `{"text"}`.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Value, json};

use super::openai::{PendingCall, ToolDelta, absorb_deltas, bearer, finish_reason, tools};
use super::{
    ChatMessage, ChatRequest, FinishReason, Frame, Framing, ModelInfo, ProviderError,
    ProviderEvent, StreamParser, Usage, UserPart, WireFormat, WireRequest,
};

/// The DashScope native wire format.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DashScope;

impl WireFormat for DashScope {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn build(&self, req: &ChatRequest) -> Result<WireRequest, ProviderError> {
        let path = if has_images(req) {
            "/api/v1/services/aigc/multimodal-generation/generation"
        } else {
            "/api/v1/services/aigc/text-generation/generation"
        };
        Ok(WireRequest {
            path: path.into(),
            headers: vec![
                ("X-DashScope-SSE".into(), "enable".into()),
                ("Accept".into(), "text/event-stream".into()),
            ],
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
        "/compatible-mode/v1/models".into()
    }

    fn parse_models(&self, body: &Value) -> Vec<ModelInfo> {
        super::openai::OpenAi.parse_models(body)
    }
}

/// The JSON body of a streaming generation request.
pub(crate) fn request_body(req: &ChatRequest) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = req.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({ "role": "system", "content": system }));
    }
    messages.extend(req.messages.iter().map(message));
    let mut parameters = json!({ "result_format": "message", "incremental_output": true });
    let p = &req.params;
    let fields = [
        ("temperature", p.temperature.map(Value::from)),
        ("top_p", p.top_p.map(Value::from)),
        ("max_tokens", p.max_tokens.map(Value::from)),
        ("seed", p.seed.map(Value::from)),
        ("stop", (!p.stop.is_empty()).then(|| json!(p.stop))),
        (
            "enable_thinking",
            req.thinking.as_ref().map(|t| Value::from(t.enabled)),
        ),
        (
            "thinking_budget",
            req.thinking
                .as_ref()
                .filter(|t| t.enabled)
                .and_then(|t| t.budget())
                .map(Value::from),
        ),
        ("tools", (!req.tools.is_empty()).then(|| tools(req))),
        (
            "tool_choice",
            (!req.tools.is_empty()).then(|| json!("auto")),
        ),
    ];
    for (k, v) in fields {
        if let Some(v) = v {
            parameters[k] = v;
        }
    }
    let mut body =
        json!({ "model": req.model, "input": { "messages": messages }, "parameters": parameters });
    req.merge_extra(&mut body);
    body
}

/// Whether a user message carries an image: such a request goes to the multimodal endpoint.
fn has_images(req: &ChatRequest) -> bool {
    req.messages.iter().any(|m| match m {
        ChatMessage::User { parts } => parts.iter().any(|p| matches!(p, UserPart::Image { .. })),
        _ => false,
    })
}

/// A user message's content: a string, or with images the multimodal list of
/// `{"image": "data:…"}` and `{"text": …}` parts.
fn user_content(parts: &[UserPart]) -> Value {
    if !parts.iter().any(|p| matches!(p, UserPart::Image { .. })) {
        return json!(UserPart::text_of(parts));
    }
    let list: Vec<Value> = parts
        .iter()
        .map(|p| match p {
            UserPart::Text { text } => json!({ "text": text }),
            UserPart::Image { mime_type, data } => {
                json!({ "image": format!("data:{mime_type};base64,{data}") })
            }
        })
        .collect();
    Value::Array(list)
}

fn message(m: &ChatMessage) -> Value {
    match m {
        ChatMessage::User { parts } => {
            json!({ "role": "user", "content": user_content(parts) })
        }
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
            json!({ "role": "assistant", "content": text, "tool_calls": calls })
        }
        ChatMessage::Tool {
            call_id,
            name,
            content,
            ..
        } => {
            json!({ "role": "tool", "content": content, "tool_call_id": call_id, "name": name })
        }
    }
}

#[derive(Deserialize)]
struct Event {
    output: Option<Output>,
    usage: Option<WireUsage>,
    code: Option<String>,
    message: Option<String>,
}

#[derive(Deserialize)]
struct Output {
    #[serde(default)]
    choices: Vec<Choice>,
    text: Option<String>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Choice {
    message: Option<WireMessage>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Value,
    reasoning_content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ToolDelta>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

/// Decodes one DashScope SSE stream.
#[derive(Default)]
pub(crate) struct Parser {
    calls: BTreeMap<usize, PendingCall>,
    emitted_calls: bool,
    usage: Option<Usage>,
    done: bool,
}

/// Text of a message's `content`: a string, or a list of `{text}` parts.
fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

impl Parser {
    fn message(&mut self, m: WireMessage, out: &mut Vec<ProviderEvent>) {
        if let Some(r) = m.reasoning_content.filter(|r| !r.is_empty()) {
            out.push(ProviderEvent::ReasoningDelta { text: r });
        }
        let text = content_text(&m.content);
        if !text.is_empty() {
            out.push(ProviderEvent::TextDelta { text });
        }
        absorb_deltas(&mut self.calls, m.tool_calls);
    }

    fn end(&mut self, reason: &str, out: &mut Vec<ProviderEvent>) {
        for (index, call) in std::mem::take(&mut self.calls) {
            self.emitted_calls = true;
            out.push(call.into_event(format!("call_{index}")));
        }
        if let Some(usage) = self.usage.take() {
            out.push(ProviderEvent::Usage { usage });
        }
        let reason = match finish_reason(reason) {
            FinishReason::Stop if self.emitted_calls => FinishReason::ToolCalls,
            r => r,
        };
        out.push(ProviderEvent::Finish { reason });
        self.done = true;
    }
}

/// A finish reason that means the answer is over ("null" is DashScope's "not yet").
fn ended(reason: Option<String>) -> Option<String> {
    reason.filter(|r| !r.is_empty() && r != "null")
}

impl StreamParser for Parser {
    fn frame(
        &mut self,
        frame: Frame<'_>,
        out: &mut Vec<ProviderEvent>,
    ) -> Result<(), ProviderError> {
        if self.done || frame.data.trim().is_empty() {
            return Ok(());
        }
        let event: Event = serde_json::from_str(frame.data).map_err(|e| {
            ProviderError::MalformedStream(format!(
                "an event is not valid JSON ({e}): {:.200}",
                frame.data
            ))
        })?;
        if frame.event == "error" || event.code.as_deref().is_some_and(|c| !c.is_empty()) {
            let message = format!(
                "{}: {}",
                event.code.unwrap_or_default(),
                event.message.unwrap_or_default()
            );
            return Err(ProviderError::Server {
                status: 200,
                message,
            });
        }
        if let Some(u) = event.usage {
            self.usage = Some(Usage {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
            });
        }
        let Some(output) = event.output else {
            return Ok(());
        };
        if let Some(text) = output.text.filter(|t| !t.is_empty()) {
            out.push(ProviderEvent::TextDelta { text });
        }
        let mut reason = ended(output.finish_reason);
        for choice in output.choices {
            if let Some(m) = choice.message {
                self.message(m, out);
            }
            reason = ended(choice.finish_reason).or(reason);
        }
        if let Some(r) = reason {
            self.end(&r, out);
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        if self.done {
            return Ok(());
        }
        Err(ProviderError::MalformedStream(
            "the stream ended before DashScope finished the answer".into(),
        ))
    }
}
