//! The built-in provider end to end: SmolLM2 as a [`Provider`] (text, usage, a forced tool
//! call held to the tool's schema), and the whole agent loop through `switchboard chat
//! --provider local` calling the real FastMCP weather server over stdio — no network provider,
//! no key.

use std::process::Output;

use futures::StreamExt;
use serde_json::json;
use switchboard_engine::local::{LocalProvider, ModelsDir};
use switchboard_engine::provider::{
    ChatMessage, ChatRequest, FinishReason, Provider, ProviderEvent, SamplingParams, ToolSpec,
};

use super::{HANG_GUARD, runtime, smollm2};
use crate::suite::support_py::{WEATHER_TEXT, fixtures_py, venv_python};

const MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// A models folder holding (a link to) SmolLM2.
fn models_dir(root: &std::path::Path) -> ModelsDir {
    let dir = root.join("models");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(smollm2(), dir.join(MODEL)).unwrap();
    ModelsDir::new(dir)
}

fn weather_tool() -> ToolSpec {
    ToolSpec {
        name: "weather__get_weather".into(),
        description: "Get the weather location.".into(),
        parameters: json!({ "type": "object",
            "properties": { "location": { "type": "string" } }, "required": ["location"] }),
    }
}

async fn events(provider: &LocalProvider, req: ChatRequest) -> Vec<ProviderEvent> {
    let stream = provider.stream(req).await.unwrap();
    let all = tokio::time::timeout(HANG_GUARD, stream.collect::<Vec<_>>())
        .await
        .expect("the answer hung");
    all.into_iter().map(Result::unwrap).collect()
}

