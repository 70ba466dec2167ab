//! Auto tool mode decided by a recorded probe: a model the probe found calling only in its
//! text gets its first turn in prompt mode (no native request first); one found native gets
//! native tools even when auto mode had learned it refused them. The tools are the built-in
//! time server's, the model the fake OpenAI-compatible server.

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_engine::Engine;
use switchboard_engine::mcp::Conflict;
use switchboard_engine::provider::ProviderKind;
use switchboard_engine::store::{NewConversation, ToolSupport};
use tokio::sync::mpsc;

use super::super::providers::fake::{FakeProvider, Reply};
use super::{JSON_IN_TEXT, Say, add, engine, reply};

const KIND: ProviderKind = ProviderKind::Openai;

/// The fake with the probe's answer first, then the turn's (and a title's) answers.
async fn fake(probe: Reply) -> FakeProvider {
    FakeProvider::chat_only(vec![
        probe,
        reply(KIND, &Say::Text("It is noon in Paris.")),
        reply(KIND, &Say::Text("Paris time")),
    ])
    .await
}

/// An engine with the built-in time server running as `clock`.
async fn with_clock(dir: &std::path::Path) -> Engine {
    let engine = engine(dir).await;
    let doc = r#"{"mcpServers": {"clock": {"builtin": "time"}}}"#;
    engine
        .mcp()
        .import_servers(doc, Conflict::Skip)
        .await
        .unwrap();
    engine.mcp().start_server("clock").await.unwrap();
    engine
}

/// Runs one turn on `fake-model` of provider `id`.
async fn turn(engine: &Engine, id: &str) {
    let new = NewConversation {
        provider_id: Some(id.to_owned()),
        model: Some("fake-model".into()),
        ..Default::default()
    };
    let conv = engine.store().create_conversation(new).await.unwrap().id;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let drain = tokio::spawn(async move { while rx.recv().await.is_some() {} });
    tokio::time::timeout(
        Duration::from_secs(60),
        engine
            .agent()
            .send_message(&conv, "What time is it in Paris?", tx),
    )
    .await
    .expect("the turn hung")
    .unwrap();
    drain.await.unwrap();
}

/// The body of the turn's request (the fake's second).
fn turn_request(server: &FakeProvider) -> Value {
    server.seen()[1].body.clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_probed_as_prompt_only_gets_prompt_mode_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let engine = with_clock(dir.path()).await;
    let server = fake(reply(KIND, &Say::Text(JSON_IN_TEXT))).await;
    let id = add(&engine, KIND, &server.url).await;
    let probe = engine
        .providers()
        .probe_model(&id, "fake-model")
        .await
        .unwrap();
    assert_eq!(probe.support, ToolSupport::Prompt);

    turn(&engine, &id).await;
    let body = turn_request(&server);
    assert_eq!(body.get("tools"), None, "{body}");
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("## clock__get_current_time"),
        "{body}"
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_probed_as_native_gets_native_tools_whatever_was_learned() {
    let dir = tempfile::tempdir().unwrap();
    let engine = with_clock(dir.path()).await;
    let server = fake(reply(KIND, &Say::Call)).await;
    let id = add(&engine, KIND, &server.url).await;
    let learned = format!("tools.prompt_only.{id}");
    engine
        .store()
        .set_setting(&learned, &json!(["fake-model"]))
        .await
        .unwrap();
    let probe = engine
        .providers()
        .probe_model(&id, "fake-model")
        .await
        .unwrap();
    assert_eq!(probe.support, ToolSupport::Native);

    turn(&engine, &id).await;
    let body = turn_request(&server);
    let offered: Vec<&str> = body["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no native tools: {body}"))
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"clock__get_current_time"), "{offered:?}");
    engine.shutdown().await;
}
