//! The request body every wire format builds for one rich request — system prompt, text,
//! an image, an earlier tool call with two results, a follow-up, tools, sampling, extra
//! fields — as reviewed snapshots (`cargo insta review` after an intended change); and the same
//! request with thinking on (effort high) and a context window, each format's own fields.

use serde_json::json;
use switchboard_engine::provider::{
    ChatMessage, ChatRequest, ProviderKind, ReasoningEffort, SamplingParams, Thinking, ToolCall,
    ToolSpec, UserPart, wire_format,
};

fn rich_request() -> ChatRequest {
    let call = |id: &str, city: &str| ToolCall {
        id: id.into(),
        name: "weather__get_weather".into(),
        arguments: json!({ "location": city }),
    };
    ChatRequest {
        model: "test-model".into(),
        system: Some("You are Switchboard's assistant. 用中文或英文回答。".into()),
        messages: vec![
            ChatMessage::User {
                parts: vec![
                    UserPart::Text {
                        text: "Weather in Hangzhou and Boston? 这张图是哪里？".into(),
                    },
                    UserPart::Image {
                        mime_type: "image/png".into(),
                        data: "iVBORw0KGgo=".into(),
                    },
                ],
            },
            ChatMessage::Assistant {
                text: "Let me check both.".into(),
                tool_calls: vec![call("call_a", "Hangzhou"), call("call_b", "Boston")],
            },
            ChatMessage::Tool {
                call_id: "call_a".into(),
                name: "weather__get_weather".into(),
                content: "{\"temp_c\":18,\"sky\":\"rain\"}".into(),
                is_error: false,
            },
            ChatMessage::Tool {
                call_id: "call_b".into(),
                name: "weather__get_weather".into(),
                content: "upstream timeout".into(),
                is_error: true,
            },
            ChatMessage::Assistant {
                text: "Hangzhou: 18 °C, rain. Boston failed.".into(),
                tool_calls: vec![],
            },
            ChatMessage::user("Try Boston again."),
        ],
        tools: vec![ToolSpec {
            name: "weather__get_weather".into(),
            description: "Get the weather for a location.".into(),
            parameters: json!({
                "type": "object",
                "properties": { "location": { "type": "string", "description": "City" } },
                "required": ["location"],
                "additionalProperties": false
            }),
        }],
        params: SamplingParams {
            temperature: Some(0.5),
            top_p: Some(0.9),
            max_tokens: Some(1024),
            stop: vec!["</end>".into()],
            seed: Some(7),
        },
        thinking: None,
        context_window: None,
        extra: Default::default(),
    }
}

fn body(kind: ProviderKind) -> serde_json::Value {
    body_of(kind, &rich_request())
}

fn body_of(kind: ProviderKind, req: &ChatRequest) -> serde_json::Value {
    let wire = wire_format(kind).build(req).unwrap();
    json!({ "path": wire.path, "headers": wire.headers, "body": wire.body })
}

/// The rich request thinking hard, with a context window of its own.
fn thinking_body(kind: ProviderKind) -> serde_json::Value {
    let req = ChatRequest {
        thinking: Some(Thinking {
            enabled: true,
            effort: Some(ReasoningEffort::High),
            budget_tokens: None,
        }),
        context_window: Some(8192),
        ..rich_request()
    };
    body_of(kind, &req)
}

#[test]
fn the_openai_request_with_thinking_matches_its_snapshot() {
    insta::assert_json_snapshot!(thinking_body(ProviderKind::Openai));
}

#[test]
fn the_ollama_request_with_thinking_matches_its_snapshot() {
    insta::assert_json_snapshot!(thinking_body(ProviderKind::Ollama));
}

#[test]
fn the_anthropic_request_with_thinking_matches_its_snapshot() {
    insta::assert_json_snapshot!(thinking_body(ProviderKind::Anthropic));
}

#[test]
fn the_gemini_request_with_thinking_matches_its_snapshot() {
    insta::assert_json_snapshot!(thinking_body(ProviderKind::Gemini));
}

#[test]
fn the_dashscope_request_with_thinking_matches_its_snapshot() {
    insta::assert_json_snapshot!(thinking_body(ProviderKind::Dashscope));
}

#[test]
fn the_openai_request_body_matches_its_snapshot() {
    insta::assert_json_snapshot!(body(ProviderKind::Openai));
}

#[test]
fn the_ollama_request_body_matches_its_snapshot() {
    insta::assert_json_snapshot!(body(ProviderKind::Ollama));
}

#[test]
fn the_anthropic_request_body_matches_its_snapshot() {
    insta::assert_json_snapshot!(body(ProviderKind::Anthropic));
}

#[test]
fn the_gemini_request_body_matches_its_snapshot() {
    insta::assert_json_snapshot!(body(ProviderKind::Gemini));
}

#[test]
fn the_dashscope_request_body_matches_its_snapshot() {
    insta::assert_json_snapshot!(body(ProviderKind::Dashscope));
}
