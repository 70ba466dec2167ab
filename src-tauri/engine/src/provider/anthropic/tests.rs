//! Tests of the Anthropic Messages wire format: documented streams at every split, request bodies, faults.
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
    let api = r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#;
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
        thinking: Some(Thinking::on()),
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
        thinking: Some(Thinking::on()),
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

#[test]
fn thinking_rules_raise_the_budget_and_max_tokens_and_say_what_they_dropped() {
    let mut s = Sampling {
        max_tokens: 800,
        temperature: Some(0.7),
        top_p: Some(0.9),
        budget: None,
    };
    let thinking = Thinking {
        enabled: true,
        effort: None,
        budget_tokens: Some(500),
    };
    let dropped = thinking_rules(&mut s, &thinking);
    assert_eq!(
        s,
        Sampling {
            max_tokens: 1824,
            temperature: None,
            top_p: None,
            budget: Some(1024),
        }
    );
    assert_eq!(
        dropped,
        [
            "thinking budget 500 raised to Anthropic's minimum 1024",
            "max_tokens 800 raised to 1824 to leave room above the thinking budget",
            "temperature 0.7 left out (not allowed with thinking)",
            "top_p 0.9 left out (only 0.95 to 1 is allowed with thinking)",
        ]
    );
}

#[test]
fn thinking_keeps_a_top_p_anthropic_allows_and_a_budget_from_the_effort() {
    let req = ChatRequest {
        model: "claude-sonnet-4-5".into(),
        messages: vec![ChatMessage::user("Why?")],
        thinking: Some(Thinking {
            enabled: true,
            effort: Some(crate::provider::ReasoningEffort::High),
            budget_tokens: None,
        }),
        params: SamplingParams {
            top_p: Some(0.97),
            max_tokens: Some(32000),
            ..SamplingParams::default()
        },
        ..ChatRequest::default()
    };
    let body = request_body(&req);
    assert_eq!(
        (&body["max_tokens"], &body["top_p"], &body["thinking"]),
        (
            &json!(32000),
            &json!(0.97),
            &json!({ "type": "enabled", "budget_tokens": 16384 })
        )
    );
}

#[test]
fn thinking_switched_off_sends_no_thinking_and_keeps_sampling() {
    let req = ChatRequest {
        model: "claude-sonnet-4-5".into(),
        messages: vec![ChatMessage::user("Why?")],
        thinking: Some(Thinking::default()),
        params: SamplingParams {
            temperature: Some(0.3),
            ..SamplingParams::default()
        },
        ..ChatRequest::default()
    };
    let body = request_body(&req);
    assert_eq!(
        (body.get("thinking"), &body["temperature"]),
        (None, &json!(0.3))
    );
}
