//! Provider events written back in OpenAI's chat-completions shapes: each streamed event as a
//! `chat.completion.chunk` ([`Chunks`]), or the whole answer as one `chat.completion`
//! ([`Whole`]). Reasoning goes in `reasoning_content` (the field DeepSeek, vLLM and Ollama's
//! compatible endpoint use); a tool call the model wrote with broken arguments is passed on
//! with its raw text, for the client to answer.

use serde_json::{Value, json};

use crate::provider::{FinishReason, ProviderEvent, ToolCall};
use crate::vocab::Usage;

/// OpenAI's word for why an answer ended.
fn finish_word(reason: &FinishReason) -> &'static str {
    match reason {
        FinishReason::Length => "length",
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Stop | FinishReason::Other(_) => "stop",
    }
}

/// OpenAI's usage object.
fn usage_json(usage: &Usage) -> Value {
    json!({
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
    })
}

/// A tool call in OpenAI's shape (`arguments` is a JSON string).
fn call_json(id: &str, name: &str, arguments: String) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

fn arguments_text(call: &ToolCall) -> String {
    serde_json::to_string(&call.arguments).unwrap_or_else(|_| "{}".into())
}

/// The chunks of one streamed answer.
#[derive(Debug)]
pub(crate) struct Chunks {
    id: String,
    created: u64,
    model: String,
    calls: usize,
    usage: Option<Usage>,
}

impl Chunks {
    /// The chunks of answer `id` by `model` (the id the client asked for).
    pub(crate) fn new(id: String, created: u64, model: String) -> Self {
        Self {
            id,
            created,
            model,
            calls: 0,
            usage: None,
        }
    }

    fn chunk(&self, delta: Value, finish: Option<&str>) -> Value {
        json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
    }

    /// The first chunk: the assistant's role.
    pub(crate) fn start(&self) -> Value {
        self.chunk(json!({"role": "assistant", "content": ""}), None)
    }

    fn call_chunk(&mut self, call: Value) -> Value {
        let index = self.calls;
        self.calls += 1;
        let mut call = call;
        if let Some(object) = call.as_object_mut() {
            object.insert("index".into(), json!(index));
        }
        self.chunk(json!({"tool_calls": [call]}), None)
    }

    /// The chunk for one event, if it makes one (usage is kept for [`Chunks::usage`]).
    pub(crate) fn event(&mut self, event: ProviderEvent) -> Option<Value> {
        match event {
            ProviderEvent::TextDelta { text } if !text.is_empty() => {
                Some(self.chunk(json!({"content": text}), None))
            }
            ProviderEvent::ReasoningDelta { text } if !text.is_empty() => {
                Some(self.chunk(json!({"reasoning_content": text}), None))
            }
            ProviderEvent::TextDelta { .. } | ProviderEvent::ReasoningDelta { .. } => None,
            ProviderEvent::ToolCall { call } => {
                let arguments = arguments_text(&call);
                Some(self.call_chunk(call_json(&call.id, &call.name, arguments)))
            }
            ProviderEvent::ToolCallInvalid { id, name, raw, .. } => {
                Some(self.call_chunk(call_json(&id, &name, raw)))
            }
            ProviderEvent::Usage { usage } => {
                self.usage = Some(usage);
                None
            }
            ProviderEvent::Finish { reason } => {
                let word = if self.calls > 0 {
                    "tool_calls"
                } else {
                    finish_word(&reason)
                };
                Some(self.chunk(json!({}), Some(word)))
            }
        }
    }

    /// The closing usage chunk (no choices), asked for with `stream_options.include_usage`.
    pub(crate) fn usage(&self) -> Value {
        let usage = self.usage.unwrap_or_default();
        json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [],
            "usage": usage_json(&usage),
        })
    }

    /// A chunk that ends a stream the provider broke off: OpenAI's error object, which
    /// clients raise as an API error.
    pub(crate) fn error(message: &str) -> Value {
        json!({"error": {"message": message, "type": "server_error", "param": null, "code": "upstream_error"}})
    }
}

/// A whole answer, gathered from its events.
#[derive(Debug, Default)]
pub(crate) struct Whole {
    text: String,
    reasoning: String,
    calls: Vec<Value>,
    usage: Usage,
    finish: Option<FinishReason>,
}

impl Whole {
    /// Takes one event.
    pub(crate) fn push(&mut self, event: ProviderEvent) {
        match event {
            ProviderEvent::TextDelta { text } => self.text.push_str(&text),
            ProviderEvent::ReasoningDelta { text } => self.reasoning.push_str(&text),
            ProviderEvent::ToolCall { call } => {
                let arguments = arguments_text(&call);
                self.calls.push(call_json(&call.id, &call.name, arguments));
            }
            ProviderEvent::ToolCallInvalid { id, name, raw, .. } => {
                self.calls.push(call_json(&id, &name, raw));
            }
            ProviderEvent::Usage { usage } => self.usage = usage,
            ProviderEvent::Finish { reason } => self.finish = Some(reason),
        }
    }

