//! Tool-list changes from stateless (2026-07-28) servers, through the engine: a server that
//! advertises `tools.listChanged` gets one `subscriptions/listen` stream per connection, and
//! its `notifications/tools/list_changed` on that stream makes the host list its tools again
//! (its `ttlMs` of an hour notwithstanding) and publish `ToolsChanged`; a list that expired
//! and came back different publishes `ToolsChanged` too.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_engine::Engine;
use switchboard_engine::mcp::{Conflict, SupervisorEvent};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::agent::engine;
use super::mrtr_server::{self, Asking};
use super::tasks_server;

/// Configures and starts an HTTP server `name` at `url`.
async fn start(engine: &Engine, name: &str, url: &str) {
    let doc = json!({"mcpServers": {name: {"type": "http", "url": url}}});
    engine
        .mcp()
        .import_servers(&doc.to_string(), Conflict::Skip)
        .await
        .unwrap();
    engine.mcp().start_server(name).await.unwrap();
}

/// Waits (up to 20 s) for `ToolsChanged` of `server`.
async fn tools_changed(events: &mut broadcast::Receiver<SupervisorEvent>, server: &str) {
    let wait = async {
        loop {
            match events.recv().await {
                Ok(SupervisorEvent::ToolsChanged { server: s }) if s == server => return,
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("events ended: {e}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), wait)
        .await
        .expect("no ToolsChanged event");
}

fn names(engine: &Engine, server: &str) -> Vec<String> {
    let tools = engine.mcp().server_tools(server).unwrap();
    tools.into_iter().map(|t| t.name).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stateless_server_that_adds_a_tool_is_seen_through_subscriptions_listen_before_its_ttl() {
    let server = tasks_server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    start(&engine, "tasks", &server.url).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.counts.listens.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "no subscriptions/listen stream");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!names(&engine, "tasks").contains(&"added".to_owned()));
    let mut events = engine.mcp().subscribe();
    let cancel = CancellationToken::new();
    let added = engine
        .mcp()
        .call_tool("tasks", "add_tool", json!({}), cancel)
        .await
        .unwrap();
    let told = serde_json::to_value(&added.content).unwrap();
    assert_eq!(
        told,
        json!([{"type": "text", "text": "added; told 1 listeners"}])
    );
    tools_changed(&mut events, "tasks").await;
    assert!(names(&engine, "tasks").contains(&"added".to_owned()));
    let turn_tools = engine.mcp().model_tools(Some(&["tasks".to_owned()])).await;
    assert!(turn_tools.iter().any(|(_, t)| t.name == "added"));
    assert_eq!(
        server.counts.lists.load(Ordering::SeqCst),
        2,
        "the first list and one after the change"
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_tool_list_that_came_back_different_publishes_tools_changed() {
    let server = mrtr_server::start(Asking::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    start(&engine, "mrtr", &server.url).await;
    let mut events = engine.mcp().subscribe();
    *server.asking.extra_tool.lock().unwrap() = Some("ask_later".to_owned());
    let tools = engine.mcp().model_tools(Some(&["mrtr".to_owned()])).await;
    assert!(tools.iter().any(|(_, t)| t.name == "ask_later"));
    tools_changed(&mut events, "mrtr").await;
    engine.shutdown().await;
}
