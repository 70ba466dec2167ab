//! Tests of the Gemini wire format: documented streams at every split, request bodies, faults.
use super::*;
use crate::provider::framing::decode_at_every_split;
use crate::provider::{ProviderKind, SamplingParams, Thinking, wire_format};

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

/// SSE from data lines, separated the way Gemini does (`\r\n\r\n`).
fn sse(chunks: &[&str]) -> String {
    chunks
        .iter()
        .map(|c| format!("data: {c}\r\n\r\n"))
        .collect()
}

/// The text streaming example of the Gemini API documentation.
const DOCS_TEXT: &str = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"The\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 8,\"totalTokenCount\": 8},\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\ndata: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" opposite of hot is cold.\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 8,\"candidatesTokenCount\": 7,\"totalTokenCount\": 15},\"modelVersion\": \"gemini-2.5-flash\"}\r\n\r\n";

/// Thought summaries, text and two parallel function calls, shaped like the
/// documentation's thinking and function-calling responses.
const DOCS_THOUGHTS_AND_CALLS: &str = r#"data: {"candidates": [{"content": {"parts": [{"text": "**Planning the lookup**\n\nThe user asks about Boston and Tōkyō; I'll call the weather tool twice.","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 52,"totalTokenCount": 101,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 52}],"thoughtsTokenCount": 49},"modelVersion": "gemini-2.5-flash","responseId": "8bQ5aJ6dLqCYz7IPlq6y4Ag"}