    /// The `chat.completion` object.
    pub(crate) fn into_json(self, id: &str, created: u64, model: &str) -> Value {
        let finish = if self.calls.is_empty() {
            finish_word(self.finish.as_ref().unwrap_or(&FinishReason::Stop))
        } else {
            "tool_calls"
        };
        let mut message = json!({"role": "assistant", "content": self.text});
        if !self.reasoning.is_empty() {
            message["reasoning_content"] = json!(self.reasoning);
        }
        if !self.calls.is_empty() {
            message["tool_calls"] = Value::Array(self.calls);
        }
        json!({
            "id": id,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage_json(&self.usage),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> ProviderEvent {
        ProviderEvent::ToolCall {
            call: ToolCall {
                id: "call_0".into(),
                name: "get_time".into(),
                arguments: json!({"tz": "Asia/Tokyo"}),
            },
        }
    }

    #[test]
    fn streamed_events_become_chunks_with_indexed_tool_calls_and_a_final_usage() {
        let mut chunks = Chunks::new("chatcmpl-1".into(), 7, "local/m".into());
        assert_eq!(chunks.start()["choices"][0]["delta"]["role"], "assistant");
        let text = chunks.event(ProviderEvent::text("Hi")).unwrap();
        assert_eq!(text["object"], "chat.completion.chunk");
        assert_eq!(text["model"], "local/m");
        assert_eq!(text["choices"][0]["delta"], json!({"content": "Hi"}));
        assert_eq!(chunks.event(ProviderEvent::text("")), None);
        let thought = chunks
            .event(ProviderEvent::ReasoningDelta { text: "hm".into() })
            .unwrap();
        assert_eq!(thought["choices"][0]["delta"]["reasoning_content"], "hm");
        let first = chunks.event(call()).unwrap();
        let broken = chunks
            .event(ProviderEvent::ToolCallInvalid {
                id: "call_1".into(),
                name: "get_time".into(),
                raw: "{tz:".into(),
                error: "bad".into(),
            })
            .unwrap();
        let calls = |c: &Value| c["choices"][0]["delta"]["tool_calls"][0].clone();
        assert_eq!(calls(&first)["index"], 0);
        assert_eq!(
            calls(&first)["function"]["arguments"],
            "{\"tz\":\"Asia/Tokyo\"}"
        );
        assert_eq!(calls(&broken)["index"], 1);
        assert_eq!(calls(&broken)["function"]["arguments"], "{tz:");
        let usage = Usage {
            input_tokens: 10,
            output_tokens: 3,
        };
        assert_eq!(chunks.event(ProviderEvent::Usage { usage }), None);
        // A provider that says "stop" after calls still ends with tool_calls.
        let end = chunks
            .event(ProviderEvent::Finish {
                reason: FinishReason::Stop,
            })
            .unwrap();
        assert_eq!(end["choices"][0]["finish_reason"], "tool_calls");
        let last = chunks.usage();
        assert_eq!(last["choices"], json!([]));
        assert_eq!(last["usage"]["total_tokens"], 13);
    }

    #[test]
    fn a_whole_answer_holds_its_text_reasoning_calls_and_usage() {
        let mut whole = Whole::default();
        for ev in [
            ProviderEvent::ReasoningDelta { text: "so".into() },
            ProviderEvent::text("It is "),
            ProviderEvent::text("noon."),
            ProviderEvent::Finish {
                reason: FinishReason::Length,
            },
        ] {
            whole.push(ev);
        }
        let body = whole.into_json("chatcmpl-2", 9, "ollama/qwen3");
        assert_eq!(body["object"], "chat.completion");
        let choice = &body["choices"][0];
        assert_eq!(choice["message"]["content"], "It is noon.");
        assert_eq!(choice["message"]["reasoning_content"], "so");
        assert_eq!(choice["finish_reason"], "length");
        assert!(choice["message"].get("tool_calls").is_none());

        let mut calling = Whole::default();
        calling.push(call());
        calling.push(ProviderEvent::Finish {
            reason: FinishReason::Stop,
        });
        let body = calling.into_json("chatcmpl-3", 9, "m");
        assert_eq!(body["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(
            body["choices"][0]["message"]["tool_calls"][0]["id"],
            "call_0"
        );
        assert_eq!(body["usage"]["total_tokens"], 0);
    }
}
