//! Model settings over real HTTP, in every wire format: temperature, top_p, max tokens and
//! thinking arrive in the format's own fields; a parameter the provider refuses (its recorded
//! error body) comes back as an error quoting the provider's words; seed 000's DashScope answer
//! of action JSON, offered the tools natively, is read as the call.

use serde_json::{Value, json};
use switchboard_engine::provider::prompt_tools::{ModeSwitch, ToolMode};
use switchboard_engine::provider::{
    ChatMessage, ChatRequest, FinishReason, ProviderError, ProviderEvent, ProviderKind,
    ReasoningEffort, SamplingParams, Thinking, ToolCall, ToolSpec,
};

use super::fake::{FakeProvider, Reply};
use super::faults::{KINDS, content_type, partial};
use super::{fixture, provider, run};

fn tuned_request() -> ChatRequest {
    ChatRequest {
        model: "test-model".into(),
        system: Some("Be brief.".into()),
        messages: vec![ChatMessage::user("Why is the sky blue?")],
        params: SamplingParams {
            temperature: Some(0.3),
            top_p: Some(0.97),
            max_tokens: Some(2048),
            ..SamplingParams::default()
        },
        thinking: Some(Thinking {
            enabled: true,
            effort: Some(ReasoningEffort::Low),
            budget_tokens: Some(1536),
        }),
        context_window: Some(16384),
        ..ChatRequest::default()
    }
}

/// The settings' fields of a body, where `kind` puts them.
fn settings_fields(kind: ProviderKind, body: &Value) -> Value {
    match kind {
        ProviderKind::Openai | ProviderKind::Local => json!({
            "temperature": body["temperature"], "top_p": body["top_p"],
            "max_tokens": body["max_tokens"], "reasoning_effort": body["reasoning_effort"] }),
        ProviderKind::Ollama => json!({ "options": body["options"], "think": body["think"] }),
        ProviderKind::Anthropic => json!({
            "temperature": body.get("temperature"), "top_p": body["top_p"],
            "max_tokens": body["max_tokens"], "thinking": body["thinking"] }),
        ProviderKind::Gemini => body["generationConfig"].clone(),
        ProviderKind::Dashscope => body["parameters"].clone(),
    }
}

fn expected_fields(kind: ProviderKind) -> Value {
    match kind {
        ProviderKind::Openai | ProviderKind::Local => json!({
            "temperature": 0.3, "top_p": 0.97, "max_tokens": 2048, "reasoning_effort": "low" }),
        ProviderKind::Ollama => json!({
            "options": { "temperature": 0.3, "top_p": 0.97, "num_predict": 2048, "num_ctx": 16384 },
            "think": "low" }),
        // Anthropic's rules while thinking: no temperature; top_p 0.97 is within 0.95–1.
        ProviderKind::Anthropic => json!({
            "temperature": null, "top_p": 0.97, "max_tokens": 2048,
            "thinking": { "type": "enabled", "budget_tokens": 1536 } }),
        ProviderKind::Gemini => json!({
            "temperature": 0.3, "topP": 0.97, "maxOutputTokens": 2048,
            "thinkingConfig": { "includeThoughts": true, "thinkingBudget": 1536 } }),
        ProviderKind::Dashscope => json!({
            "result_format": "message", "incremental_output": true, "temperature": 0.3,
            "top_p": 0.97, "max_tokens": 2048, "enable_thinking": true, "thinking_budget": 1536 }),
    }
}

#[tokio::test]
async fn every_wire_format_receives_sampling_and_thinking_in_its_own_fields() {
    for kind in KINDS {
        let fake = FakeProvider::start(vec![Reply::ok(content_type(kind), partial(kind))]).await;
        let p = provider(kind, &fake.url, Some("k"), 1);
        let (events, _) = run(&p, tuned_request()).await;
        assert_eq!(
            events.first(),
            Some(&ProviderEvent::text("Hel")),
            "{kind:?}"
        );
        let seen = fake.seen();
        assert_eq!(seen.len(), 1, "{kind:?}");
        let got = settings_fields(kind, &seen[0].body);
        assert_eq!(got, expected_fields(kind), "{kind:?}");
    }
}

