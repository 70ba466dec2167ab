//! Reading chat-completions bodies: what each OpenAI field becomes, and what is refused.

use serde_json::json;

use super::*;

fn read(body: serde_json::Value) -> Result<Completion, BadRequest> {
    parse(body.to_string().as_bytes())
}

#[test]
fn a_plain_request_becomes_a_neutral_one_with_its_sampling_settings() {
    let c = read(json!({
        "model": "local/SmolLM2", "stream": true, "stream_options": {"include_usage": true},
        "temperature": 0.2, "top_p": 0.9, "max_tokens": 50, "max_completion_tokens": 40,
        "stop": "END", "seed": 7, "user": "ignored",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "developer", "content": [{"type": "text", "text": "Answer in French."}]},
            {"role": "user", "content": "Hello"},
        ],
    }))
    .unwrap();
    assert_eq!(c.model, "local/SmolLM2");
    assert!(c.stream && c.include_usage);
    assert_eq!(
        c.request.system.as_deref(),
        Some("Be brief.\n\nAnswer in French.")
    );
    assert_eq!(c.request.messages, vec![ChatMessage::user("Hello")]);
    let p = &c.request.params;
    assert_eq!(
        (p.temperature, p.top_p, p.max_tokens, p.seed),
        (Some(0.2), Some(0.9), Some(40), Some(7))
    );
    assert_eq!(p.stop, vec!["END".to_owned()]);
    assert_eq!(c.request.thinking, None);
}

#[test]
fn tool_calls_and_their_results_keep_their_ids_and_names() {
    let c = read(json!({
        "model": "m",
        "tools": [{"type": "function", "function": {"name": "get_time", "description": "Now", "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}},
                  {"type": "function", "function": {"name": "ping"}}],
        "messages": [
            {"role": "user", "content": "Time in Tokyo?"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_time", "arguments": "{\"tz\":\"Asia/Tokyo\"}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "12:00"},
        ],
    }))
    .unwrap();
    assert_eq!(c.request.tools.len(), 2);
    assert_eq!(
        c.request.tools[1].parameters,
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(
        c.request.messages[1],
        ChatMessage::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "get_time".into(),
                arguments: json!({"tz": "Asia/Tokyo"})
            }],
        }
    );
    assert_eq!(
        c.request.messages[2],
        ChatMessage::Tool {
            call_id: "call_1".into(),
            name: "get_time".into(),
            content: "12:00".into(),
            is_error: false
        }
    );
}

#[test]
fn tool_choice_none_offers_no_tools() {
    let c = read(
        json!({"model": "m", "tool_choice": "none", "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "ping"}}]}),
    )
    .unwrap();
    assert!(c.request.tools.is_empty());
}

#[test]
fn an_image_comes_as_a_data_url_and_an_image_by_address_is_refused() {
    let c = read(json!({"model": "m", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}},
    ]}]}))
    .unwrap();
    assert_eq!(
        c.request.messages[0],
        ChatMessage::User {
            parts: vec![
                UserPart::Text {
                    text: "What is this?".into()
                },
                UserPart::Image {
                    mime_type: "image/png".into(),
                    data: "iVBORw0KGgo=".into()
                },
            ]
        }
    );
    let e = read(
        json!({"model": "m", "messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "http://169.254.169.254/latest"}}]}]}),
    )
    .unwrap_err();
    assert_eq!(e.param.as_deref(), Some("messages[0].content"));
    assert!(e.message.contains("data:"), "{}", e.message);
}

#[test]
fn reasoning_effort_becomes_thinking_and_a_wrong_word_is_refused() {
    let base = |effort: &str| json!({"model": "m", "reasoning_effort": effort, "messages": [{"role": "user", "content": "x"}]});
    let high = read(base("high")).unwrap().request.thinking.unwrap();
    assert!(high.enabled && high.effort == Some(ReasoningEffort::High));
    assert!(
        !read(base("none"))
            .unwrap()
            .request
            .thinking
            .unwrap()
            .enabled
    );
    assert_eq!(
        read(base("max")).unwrap_err().param.as_deref(),
        Some("reasoning_effort")
    );
}

#[test]
fn what_cannot_be_honoured_is_refused_naming_its_field() {
    let cases = [
        (
            json!({"model": "m", "n": 2, "messages": [{"role": "user", "content": "x"}]}),
            Some("n"),
        ),
        (json!({"model": "m", "messages": []}), Some("messages")),
        (
            json!({"messages": [{"role": "user", "content": "x"}]}),
            None,
        ),
        (
            json!({"model": "m", "messages": [{"role": "robot", "content": "x"}]}),
            Some("messages[0]"),
        ),
        (
            json!({"model": "m", "messages": [{"role": "tool", "tool_call_id": "nope", "content": "x"}]}),
            Some("messages[0].tool_call_id"),
        ),
        (
            json!({"model": "m", "messages": [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{oops"}}]}]}),
            Some("messages[0].tool_calls[0].function.arguments"),
        ),
        (
            json!({"model": "m", "messages": [{"role": "system", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}]}]}),
            Some("messages[0].content"),
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "web_search", "function": {"name": "s"}}]}),
            Some("tools[0].type"),
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": ""}}]}),
            Some("tools[0].function.name"),
        ),
    ];
    for (body, param) in cases {
        let e = read(body.clone()).expect_err(&body.to_string());
        assert_eq!(e.param.as_deref(), param, "{body}: {}", e.message);
        assert!(!e.message.is_empty());
    }
    let e = parse(b"{not json").unwrap_err();
    assert!(
        e.message
            .starts_with("the body is not a chat completion request"),
        "{}",
        e.message
    );
}
