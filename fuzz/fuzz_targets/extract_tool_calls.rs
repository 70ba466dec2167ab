//! Fuzzes prompt-mode tool-call extraction: any text must extract without panicking into calls
//! of known tools with object arguments and ids `call_0…`, and streaming the same text through
//! `PromptTools` in pieces (sizes drawn from the first input byte) must find the same calls and
//! the same prose (up to whitespace).

#![no_main]

use futures::executor::block_on;
use futures::future::BoxFuture;
use futures::{StreamExt, stream};
use libfuzzer_sys::fuzz_target;
use switchboard_engine::provider::prompt_tools::{PromptTools, extract_tool_calls};
use switchboard_engine::provider::{
    ChatRequest, EventStream, FinishReason, ModelInfo, Provider, ProviderError, ProviderEvent,
    ToolCall, ToolSpec,
};

const KNOWN: &[&str] = &["search", "get_weather", "read_file", "execute_test", "tool-name"];

fuzz_target!(|data: &[u8]| {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let found = extract_tool_calls(text, KNOWN);
    assert_eq!(found.text, found.text.trim());
    if !text.contains('{') {
        assert!(found.calls.is_empty());
    }
    for (i, call) in found.calls.iter().enumerate() {
        assert_eq!(call.id, format!("call_{i}"));
        assert!(KNOWN.contains(&call.name.as_str()), "{call:?}");
        assert!(call.arguments.is_object(), "{call:?}");
    }
    let (streamed_text, streamed_calls) = streamed(text, seed);
    assert_eq!(streamed_calls, found.calls);
    assert_eq!(squash(&streamed_text), squash(&found.text));
});

/// The text and calls `PromptTools` emits for `text` arriving in pieces of 1 to 16 bytes (at
/// char boundaries), their sizes drawn from `seed`.
fn streamed(text: &str, seed: u8) -> (String, Vec<ToolCall>) {
    let (mut pieces, mut state, mut rest) = (Vec::new(), u32::from(seed), text);
    while !rest.is_empty() {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let mut at = (1 + (state >> 16) as usize % 16).min(rest.len());
        while !rest.is_char_boundary(at) {
            at += 1;
        }
        pieces.push(rest[..at].to_owned());
        rest = &rest[at..];
    }
    let fake = Canned(pieces);
    let req = ChatRequest {
        tools: KNOWN.iter().map(|n| spec(n)).collect(),
        ..ChatRequest::default()
    };
    let events: Vec<_> = block_on(async {
        match PromptTools::new(fake).stream(req).await {
            Ok(events) => events.collect().await,
            Err(_) => Vec::new(),
        }
    });
    let (mut out, mut calls) = (String::new(), Vec::new());
    for ev in events {
        match ev {
            Ok(ProviderEvent::TextDelta { text }) => out.push_str(&text),
            Ok(ProviderEvent::ToolCall { call }) => calls.push(call),
            _ => {}
        }
    }
    (out, calls)
}

fn spec(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        description: String::new(),
        parameters: serde_json::json!({"type": "object"}),
    }
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A provider that answers with fixed text deltas.
struct Canned(Vec<String>);

impl Provider for Canned {
    fn stream(&self, _: ChatRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
        let mut events: Vec<_> = self.0.iter().map(|t| Ok(ProviderEvent::text(t))).collect();
        events.push(Ok(ProviderEvent::Finish {
            reason: FinishReason::Stop,
        }));
        Box::pin(async move { Ok(Box::pin(stream::iter(events)) as EventStream) })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}