/// What each provider says when it refuses a parameter, as its API sends it.
fn refusal(kind: ProviderKind) -> (&'static str, Value) {
    match kind {
        ProviderKind::Openai | ProviderKind::Local => {
            let said = "Unrecognized request argument supplied: reasoning_effort";
            (
                said,
                json!({ "error": { "message": said, "type": "invalid_request_error",
                "param": null, "code": null } }),
            )
        }
        ProviderKind::Anthropic => {
            let said =
                "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.";
            (
                said,
                json!({ "type": "error", "error": { "type": "invalid_request_error",
                "message": said }, "request_id": "req_011" }),
            )
        }
        ProviderKind::Gemini => {
            let said = "Budget 0 is invalid. This model only works in thinking mode.";
            (
                said,
                json!({ "error": { "code": 400, "message": said,
                "status": "INVALID_ARGUMENT" } }),
            )
        }
        ProviderKind::Dashscope => {
            let said = "The value of the thinking_budget parameter must be a positive integer.";
            (
                said,
                json!({ "code": "InvalidParameter", "message": said,
                "request_id": "09dc09ea-ed80-9632-bd1d-77d05cde942e" }),
            )
        }
        ProviderKind::Ollama => {
            let said = "\"gemma3:1b\" does not support thinking";
            (said, json!({ "error": said }))
        }
    }
}

#[tokio::test]
async fn a_refused_parameter_comes_back_in_the_providers_own_words_in_every_wire_format() {
    for kind in KINDS {
        let (said, body) = refusal(kind);
        let fake = FakeProvider::start(vec![Reply::status(400, &body.to_string())]).await;
        let p = provider(kind, &fake.url, Some("k"), 3);
        let (events, err) = run(&p, tuned_request()).await;
        assert_eq!(events, vec![], "{kind:?}");
        let err = err.unwrap_or_else(|| panic!("{kind:?} did not fail"));
        assert_eq!(
            err,
            ProviderError::BadRequest {
                status: 400,
                message: said.into()
            },
            "{kind:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("the provider rejected the request (HTTP 400): {said}")
        );
        assert_eq!(fake.seen().len(), 1, "{kind:?}: a refusal is not retried");
    }
}

fn seed_000_tool(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("调用{name}功能"),
        parameters: json!({ "type": "object",
            "properties": { "name": { "type": "string", "description": "name参数" } },
            "required": ["name"] }),
    }
}

#[tokio::test]
async fn seed_000s_recorded_action_json_answer_to_native_tools_is_read_as_the_call() {
    use switchboard_engine::provider::Provider;
    let body = fixture("seed000_dashscope_action.sse");
    let fake = FakeProvider::start(vec![Reply::ok("text/event-stream", body)]).await;
    let client = provider(ProviderKind::Dashscope, &fake.url, Some("k"), 1);
    let switch = ModeSwitch::new(client, ToolMode::Auto);
    let req = ChatRequest {
        model: "qwen3-8b".into(),
        messages: vec![ChatMessage::user("我想执行test")],
        tools: vec![seed_000_tool("execute_test"), seed_000_tool("execute")],
        ..ChatRequest::default()
    };
    let events = switch.complete(req).await.unwrap();
    let calls: Vec<&ProviderEvent> = events
        .iter()
        .filter(|e| !matches!(e, ProviderEvent::Usage { .. }))
        .collect();
    let expected = [
        ProviderEvent::ToolCall {
            call: ToolCall {
                id: "call_0".into(),
                name: "execute_test".into(),
                arguments: json!({ "name": "test" }),
            },
        },
        ProviderEvent::Finish {
            reason: FinishReason::ToolCalls,
        },
    ];
    assert_eq!(calls, expected.iter().collect::<Vec<_>>());
    let sent = &fake.seen()[0].body["parameters"]["tools"];
    assert_eq!(
        sent.as_array().map(Vec::len),
        Some(2),
        "the tools went natively"
    );
}