data: {"candidates": [{"content": {"parts": [{"text": "Let me check both cities"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 52,"candidatesTokenCount": 5,"totalTokenCount": 106,"thoughtsTokenCount": 49},"modelVersion": "gemini-2.5-flash","responseId": "8bQ5aJ6dLqCYz7IPlq6y4Ag"}

data: {"candidates": [{"content": {"parts": [{"text": " — one moment."},{"functionCall": {"name": "get_current_weather","args": {"location": "Boston, MA"}},"thoughtSignature": "CiQB0e2Kb2Z0Y0hGZ1lxTkd3"},{"functionCall": {"name": "get_current_weather","args": {"location": "Tōkyō"}}}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 52,"candidatesTokenCount": 31,"totalTokenCount": 132,"thoughtsTokenCount": 49},"modelVersion": "gemini-2.5-flash","responseId": "8bQ5aJ6dLqCYz7IPlq6y4Ag"}

"#;

const HELLO: &str =
    r#"{"candidates":[{"content":{"parts":[{"text":"Hello"}],"role":"model"},"index":0}]}"#;

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

fn weather(id: &str, location: &str) -> ProviderEvent {
    let call = ToolCall {
        id: id.into(),
        name: "get_current_weather".into(),
        arguments: json!({ "location": location }),
    };
    ProviderEvent::ToolCall { call }
}

#[tokio::test]
async fn the_documented_text_stream_ends_with_the_last_usage_then_stop() {
    let expected = vec![
        Ok(ProviderEvent::text("The")),
        Ok(ProviderEvent::text(" opposite of hot is cold.")),
        Ok(usage(8, 7)),
        Ok(finish(FinishReason::Stop)),
    ];
    assert_eq!(decode(DOCS_TEXT).await, expected);
}

#[tokio::test]
async fn function_calls_get_stable_ids_and_stop_becomes_tool_calls() {
    let thought = "**Planning the lookup**\n\nThe user asks about Boston and Tōkyō; I'll call the weather tool twice.";
    let expected = vec![
        Ok(ProviderEvent::ReasoningDelta {
            text: thought.into(),
        }),
        Ok(ProviderEvent::text("Let me check both cities")),
        Ok(ProviderEvent::text(" — one moment.")),
        Ok(weather("call_0_d2ee6156", "Boston, MA")),
        Ok(weather("call_1_b408a0e9", "Tōkyō")),
        Ok(usage(52, 80)),
        Ok(finish(FinishReason::ToolCalls)),
    ];
    assert_eq!(decode(DOCS_THOUGHTS_AND_CALLS).await, expected);
}

#[tokio::test]
async fn a_garbage_data_line_fails_after_the_events_before_it() {
    let got = decode(&sse(&[HELLO, "<html>502 Bad Gateway</html>"])).await;
    assert_eq!(got[..1], [Ok(ProviderEvent::text("Hello"))]);
    assert!(
        matches!(got[1], Err(ProviderError::MalformedStream(_))),
        "{got:?}"
    );
    assert_eq!(got.len(), 2);
}

#[tokio::test]
async fn a_stream_cut_before_any_finish_reason_is_malformed_after_its_events() {
    let expected = vec![
        Ok(ProviderEvent::text("Hello")),
        Err(ProviderError::MalformedStream(
            "the stream ended without a finish reason".into(),
        )),
    ];
    assert_eq!(decode(&sse(&[HELLO])).await, expected);
}

#[tokio::test]
async fn an_error_object_in_the_stream_is_a_server_error() {
    let error = r#"{"error": {"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}}"#;
    let expected = vec![
        Ok(ProviderEvent::text("Hello")),
        Err(ProviderError::Server {
            status: 503,
            message: "The model is overloaded. Please try again later.".into(),
        }),
    ];
    assert_eq!(decode(&sse(&[HELLO, error])).await, expected);
}

#[tokio::test]
async fn arguments_that_are_not_an_object_become_a_tool_call_invalid() {
    let chunk = r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_current_weather","args":"Boston"}}],"role":"model"},"finishReason":"STOP"}]}"#;
    let invalid = ProviderEvent::ToolCallInvalid {
        id: "call_0_10e79bec".into(),
        name: "get_current_weather".into(),
        raw: r#""Boston""#.into(),
        error: r#"the arguments are "Boston", not a JSON object"#.into(),
    };
    let expected = vec![Ok(invalid), Ok(finish(FinishReason::ToolCalls))];
    assert_eq!(decode(&sse(&[chunk])).await, expected);
}

#[tokio::test]
async fn a_blocked_prompt_finishes_as_content_filtered() {
    let chunk = r#"{"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7}}"#;
    let expected = vec![Ok(usage(7, 0)), Ok(finish(FinishReason::ContentFilter))];
    assert_eq!(decode(&sse(&[chunk])).await, expected);
}

#[test]
fn finish_reasons_map_to_neutral_ones() {
    let cases = [
        ("MAX_TOKENS", FinishReason::Length),
        ("SAFETY", FinishReason::ContentFilter),
        ("RECITATION", FinishReason::ContentFilter),
        ("PROHIBITED_CONTENT", FinishReason::ContentFilter),
        (
            "MALFORMED_FUNCTION_CALL",
            FinishReason::Other("MALFORMED_FUNCTION_CALL".into()),
        ),
    ];
    for (wire, reason) in cases {
        let parser = Parser {
            finish: Some(wire.into()),
            ..Parser::default()
        };
        assert_eq!(parser.reason(), Some(reason), "{wire}");
    }
}

fn call(id: &str, city: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "get_weather".into(),
        arguments: json!({ "city": city }),
    }
}

fn tool_result(content: &str, is_error: bool) -> ChatMessage {
    ChatMessage::Tool {
        call_id: "ignored".into(),
        name: "get_weather".into(),
        content: content.into(),
        is_error,
    }
}

/// A conversation with every kind of message: two parallel calls, their results and a
/// follow-up; tools with a JSON-Schema-only keyword and without parameters.
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
    let schema = json!({ "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object", "additionalProperties": false,
        "properties": { "city": { "type": "string" } }, "required": ["city"] });
    ChatRequest {
        model: "gemini-2.5-flash".into(),
        system: Some("Be brief.".into()),
        messages: vec![
            ChatMessage::User { parts: question },
            ChatMessage::Assistant {
                text: "Checking both.".into(),
                tool_calls: vec![call("call_0", "Paris"), call("call_1", "Rome")],
            },
            tool_result(r#"{"temp_c": 18, "sky": "sunny"}"#, false),
            tool_result("service unavailable", true),
            ChatMessage::user("And tomorrow?"),
        ],
        tools: vec![
            ToolSpec {
                name: "get_weather".into(),
                description: "Current weather for a city".into(),
                parameters: schema,
            },
            ToolSpec {
                name: "now".into(),
                description: "The current time".into(),
                parameters: json!({ "type": "object", "properties": {} }),
            },
        ],
        params: SamplingParams {
            temperature: Some(0.5),
            top_p: Some(0.9),
            max_tokens: Some(1024),
            stop: vec!["END".into()],
            seed: Some(7),
        },
        thinking: Some(Thinking::on()),
        ..ChatRequest::default()
    }
}

#[test]
fn results_merge_into_one_user_content_and_the_follow_up_gets_its_own() {
    let body = Gemini.build(&request()).unwrap().body;
    let signed_call = |city: &str| {
        json!({ "functionCall": { "name": "get_weather", "args": { "city": city } },
            "thoughtSignature": "skip_thought_signature_validator" })
    };
    let expected = json!({
        "contents": [
            { "role": "user", "parts": [
                { "text": "What's the weather here and in Rome?" },
                { "inlineData": { "mimeType": "image/png", "data": "iVBORw0KGgo=" } },
            ] },
            { "role": "model", "parts": [
                { "text": "Checking both." }, signed_call("Paris"), signed_call("Rome"),
            ] },
            { "role": "user", "parts": [
                { "functionResponse": { "name": "get_weather",
                    "response": { "temp_c": 18, "sky": "sunny" } } },
                { "functionResponse": { "name": "get_weather",
                    "response": { "error": "service unavailable" } } },
            ] },
            { "role": "user", "parts": [{ "text": "And tomorrow?" }] },
        ],
        "systemInstruction": { "parts": [{ "text": "Be brief." }] },
        "tools": [{ "functionDeclarations": [
            { "name": "get_weather", "description": "Current weather for a city",
                "parameters": { "type": "object",
                    "properties": { "city": { "type": "string" } }, "required": ["city"] } },
            { "name": "now", "description": "The current time" },
        ] }],
        "generationConfig": {
            "temperature": 0.5, "topP": 0.9, "maxOutputTokens": 1024,
            "stopSequences": ["END"], "seed": 7,
            "thinkingConfig": { "includeThoughts": true },
        },
    });
    assert_eq!(body, expected);
}

#[test]
fn tool_results_that_are_not_objects_are_wrapped() {
    assert_eq!(function_response("42", false), json!({ "content": 42 }));
    assert_eq!(
        function_response("done.", false),
        json!({ "content": "done." })
    );
    assert_eq!(
        function_response("[1, 2]", false),
        json!({ "content": [1, 2] })
    );
    assert_eq!(
        function_response(r#"{"a": 1}"#, true),
        json!({ "error": { "a": 1 } })
    );
}

#[test]
fn gemini_schema_inlines_refs_and_keeps_only_the_accepted_subset() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Args",
        "type": "object",
        "additionalProperties": false,
        "$defs": { "Address": { "type": "object", "title": "Address",
            "properties": {
                "street": { "type": "string" },
                "zip": { "type": ["string", "null"], "default": null },
            },
            "required": ["street", "country"], "additionalProperties": false } },
        "properties": {
            "home": { "$ref": "#/$defs/Address", "description": "Where they live" },
            "site": { "type": "string", "format": "uri", "examples": ["https://example.com"] },
            "when": { "type": "string", "format": "date-time" },
            "kind": { "const": "person" },
            "age": { "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "null" }],
                "default": null, "title": "Age" },
            "tags": { "type": "array", "items": { "type": "string", "enum": ["a", "b"] },
                "minItems": 1 },
        },
        "required": ["home", "kind", "missing"],
    });
    let expected = json!({
        "type": "object",
        "properties": {
            "home": { "type": "object", "description": "Where they live",
                "properties": {
                    "street": { "type": "string" },
                    "zip": { "type": "string", "nullable": true },
                },
                "required": ["street"] },
            "site": { "type": "string" },
            "when": { "type": "string", "format": "date-time" },
            "kind": { "type": "string", "enum": ["person"] },
            "age": { "type": "integer", "minimum": 0, "nullable": true },
            "tags": { "type": "array", "items": { "type": "string", "enum": ["a", "b"] },
                "minItems": 1 },
        },
        "required": ["home", "kind"],
    });
    assert_eq!(gemini_schema(&schema), expected);
}

#[test]
fn gemini_schema_cuts_recursive_refs_at_the_depth_limit() {
    let schema = json!({
        "$ref": "#/$defs/Node",
        "$defs": { "Node": { "type": "object",
            "properties": { "child": { "$ref": "#/$defs/Node" } } } },
    });
    let converted = gemini_schema(&schema);
    let deepest = "/properties/child".repeat(MAX_REF_DEPTH);
    assert_eq!(
        converted.pointer(&deepest),
        Some(&json!({ "type": "object" }))
    );
    let above = &deepest[..deepest.len() - "/properties/child".len()];
    assert!(converted.pointer(above).unwrap()["properties"].is_object());
}

#[test]
fn gemini_schema_keeps_several_branches_as_any_of_and_drops_keywords_foreign_to_the_type() {
    let schema =
        json!({ "oneOf": [{ "type": "string" }, { "type": "number" }, { "type": "null" }] });
    let expected = json!({ "nullable": true,
        "anyOf": [{ "type": "string" }, { "type": "number" }] });
    assert_eq!(gemini_schema(&schema), expected);
    let text = json!({ "type": "string", "properties": { "a": {} }, "required": ["a"] });
    assert_eq!(gemini_schema(&text), json!({ "type": "string" }));
    let level = json!({ "type": "integer", "enum": [1, 2, 3], "format": "int32" });
    assert_eq!(
        gemini_schema(&level),
        json!({ "type": "integer", "format": "int32" })
    );
}

#[test]
fn the_format_is_registered_with_its_path_header_and_model_list() {
    let format = wire_format(ProviderKind::Gemini);
    let req = ChatRequest {
        model: "models/gemini-2.5-flash".into(),
        ..ChatRequest::default()
    };
    let path = format.build(&req).unwrap().path;
    assert_eq!(
        path,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    let key = ("x-goog-api-key".to_owned(), "AIza-1".to_owned());
    assert_eq!(format.auth_headers("AIza-1"), [key]);
    assert_eq!(format.models_path(), "/v1beta/models?pageSize=1000");
    let body = json!({ "models": [
        { "name": "models/gemini-2.5-flash", "displayName": "Gemini 2.5 Flash",
            "supportedGenerationMethods": ["generateContent", "countTokens"] },
        { "name": "models/text-embedding-004", "displayName": "Text Embedding 004",
            "supportedGenerationMethods": ["embedContent"] },
        { "name": "models/gemini-2.5-pro" },
    ], "nextPageToken": "" });
    let expected = vec![
        ModelInfo {
            id: "gemini-2.5-flash".into(),
            name: Some("Gemini 2.5 Flash".into()),
        },
        ModelInfo {
            id: "gemini-2.5-pro".into(),
            name: None,
        },
    ];
    assert_eq!(format.parse_models(&body), expected);
}