/// The answer's text.
fn text_of(events: &[ProviderEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            ProviderEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn request(text: &str, tools: Vec<ToolSpec>) -> ChatRequest {
    ChatRequest {
        model: MODEL.into(),
        messages: vec![ChatMessage::user(text)],
        tools,
        params: SamplingParams {
            temperature: Some(0.0),
            max_tokens: Some(64),
            seed: Some(1),
            ..SamplingParams::default()
        },
        ..ChatRequest::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_built_in_provider_streams_text_usage_and_a_finish_and_lists_its_folder() {
    let _one = super::one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let provider = LocalProvider::new(runtime(), models_dir(dir.path()));
    let models = provider.list_models().await.unwrap();
    assert_eq!(
        models.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        [MODEL]
    );
    let got = events(&provider, request("Say hello.", Vec::new())).await;
    let text = text_of(&got);
    assert!(!text.trim().is_empty(), "{got:?}");
    assert!(
        matches!(&got[got.len() - 2], ProviderEvent::Usage { usage } if usage.input_tokens > 0 && usage.output_tokens > 0),
        "{got:?}"
    );
    assert!(matches!(
        got.last(),
        Some(ProviderEvent::Finish {
            reason: FinishReason::Stop | FinishReason::Length
        })
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_history_longer_than_the_context_is_fitted_by_the_models_own_tokenizer() {
    let _one = super::one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let provider = LocalProvider::new(runtime(), models_dir(dir.path()));
    // Some 40 exchanges of ~120 SmolLM2 tokens each: about twice the test runtime's 2,048.
    let line = "The lighthouse keeper counted the ships that passed the rocks at night. ";
    let mut req = request("What did the keeper count? Answer in one word.", Vec::new());
    let newest = req.messages.remove(0);
    for i in 0..40 {
        req.messages
            .push(ChatMessage::user(format!("{i}: {}", line.repeat(4))));
        req.messages.push(ChatMessage::Assistant {
            text: format!("Noted {i}."),
            tool_calls: Vec::new(),
        });
    }
    req.messages.push(newest);
    let got = events(&provider, req).await;
    let usage = got
        .iter()
        .find_map(|e| match e {
            ProviderEvent::Usage { usage } => Some(*usage),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no usage, so no answer: {got:?}"));
    // Fitted: under the context less the answer's 64 tokens, yet most of it kept.
    assert!(usage.input_tokens <= 2048 - 64, "{usage:?}");
    assert!(usage.input_tokens > 1024, "trimmed too much: {usage:?}");
    assert!(usage.output_tokens > 0, "{got:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_the_user_names_is_called_with_arguments_that_follow_its_schema() {
    let _one = super::one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let provider = LocalProvider::new(runtime(), models_dir(dir.path()));
    let req = request(
        "Use get_weather to find the weather in California.",
        vec![weather_tool()],
    );
    let got = events(&provider, req).await;
    let calls: Vec<_> = got
        .iter()
        .filter_map(|e| match e {
            ProviderEvent::ToolCall { call } => Some(call),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 1, "{got:?}");
    assert_eq!(calls[0].name, "weather__get_weather");
    assert!(calls[0].arguments["location"].is_string(), "{:?}", calls[0]);
    assert!(matches!(
        got.last(),
        Some(ProviderEvent::Finish {
            reason: FinishReason::ToolCalls
        })
    ));
}

fn calls_in(got: &[ProviderEvent]) -> Vec<&switchboard_engine::provider::ToolCall> {
    got.iter()
        .filter_map(|e| match e {
            ProviderEvent::ToolCall { call } => Some(call),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_required_call_follows_a_schema_of_every_supported_kind() {
    let _one = super::one_at_a_time().await;
    let schema = json!({ "type": "object", "properties": {
        "city": { "type": "string" }, "days": { "type": "integer" },
        "warm": { "type": "boolean" }, "unit": { "enum": ["c", "f"] },
        "spots": { "type": "array", "items": { "type": "number" }, "maxItems": 3 },
        "note": { "type": ["string", "null"] } },
        "required": ["city", "days", "warm", "unit", "spots"] });
    let tool = ToolSpec {
        name: "forecast".into(),
        description: "The forecast for the next days.".into(),
        parameters: schema.clone(),
    };
    let dir = tempfile::tempdir().unwrap();
    let provider = LocalProvider::new(runtime(), models_dir(dir.path()));
    let mut req = request(
        "Describe the weather of Paris for the next days.",
        vec![tool],
    );
    req.params.max_tokens = Some(200);
    req.extra.insert("tool_choice".into(), json!("required"));
    let got = events(&provider, req).await;
    let calls = calls_in(&got);
    assert_eq!(calls.len(), 1, "{got:?}");
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&calls[0].arguments), "{:?}", calls[0]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_calls_an_offered_tool_nobody_named_and_chats_when_none_fits() {
    let _one = super::one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let provider = LocalProvider::new(runtime(), models_dir(dir.path()));
    let ask = request(
        "What's the weather like in Paris today?",
        vec![weather_tool()],
    );
    let got = events(&provider, ask).await;
    let calls = calls_in(&got);
    assert_eq!(calls.len(), 1, "{got:?}");
    assert_eq!(calls[0].name, "weather__get_weather");
    assert!(calls[0].arguments["location"].is_string(), "{:?}", calls[0]);
    let chat = request("Hi! How are you today?", vec![weather_tool()]);
    let got = events(&provider, chat).await;
    assert!(calls_in(&got).is_empty(), "{got:?}");
    assert!(
        got.iter()
            .any(|e| matches!(e, ProviderEvent::TextDelta { text } if !text.trim().is_empty())),
        "{got:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_about_two_cities_gets_a_held_call_for_each() {
    let _one = super::one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let provider = LocalProvider::new(runtime(), models_dir(dir.path()));
    let mut ask = request(
        "What's the weather like in Paris and in Berlin today?",
        vec![weather_tool()],
    );
    ask.params.max_tokens = Some(160);
    let got = events(&provider, ask).await;
    let places: Vec<&str> = calls_in(&got)
        .iter()
        .map(|c| c.arguments["location"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(places, ["Paris", "Berlin"], "{got:?}");
}

/// mcp-server-time's `get_current_time`, as the app names it.
fn time_tool() -> ToolSpec {
    ToolSpec {
        name: "time__get_current_time".into(),
        description: "Get current time in a specific timezones".into(),
        parameters: json!({ "type": "object", "properties": { "timezone": { "type": "string",
            "description": "IANA timezone name (e.g., 'America/New_York', 'Europe/London')." } },
            "required": ["timezone"] }),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_answer_to_a_time_result_says_the_time_in_plain_words() {
    let _one = super::one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let provider = LocalProvider::new(runtime(), models_dir(dir.path()));
    let mut ask = request("What time is it now in Tokyo?", vec![time_tool()]);
    ask.params.max_tokens = Some(96);
    ask.messages.push(ChatMessage::Assistant {
        text: String::new(),
        tool_calls: vec![switchboard_engine::provider::ToolCall {
            id: "c1".into(),
            name: "time__get_current_time".into(),
            arguments: json!({"timezone": "Asia/Tokyo"}),
        }],
    });
    // mcp-server-time's answer, as it writes it.
    let result = "{\n  \"timezone\": \"Asia/Tokyo\",\n  \"datetime\": \"2026-12-07T18:24:16+09:00\",\n  \"day_of_week\": \"Monday\",\n  \"is_dst\": false\n}";
    ask.messages.push(ChatMessage::Tool {
        call_id: "c1".into(),
        name: "time__get_current_time".into(),
        content: result.into(),
        is_error: false,
    });
    let got = events(&provider, ask).await;
    assert!(calls_in(&got).is_empty(), "{got:?}");
    let text = text_of(&got);
    assert!(
        text.contains("18:24"),
        "the answer does not say the time: {text}"
    );
    assert!(!text.contains('`'), "the answer talks code: {text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_held_array_whose_items_loop_is_closed_and_the_call_parses() {
    let _one = super::one_at_a_time().await;
    let hand = |who: &str| {
        json!({ "type": "array", "items": { "type": "string" },
        "description": format!("The list of cards (as strings) in {who} hand.") })
    };
    let poker = ToolSpec {
        name: "poker_winner".into(),
        description: "Determines the winner of a poker game.".into(),
        parameters: json!({ "type": "object", "properties": {
            "player1": { "type": "string" }, "hand1": hand("the first player's"),
            "player2": { "type": "string" }, "hand2": hand("the second player's") },
            "required": ["player1", "hand1", "player2", "hand2"] }),
    };
    let dir = tempfile::tempdir().unwrap();
    let provider = LocalProvider::new(runtime(), models_dir(dir.path()));
    // SmolLM2 writes "J♠" into the first hand again and again until the token cap: the loop
    // is taken back into its first round and the array closed, so the call parses.
    let mut req = request(
        "Determine the winner in a Poker game with John having a Hand of 8♥, 10♥, J♥, Q♥, K♥ \
         and Mike having 9♠, J♠, 10♠, Q♠, K♠.",
        vec![poker],
    );
    req.params.max_tokens = Some(256);
    let got = events(&provider, req).await;
    let calls = calls_in(&got);
    assert_eq!(calls.len(), 1, "{got:?}");
    let hand1 = calls[0].arguments["hand1"].as_array().unwrap();
    assert!((1..=8).contains(&hand1.len()), "{:?}", calls[0]);
    assert!(calls[0].arguments["hand2"].is_array(), "{:?}", calls[0]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_that_takes_no_parameters_is_called_with_none() {
    let _one = super::one_at_a_time().await;
    let version = ToolSpec {
        name: "app__version".into(),
        description: "The application's version.".into(),
        parameters: json!({ "type": "object", "properties": {}, "required": [] }),
    };
    let dir = tempfile::tempdir().unwrap();
    let provider = LocalProvider::new(runtime(), models_dir(dir.path()));
    let mut req = request("Give me the application version.", vec![version]);
    req.extra.insert("tool_choice".into(), json!("required"));
    let got = events(&provider, req).await;
    let calls = calls_in(&got);
    assert_eq!(calls.len(), 1, "{got:?}");
    assert_eq!(calls[0].arguments, json!({}), "{:?}", calls[0]);
}

fn switchboard(data: &std::path::Path, args: &[String]) -> Output {
    crate::suite::support_cli::switchboard(data, args)
}

async fn run(data: &std::path::Path, args: &[&str]) -> (String, String) {
    let (d, a) = (
        data.to_owned(),
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    );
    let o = tokio::task::spawn_blocking(move || switchboard(&d, &a))
        .await
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{args:?}: {out}\n{err}");
    (out, err)
}

#[test]
fn a_chat_with_the_built_in_model_and_no_model_file_says_how_to_get_one() {
    let data = tempfile::tempdir().unwrap();
    let args = ["chat", "--provider", "local", "--yes", "hello"].map(String::from);
    let o = switchboard(data.path(), &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("switchboard: the built-in model has no model file yet")
            && err.contains("`switchboard models download ID`"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn smollm2_calls_the_real_weather_server_and_answers_with_no_network_provider() {
    let _one = super::one_at_a_time().await;
    let data = tempfile::tempdir().unwrap();
    let gguf = smollm2().to_string_lossy().into_owned();
    let (out, _) = run(data.path(), &["models", "import", &gguf]).await;
    assert!(out.contains(&format!("imported {MODEL}")), "{out}");
    let (out, _) = run(data.path(), &["models", "list"]).await;
    assert!(out.starts_with(MODEL), "{out}");
    assert!(
        out.contains("Q4_1 · 135M · 8192-token context · no tool template"),
        "{out}"
    );
    let python = venv_python().to_string_lossy().into_owned();
    let script = fixtures_py()
        .join("weather.py")
        .to_string_lossy()
        .into_owned();
    let add = [
        "servers",
        "add",
        "weather",
        "--command",
        &python,
        "--arg",
        &script,
        "--arg",
        "stdio",
    ];
    run(data.path(), &add).await;
    let ask = [
        "chat",
        "--provider",
        "local",
        "--model",
        MODEL,
        "--server-wait",
        "60",
        "--yes",
        "--max-tokens",
        "96",
        "Use get_weather to find the weather in California.",
    ];
    let (out, err) = run(data.path(), &ask).await;
    eprintln!("{out}\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("→ weather.get_weather {\"location\":"),
        "{out}"
    );
    assert_eq!(lines[1], format!("← {WEATHER_TEXT}"), "{out}");
    assert_eq!(
        out.matches("→ ").count(),
        1,
        "the tool was called again: {out}"
    );
    let answer = lines[2..].join("\n");
    assert!(
        !answer.trim().is_empty(),
        "no answer after the tool result: {out}"
    );
    assert!(
        !format!("{out}{err}").contains("step limit"),
        "{out}\n{err}"
    );
    run(data.path(), &["models", "remove", MODEL]).await;
    let (out, _) = run(data.path(), &["models", "list"]).await;
    assert!(out.starts_with("no models"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_profile_without_models_gets_the_default_one_as_the_built_in_providers_model() {
    let dir = tempfile::tempdir().unwrap();
    let engine = crate::suite::agent::engine(dir.path()).await;
    let providers = engine.providers();
    let model = providers.provide_default_model(&smollm2()).await.unwrap();
    assert_eq!(model.map(|m| m.name), Some(MODEL.to_owned()));
    let views = providers.list_providers().await.unwrap();
    assert_eq!(views.len(), 1);
    let provider = &views[0].provider;
    assert_eq!(provider.name, "On this computer");
    assert_eq!(provider.settings.default_model.as_deref(), Some(MODEL));
    let info = providers.models_dir().list().unwrap()[0]
        .info
        .clone()
        .unwrap();
    assert_eq!(
        (
            info.architecture.as_deref(),
            info.context_length,
            info.has_template
        ),
        (Some("llama"), Some(8192), true)
    );
    assert_eq!(providers.context_window(provider, MODEL).await, Some(8192));
    let listed = providers.provider_models(&provider.id).await.unwrap();
    assert_eq!(
        listed.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        [MODEL]
    );
    // Once the folder has a model, nothing more is done.
    assert_eq!(
        providers.provide_default_model(&smollm2()).await.unwrap(),
        None
    );
    assert_eq!(providers.list_providers().await.unwrap().len(), 1);
}

#[test]
fn the_catalogue_marks_one_model_for_this_machine_and_an_unknown_id_lists_the_known_ones() {
    let data = tempfile::tempdir().unwrap();
    let o = switchboard(data.path(), &["models".into(), "catalogue".into()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("-token context"))
        .collect();
    assert!(rows.len() >= 4, "{out}");
    assert_eq!(
        rows.iter().filter(|l| l.starts_with('*')).count(),
        1,
        "{out}"
    );
    assert!(out.contains("qwen3-4b"), "{out}");

    let o = switchboard(
        data.path(),
        &["models".into(), "download".into(), "qwen9-x".into()],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("\"qwen9-x\" is neither a URL nor a catalogue model"),
        "{err}"
    );
    assert!(err.contains("qwen2.5-0.5b-instruct"), "{err}");
}
