//! A conversation's model settings through a real turn: the scripted model receives the system
//! prompt, temperature, top_p, max tokens, context window and thinking in each wire format's
//! own fields; a parameter the provider refuses ends the turn with the provider's own words;
//! what auto tool mode learns outlives a restart; and a provider with no model list is asked
//! about a model once, one that failed is asked again.

use serde_json::json;
use switchboard_engine::agent::{ApprovalAnswer, ChatEvent, TurnEnd};
use switchboard_engine::store::ConversationPatch;
use switchboard_engine::vocab::server::Approval;

use super::model::{LISTED_WINDOW, Model, SHOWN_WINDOW, Say};
use super::*;
use crate::suite::support_py::weather_stdio_config;

/// A conversation on `wire` with a system prompt and every model setting set.
async fn tuned(engine: &Engine, url: &str, wire: Wire) -> String {
    let conv = conversation(engine, url, wire).await;
    let patch = ConversationPatch {
        system_prompt: Some("Answer in one line. 用一句话回答。".into()),
        settings: Some(json!({
            "temperature": 0.3, "topP": 0.8, "maxOutputTokens": 512, "contextWindow": 8192,
            "thinking": { "enabled": true, "effort": "high" },
        })),
        ..Default::default()
    };
    engine
        .store()
        .update_conversation(&conv, patch)
        .await
        .unwrap();
    conv
}

