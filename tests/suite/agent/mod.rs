//! The agent loop end to end: a scripted model on 127.0.0.1 (OpenAI and Ollama wire
//! formats, rejecting any invalid history like the real services) and real MCP servers,
//! driven through the engine and through `switchboard chat`.

mod apps;
mod assistants;
mod cache;
mod cli;
mod cli_settings;
mod compare;
mod crash;
mod model;
mod projects;
mod seed003;
mod tasks;
mod tasks_stateless;
mod text_calls;
mod turns;
mod wire_settings;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use switchboard_engine::agent::{ApprovalAnswer, ChatEvent, TurnEnd};
use switchboard_engine::mcp::Conflict;
use switchboard_engine::providers::NewProvider;
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::store::{ConversationPatch, NewConversation};
use switchboard_engine::{Engine, Paths, Redactor, Secrets};
use tokio::sync::mpsc;

/// An engine on a fresh profile in `dir` with an in-memory keychain.
pub(super) async fn engine(dir: &Path) -> Engine {
    let redactor = Redactor::default();
    let store = std::sync::Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(store, std::sync::Arc::new(|_: &str| None), redactor.clone());
    Engine::open(Paths::under(dir), redactor, secrets)
        .await
        .unwrap()
}

/// server-everything's entry point.
pub(super) fn everything_js() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        path.exists(),
        "run `npm ci --prefix tests/fixtures/mcp-node`"
    );
    path.to_string_lossy().into_owned()
}

/// Configures and starts server-everything (stdio) as `everything` with `approval`.
pub(super) async fn with_everything(engine: &Engine, approval: &str) {
    let doc = serde_json::json!({"mcpServers": {"everything": {
        "command": "node", "args": [everything_js(), "stdio"], "approval": approval}}});
    engine
        .mcp()
        .import_servers(&doc.to_string(), Conflict::Skip)
        .await
        .unwrap();
    engine.mcp().start_server("everything").await.unwrap();
}

/// Which wire format the scripted model speaks to the engine.
#[derive(Clone, Copy, Debug)]
pub(super) enum Wire {
    OpenAi,
    Ollama,
    DashScope,
}

/// Adds the scripted model as a provider and makes a conversation that uses it.
pub(super) async fn conversation(engine: &Engine, url: &str, wire: Wire) -> String {
    let (preset, base) = match wire {
        Wire::OpenAi => ("openai-compatible", format!("{url}/v1")),
        Wire::Ollama => ("ollama", url.to_owned()),
        Wire::DashScope => ("dashscope", url.to_owned()),
    };
    let p = engine
        .providers()
        .add_provider(NewProvider {
            name: format!("fake-{preset}"),
            preset: preset.into(),
            base_url: Some(base),
            ..Default::default()
        })
        .await
        .unwrap();
    let new = NewConversation {
        provider_id: Some(p.provider.id),
        model: Some("fake-model".into()),
        ..Default::default()
    };
    engine.store().create_conversation(new).await.unwrap().id
}

/// Sets a conversation's settings object.
pub(super) async fn set_settings(engine: &Engine, conv: &str, settings: Value) {
    let patch = ConversationPatch {
        settings: Some(settings),
        ..Default::default()
    };
    engine
        .store()
        .update_conversation(conv, patch)
        .await
        .unwrap();
}

/// What a turn did: its end and every event.
pub(super) struct Ran {
    pub end: TurnEnd,
    pub events: Vec<ChatEvent>,
}

/// Sends `text`, answering approval questions with `answer`, and collects the events.
pub(super) async fn send(engine: &Engine, conv: &str, text: &str, answer: ApprovalAnswer) -> Ran {
    let (tx, rx) = mpsc::unbounded_channel();
    let answering = answering(engine, rx, answer);
    let end = tokio::time::timeout(
        Duration::from_secs(60),
        engine.agent().send_message(conv, text, tx),
    )
    .await
    .expect("the turn hung")
    .unwrap();
    let events = answering.await.unwrap();
    Ran { end, events }
}

/// Collects a turn's events until it ends, answering its approval questions with `answer`.
pub(super) fn answering(
    engine: &Engine,
    mut rx: mpsc::UnboundedReceiver<ChatEvent>,
    answer: ApprovalAnswer,
) -> tokio::task::JoinHandle<Vec<ChatEvent>> {
    let e = engine.clone();
    tokio::spawn(async move {
        let mut events = Vec::new();
        while let Some(ev) = rx.recv().await {
            if let ChatEvent::ApprovalNeeded { approval_id, .. } = &ev {
                e.agent().answer_approval(approval_id, answer);
            }
            events.push(ev);
        }
        events
    })
}

/// Adds the scripted model at `url` (OpenAI wire) as provider `name`; returns its id.
pub(super) async fn provider(engine: &Engine, name: &str, url: &str) -> String {
    let view = engine
        .providers()
        .add_provider(NewProvider {
            name: name.into(),
            preset: "openai-compatible".into(),
            base_url: Some(format!("{url}/v1")),
            ..Default::default()
        })
        .await
        .unwrap();
    view.provider.id
}

/// The tool results a turn reported: (text, is_error).
pub(super) fn results(events: &[ChatEvent]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::ToolResult {
                content, is_error, ..
            } => Some((
                switchboard_engine::agent::history::result_text(content),
                *is_error,
            )),
            _ => None,
        })
        .collect()
}

/// The answer text a turn streamed.
pub(super) fn text(events: &[ChatEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}
