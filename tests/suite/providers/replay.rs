//! The seeds' captured exchanges, replayed byte for byte by the fake server; the requests our
//! adapters send are compared with the captured ones.

use serde_json::json;
use switchboard_engine::provider::{
    ChatMessage, ChatRequest, FinishReason, ProviderEvent, ProviderKind, SamplingParams, ToolCall,
    ToolSpec, Usage,
};

use super::fake::{FakeProvider, Reply};
use super::{fixture, fixture_json, provider, run};

fn tools_of(request: &serde_json::Value) -> Vec<ToolSpec> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| ToolSpec {
            name: t["function"]["name"].as_str().unwrap().into(),
            description: t["function"]["description"].as_str().unwrap().into(),
            parameters: t["function"]["parameters"].clone(),
        })
        .collect()
}

fn finish(reason: FinishReason) -> ProviderEvent {
    ProviderEvent::Finish { reason }
}

#[tokio::test]
async fn seed_001_openai_compatible_tool_call_and_answer_replay_exactly() {
    let captured_1 = fixture_json("seed001_request_1.json");
    let captured_2 = fixture_json("seed001_request_2.json");
    let server = FakeProvider::start(vec![
        Reply::ok("text/event-stream", fixture("seed001_openai_tool_call.sse")),
        Reply::ok("text/event-stream", fixture("seed001_openai_answer.sse")),
    ])
    .await;
    let p = provider(ProviderKind::Openai, &format!("{}/v1", server.url), None, 1);
    let mut req = ChatRequest {
        model: "qwen2.5:14b".into(),
        messages: vec![ChatMessage::user("查看网页https://github.com/krrr/\n\n")],
        tools: tools_of(&captured_1),
        params: SamplingParams {
            temperature: Some(1.0),
            ..Default::default()
        },
        ..Default::default()
    };
    req.extra.insert("keep_alive".into(), json!("0m"));

    let (events, err) = run(&p, req.clone()).await;
    assert_eq!(err, None);
    let call = ToolCall {
        id: "call_dsk3phip".into(),
        name: "fed6b7adab25d4693b3eaf4f6c8f02035".into(),
        arguments: json!({ "max_length": 1000, "raw": false, "url": "https://github.com/krrr/" }),
    };
    assert_eq!(
        events,
        vec![
            ProviderEvent::ToolCall { call: call.clone() },
            finish(FinishReason::ToolCalls)
        ]
    );

    let result = captured_2["messages"][2]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    req.messages.push(ChatMessage::Assistant {
        text: String::new(),
        tool_calls: vec![call.clone()],
    });
    req.messages.push(ChatMessage::Tool {
        call_id: call.id,
        name: call.name,
        content: result,
        is_error: false,
    });
    let (events, err) = run(&p, req).await;
    assert_eq!(err, None);
    assert!(
        matches!(&events[0], ProviderEvent::TextDelta { text } if text.starts_with("用户krrr的GitHub页面"))
    );
    assert_eq!(events.last(), Some(&finish(FinishReason::Stop)));

    let seen = server.seen();
    assert_eq!(seen[0].path_and_query, "/v1/chat/completions");
    assert_eq!(seen[0].method, "POST");
    // We add `stream_options` for usage, and send the temperature as the float it is (the
    // capture's client wrote `1`; the value is the same).
    let mut expected_1 = captured_1;
    expected_1["stream_options"] = json!({ "include_usage": true });
    expected_1["temperature"] = json!(1.0);
    assert_eq!(seen[0].body, expected_1);
    let mut expected_2 = captured_2;
    expected_2["stream_options"] = json!({ "include_usage": true });
    expected_2["temperature"] = json!(1.0);
    assert_eq!(seen[1].body, expected_2);
}

#[tokio::test]
async fn seed_003_ollama_native_weather_flow_replays_exactly() {
    let captured_2 = fixture_json("seed003_ollama_second_request.json");
    let server = FakeProvider::start(vec![
        Reply::ok(
            "application/x-ndjson",
            fixture("seed003_ollama_tool_call.ndjson"),
        ),
        Reply::ok(
            "application/x-ndjson",
            fixture("seed003_ollama_answer.ndjson"),
        ),
    ])
    .await;
    let p = provider(ProviderKind::Ollama, &server.url, None, 1);
    let mut req = ChatRequest {
        model: "qwen2.5:3b".into(),
        messages: vec![ChatMessage::user("what is the weather in California?")],
        tools: tools_of(&captured_2),
        ..Default::default()
    };
    let (events, err) = run(&p, req.clone()).await;
    assert_eq!(err, None);
    let ProviderEvent::ToolCall { call } = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(
        (call.name.as_str(), &call.arguments),
        ("get_weather", &json!({ "location": "California" }))
    );
    assert!(call.id.starts_with("call_1_"), "{}", call.id);
    assert_eq!(
        events[1..],
        [
            ProviderEvent::Usage {
                usage: Usage {
                    input_tokens: 273,
                    output_tokens: 20
                }
            },
            finish(FinishReason::ToolCalls)
        ]
    );

    req.messages.push(ChatMessage::Assistant {
        text: String::new(),
        tool_calls: vec![call.clone()],
    });
    req.messages.push(ChatMessage::Tool {
        call_id: call.id.clone(),
        name: "get_weather".into(),
        content: "It's always raining in California".into(),
        is_error: false,
    });
    let (events, err) = run(&p, req).await;
    assert_eq!(err, None);
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            ProviderEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        text.starts_with("The weather report indicates that it's always raining in California."),
        "{text}"
    );
    assert!(text.ends_with("please let me know!"), "{text}");
    assert_eq!(events.len(), 55 + 2, "55 non-empty deltas, usage, finish");

    let seen = server.seen();
    assert_eq!(seen[1].path_and_query, "/api/chat");
    // The capture came from LangChain, which sends empty `options`, no assistant `content`
    // and no `tool_name`; Ollama accepts both shapes. Compare the parts that matter.
    let body = &seen[1].body;
    assert_eq!(
        body["messages"][1]["tool_calls"],
        captured_2["messages"][1]["tool_calls"]
    );
    assert_eq!(body["messages"][2]["role"], "tool");
    assert_eq!(
        body["messages"][2]["content"],
        captured_2["messages"][2]["content"]
    );
    assert_eq!(body["tools"], captured_2["tools"]);
    assert_eq!(body["stream"], true);
}