/// The one request a turn of `wire` sent, after a plain answer.
async fn request_of(wire: Wire) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let model = Model::start(vec![Say::Text("Fine.".into())]).await;
    let conv = tuned(&engine, &model.url, wire).await;
    let ran = send(&engine, &conv, "How are you?", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    engine.shutdown().await;
    let mut requests = model.requests();
    assert_eq!(requests.len(), 1);
    requests.remove(0)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_openai_compatible_model_gets_sampling_and_reasoning_effort() {
    let body = request_of(Wire::OpenAi).await;
    let got = json!({
        "system": body["messages"][0], "temperature": body["temperature"], "top_p": body["top_p"],
        "max_tokens": body["max_tokens"], "reasoning_effort": body["reasoning_effort"],
    });
    let expected = json!({
        "system": { "role": "system", "content": "Answer in one line. 用一句话回答。" },
        "temperature": 0.3, "top_p": 0.8, "max_tokens": 512, "reasoning_effort": "high",
    });
    assert_eq!(got, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ollama_model_gets_its_options_with_the_context_window_and_a_think_level() {
    let body = request_of(Wire::Ollama).await;
    let got = json!({ "system": body["messages"][0], "options": body["options"],
        "think": body["think"] });
    let expected = json!({
        "system": { "role": "system", "content": "Answer in one line. 用一句话回答。" },
        "options": { "temperature": 0.3, "top_p": 0.8, "num_predict": 512, "num_ctx": 8192 },
        "think": "high",
    });
    assert_eq!(got, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dashscope_model_gets_its_parameters_with_enable_thinking_and_a_budget() {
    let body = request_of(Wire::DashScope).await;
    let got = json!({ "system": body["input"]["messages"][0], "parameters": body["parameters"] });
    let expected = json!({
        "system": { "role": "system", "content": "Answer in one line. 用一句话回答。" },
        "parameters": { "result_format": "message", "incremental_output": true,
            "temperature": 0.3, "top_p": 0.8, "max_tokens": 512,
            "enable_thinking": true, "thinking_budget": 16384 },
    });
    assert_eq!(got, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_parameter_the_provider_refuses_ends_the_turn_with_the_providers_words() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let said = "Unsupported value: 'temperature' does not support 0.3 with this model. Only the default (1) value is supported.";
    let refusal = json!({ "error": { "message": said, "type": "invalid_request_error",
        "param": "temperature", "code": "unsupported_value" } });
    let model = Model::start(vec![Say::Refuse(400, refusal)]).await;
    let conv = tuned(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "Hi", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Error);
    let errors: Vec<&String> = ran
        .events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::Error { message, .. } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains(said), "{}", errors[0]);
    assert!(
        errors[0].starts_with("the provider rejected the request (HTTP 400)"),
        "{}",
        errors[0]
    );
    let branch = engine.agent().conversation_branch(&conv).await.unwrap();
    let stored = branch
        .last()
        .and_then(|m| m.error.clone())
        .unwrap_or_default();
    assert!(stored.contains(said), "{stored}");
    engine.shutdown().await;
}

/// An engine on `dir` with the weather server running (so tools are offered).
async fn with_weather(dir: &Path) -> Engine {
    let engine = engine(dir).await;
    let mut config = weather_stdio_config("weather");
    config.approval = Approval::Allow;
    if engine.mcp().list_servers().await.unwrap().is_empty() {
        engine.mcp().add_server(config).await.unwrap();
    }
    engine.mcp().start_server("weather").await.unwrap();
    engine
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_refused_tools_gets_prompt_mode_tools_after_a_restart_with_no_failed_request()
{
    let dir = tempfile::tempdir().unwrap();
    let refusal = json!({ "error": { "message": "fake-model does not support tools" } });
    let model = Model::start(vec![
        Say::Refuse(400, refusal),
        Say::Text("First answer.".into()),
        Say::Text("Second answer.".into()),
    ])
    .await;
    let first = with_weather(dir.path()).await;
    let conv = conversation(&first, &model.url, Wire::OpenAi).await;
    let ran = send(&first, &conv, "Hello", ApprovalAnswer::Deny).await;
    assert_eq!(
        (ran.end, text(&ran.events)),
        (TurnEnd::Done, "First answer.".into())
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0]["tools"].is_array(), "native first");
    assert!(requests[1].get("tools").is_none(), "then prompt mode");
    first.shutdown().await;
    drop(first);

    let second = with_weather(dir.path()).await;
    let ran = send(&second, &conv, "Again", ApprovalAnswer::Deny).await;
    assert_eq!(
        (ran.end, text(&ran.events)),
        (TurnEnd::Done, "Second answer.".into())
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 3, "no failed native request first");
    assert!(requests[2].get("tools").is_none());
    let system = requests[2]["messages"][0]["content"].as_str().unwrap_or("");
    assert!(system.contains("weather__get_weather"), "{system}");
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ollama_gets_the_context_window_its_api_show_gives_as_num_ctx() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let model = Model::start(vec![Say::Text("One.".into()), Say::Text("Two.".into())]).await;
    let conv = conversation(&engine, &model.url, Wire::Ollama).await;
    for question in ["First?", "Second?"] {
        let ran = send(&engine, &conv, question, ApprovalAnswer::Deny).await;
        assert_eq!(ran.end, TurnEnd::Done);
    }
    let requests = model.requests();
    let sent: Vec<&Value> = requests.iter().map(|r| &r["options"]["num_ctx"]).collect();
    assert_eq!(sent, [&json!(SHOWN_WINDOW), &json!(SHOWN_WINDOW)]);
    assert_eq!(model.asked(), ["/api/show"], "asked once, then remembered");
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_openrouter_style_model_list_gives_the_context_window_and_the_table_backs_it_up() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let model = Model::start(vec![]).await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let provider_id = engine
        .store()
        .get_conversation(&conv)
        .await
        .unwrap()
        .provider_id
        .unwrap();
    let record = engine.store().find_provider(&provider_id).await.unwrap();
    let providers = engine.providers();
    assert_eq!(
        providers.context_window(&record, "the-only-model").await,
        Some(LISTED_WINDOW)
    );
    assert_eq!(
        providers.context_window(&record, "the-only-model").await,
        Some(LISTED_WINDOW)
    );
    assert_eq!(
        providers.context_window(&record, "gpt-4o-mini").await,
        Some(128_000),
        "not in the list: the table"
    );
    assert_eq!(
        providers.context_window(&record, "unknown-model").await,
        None
    );
    assert_eq!(
        model.asked(),
        ["/v1/models", "/v1/models", "/v1/models"],
        "each model asked once"
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_without_a_model_list_is_asked_once_and_one_that_failed_is_asked_again() {
    use crate::suite::providers::fake::{FakeProvider, Reply};
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    // 405 for the first question (no model list here), then 500 for every other one.
    let fake = FakeProvider::start(vec![Reply::status(405, r#"{"error":"GET"}"#)]).await;
    let conv = conversation(&engine, &fake.url, Wire::OpenAi).await;
    let conv = engine.store().get_conversation(&conv).await.unwrap();
    let provider = conv.provider_id.unwrap();
    let record = engine.store().find_provider(&provider).await.unwrap();
    let providers = engine.providers();
    for _ in 0..2 {
        assert_eq!(
            providers.context_window(&record, "my-own-finetune").await,
            None
        );
    }
    assert_eq!(fake.seen().len(), 1, "a 405 is an answer: not asked again");
    for _ in 0..2 {
        assert_eq!(
            providers.context_window(&record, "another-finetune").await,
            None
        );
    }
    let asked: Vec<String> = fake.seen().into_iter().map(|s| s.path_and_query).collect();
    assert_eq!(asked, ["/v1/models"; 3], "a 500 is asked again next time");
    engine.shutdown().await;
}
