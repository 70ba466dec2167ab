//! Assistants end to end: a chat made from one copies its system prompt, provider, model and
//! settings and the scripted model receives them; the default assistant; a tool switched off
//! one by one is not offered; a provider's only model is chosen when no model is named; the
//! lossless export carries the assistants its conversations started from.

use serde_json::json;
use switchboard_engine::agent::{ApprovalAnswer, ChatSettings, TurnEnd};
use switchboard_engine::mcp::Conflict;
use switchboard_engine::store::AssistantDraft;

use super::model::{Model, Say};
use super::*;

fn pirate(provider_id: &str) -> AssistantDraft {
    AssistantDraft {
        name: "Pirate".into(),
        icon: "🏴‍☠️".into(),
        system_prompt: "Answer like a pirate.".into(),
        provider_id: Some(provider_id.into()),
        model: Some("fake-model".into()),
        settings: json!({"temperature": 0.7, "topP": 0.9, "maxSteps": 4}),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chat_from_an_assistant_copies_it_and_the_model_receives_its_prompt_and_temperature() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let model = Model::start(vec![Say::Text("Arr.".into())]).await;
    let p = provider(&engine, "fake", &model.url).await;
    let a = engine.store().insert_assistant(&pirate(&p)).await.unwrap();
    let conv = engine
        .agent()
        .new_conversation(Some("pirate"))
        .await
        .unwrap();
    assert_eq!(
        (
            conv.provider_id.as_deref(),
            conv.model.as_deref(),
            conv.system_prompt.as_deref()
        ),
        (
            Some(p.as_str()),
            Some("fake-model"),
            Some("Answer like a pirate.")
        )
    );
    let settings = ChatSettings::of(&conv);
    assert_eq!(
        settings,
        ChatSettings {
            temperature: Some(0.7),
            top_p: Some(0.9),
            max_steps: Some(4),
            assistant: Some(a.id.clone()),
            ..Default::default()
        }
    );
    let ran = send(&engine, &conv.id, "Hello?", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    let body = &model.requests()[0];
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][0]["content"], "Answer like a pirate.");
    assert_eq!(body["temperature"], 0.7);
    assert_eq!(body["top_p"], 0.9);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_chat_starts_from_the_default_assistant_until_it_is_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let a = engine.store().insert_assistant(&pirate("p")).await.unwrap();
    engine
        .agent()
        .set_default_assistant(Some(&a.id))
        .await
        .unwrap();
    let conv = engine.agent().new_conversation(None).await.unwrap();
    assert_eq!(ChatSettings::of(&conv).assistant, Some(a.id.clone()));
    engine.agent().delete_assistant(&a.id).await.unwrap();
    assert_eq!(engine.agent().default_assistant().await.unwrap(), None);
    let plain = engine.agent().new_conversation(None).await.unwrap();
    assert_eq!(
        (plain.system_prompt.clone(), ChatSettings::of(&plain)),
        (None, ChatSettings::default())
    );
    let missing = engine.agent().new_conversation(Some("Nobody")).await;
    assert_eq!(
        missing.unwrap_err().to_string(),
        "there is no assistant named \"Nobody\"; see Settings → Assistants"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_switched_off_is_not_offered_while_the_rest_of_its_server_is() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let doc = r#"{"mcpServers": {"clock": {"builtin": "time"}}}"#;
    engine
        .mcp()
        .import_servers(doc, Conflict::Skip)
        .await
        .unwrap();
    engine.mcp().start_server("clock").await.unwrap();
    let model = Model::start(vec![Say::Text("one".into()), Say::Text("two".into())]).await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    send(&engine, &conv, "first", ApprovalAnswer::Deny).await;
    set_settings(
        &engine,
        &conv,
        json!({"disabledTools": {"clock": ["convert_time"]}}),
    )
    .await;
    send(&engine, &conv, "second", ApprovalAnswer::Deny).await;
    let mut all = model.offered(0);
    all.sort();
    assert_eq!(all, ["clock__convert_time", "clock__get_current_time"]);
    assert_eq!(model.offered(1), ["clock__get_current_time"]);
    let costs = engine.agent().tool_costs();
    let each: Vec<&str> = costs[0].each.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(each, ["convert_time", "get_current_time"]);
    assert_eq!(
        costs[0].tokens,
        costs[0].each.iter().map(|t| t.tokens).sum::<u32>()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_no_model_named_the_providers_only_model_answers_and_becomes_its_default() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let model = Model::start(vec![Say::Text("Hi.".into())]).await;
    let p = provider(&engine, "fake", &model.url).await;
    let conv = engine.agent().new_conversation(None).await.unwrap();
    let ran = send(&engine, &conv.id, "Hello?", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done, "{:?}", ran.events);
    assert_eq!(model.requests()[0]["model"], "the-only-model");
    let record = engine.store().find_provider(&p).await.unwrap();
    assert_eq!(
        record.settings.default_model.as_deref(),
        Some("the-only-model")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_json_export_carries_the_assistant_a_chat_started_from_and_an_import_restores_it() {
    use switchboard_engine::export::{
        ExportFormat, ExportRequest, ExportScope, export, import_file,
    };
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path().join("a").as_path()).await;
    let a = engine.store().insert_assistant(&pirate("p")).await.unwrap();
    engine
        .store()
        .insert_assistant(&AssistantDraft {
            name: "Unused".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let conv = engine.agent().new_conversation(Some(&a.id)).await.unwrap();
    let out = dir.path().join("export.json");
    let request = ExportRequest {
        format: ExportFormat::Json,
        scope: ExportScope::Ids {
            ids: vec![conv.id.clone()],
        },
        out: out.display().to_string(),
        no_tool_results: false,
        no_reasoning: false,
    };
    export(engine.store(), &request, |_, _| {}).await.unwrap();
    let other = super::engine(dir.path().join("b").as_path()).await;
    let done = import_file(other.store(), &out, false).await.unwrap();
    assert_eq!((done.report.added, done.assistants), (1, 1));
    assert_eq!(other.store().list_assistants().await.unwrap(), vec![a]);
    let back = other.store().get_conversation(&conv.id).await.unwrap();
    assert_eq!(back, conv);
}

#[tokio::test(flavor = "multi_thread")]
async fn switchboard_chat_with_an_assistant_starts_from_it_and_an_unknown_one_is_said_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model::start(vec![Say::Text("Arr, matey.".into())]).await;
    {
        let engine = engine(dir.path()).await;
        let p = provider(&engine, "fake", &model.url).await;
        engine.store().insert_assistant(&pirate(&p)).await.unwrap();
        engine.shutdown().await;
    }
    let chat = |name: &'static str| {
        let data = dir.path().to_owned();
        tokio::task::spawn_blocking(move || {
            crate::suite::support_cli::output_within_limit(
                std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
                    .arg("--data-dir")
                    .arg(data)
                    .args(["chat", "--assistant", name, "Hello?"])
                    .env_remove("SWITCHBOARD_DATA_DIR")
                    .env_remove("RUST_LOG"),
            )
        })
    };
    let o = chat("pirate").await.unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("Arr, matey."), "{stdout}");
    let body = &model.requests()[0];
    assert_eq!(body["messages"][0]["content"], "Answer like a pirate.");
    assert_eq!(body["temperature"], 0.7);
    let o = chat("Nobody").await.unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("there is no assistant named \"Nobody\"; see Settings → Assistants"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