#[tokio::test]
async fn seed_000_dashscope_request_shape_and_json_action_reply() {
    let server = FakeProvider::start(vec![Reply::ok(
        "text/event-stream",
        fixture("seed000_dashscope_action.sse"),
    )])
    .await;
    let p = provider(
        ProviderKind::Dashscope,
        &server.url,
        Some("sk-dashscope-test"),
        1,
    );
    let system = "你是一个助手，你需要根据用户的输入进行回答。";
    let req = ChatRequest {
        model: "qwen3-8b".into(),
        system: Some(system.into()),
        messages: vec![ChatMessage::user("我想执行test")],
        params: SamplingParams {
            temperature: Some(0.7),
            top_p: Some(0.8),
            ..Default::default()
        },
        thinking: Some(switchboard_engine::provider::Thinking::default()),
        ..Default::default()
    };
    let (events, err) = run(&p, req).await;
    assert_eq!(err, None);
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            ProviderEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, r#"{"action": "execute_test", "name": "test"}"#);
    assert_eq!(
        events[events.len() - 2..],
        [
            ProviderEvent::Usage {
                usage: Usage {
                    input_tokens: 95,
                    output_tokens: 13
                }
            },
            finish(FinishReason::Stop)
        ]
    );
    let seen = &server.seen()[0];
    assert_eq!(
        seen.path_and_query,
        "/api/v1/services/aigc/text-generation/generation"
    );
    assert_eq!(seen.header("x-dashscope-sse"), Some("enable"));
    assert_eq!(
        seen.header("authorization"),
        Some("Bearer sk-dashscope-test")
    );
    assert_eq!(
        seen.body,
        json!({
            "model": "qwen3-8b",
            "input": { "messages": [
                { "role": "system", "content": system },
                { "role": "user", "content": "我想执行test" }
            ] },
            "parameters": {
                "result_format": "message", "incremental_output": true,
                "temperature": 0.7, "top_p": 0.8, "enable_thinking": false
            }
        })
    );
}

/// Every captured stream decodes to the same events however the bytes are split.
#[tokio::test]
async fn every_seed_stream_decodes_the_same_at_every_split_point() {
    use switchboard_engine::provider::{framing, wire_format};
    let cases = [
        ("seed001_openai_tool_call.sse", ProviderKind::Openai),
        ("seed001_openai_answer.sse", ProviderKind::Openai),
        ("seed003_ollama_tool_call.ndjson", ProviderKind::Ollama),
        ("seed003_ollama_answer.ndjson", ProviderKind::Ollama),
        ("seed000_dashscope_action.sse", ProviderKind::Dashscope),
    ];
    for (name, kind) in cases {
        let body = fixture(name);
        let format = wire_format(kind);
        let events = framing::decode_at_every_split(&body, format.framing(), || format.parser())
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(events.iter().all(Result::is_ok), "{name}: {events:?}");
        assert!(
            matches!(events.last(), Some(Ok(ProviderEvent::Finish { .. }))),
            "{name} ends with Finish"
        );
    }
}

/// The OpenAI preset sends tools in strict mode when their schema allows it.
#[tokio::test]
async fn strict_tools_reach_the_wire_with_a_closed_schema() {
    use switchboard_engine::provider::{Endpoint, HttpOptions, HttpProvider};
    let done = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let server = FakeProvider::start(vec![Reply::ok("text/event-stream", done)]).await;
    let endpoint = Endpoint {
        kind: ProviderKind::Openai,
        base_url: server.url.clone(),
        headers: Default::default(),
        strict_tools: true,
    };
    let p = HttpProvider::new(endpoint, None, HttpOptions::default()).unwrap();
    let req = ChatRequest {
        model: "gpt-test".into(),
        messages: vec![ChatMessage::user("hi")],
        tools: vec![ToolSpec {
            name: "weather__get_weather".into(),
            description: "Weather".into(),
            parameters: json!({ "type": "object", "properties": { "location": { "type": "string" }, "unit": { "type": "string", "enum": ["c", "f"] } }, "required": ["location"] }),
        }],
        ..Default::default()
    };
    let (_, err) = run(&p, req).await;
    assert_eq!(err, None);
    let function = &server.seen()[0].body["tools"][0]["function"];
    assert_eq!(function["strict"], json!(true));
    assert_eq!(
        function["parameters"],
        json!({
            "type": "object",
            "properties": { "location": { "type": "string" }, "unit": { "type": ["string", "null"], "enum": ["c", "f", null] } },
            "required": ["location", "unit"],
            "additionalProperties": false
        })
    );
}
