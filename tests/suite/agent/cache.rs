//! Cache hints on tool lists (SEP-2549) across turns, counted at the suite's own 2026-07-28
//! server ([`crate::suite::mrtr_server`]): within the list's `ttlMs` a turn sends the model the
//! tools it knows without a `tools/list`; once it has passed (or when the server gives no
//! `ttlMs`: nothing would tell a stateless client the list changed) the next turn lists again
//! and sees the change.

use std::sync::atomic::Ordering;
use std::time::Duration;

use switchboard_engine::Engine;
use switchboard_engine::agent::ApprovalAnswer;
use switchboard_engine::vocab::server::{ServerConfig, Transport};

use super::model::{Model, Say};
use super::{Wire, conversation, engine, send};
use crate::suite::mrtr_server::{self, Asking, Running};

/// An engine with the server (tool lists hinted `ttl_ms`) started, and a conversation on a
/// model that answers `turns` times with text.
async fn setup(
    dir: &std::path::Path,
    ttl_ms: Option<u64>,
    turns: usize,
) -> (Engine, Running, Model, String) {
    let server = mrtr_server::start(Asking {
        ttl_ms,
        ..Asking::default()
    })
    .await;
    let engine = engine(dir).await;
    let transport = Transport::Http {
        url: server.url.clone(),
        headers: Default::default(),
    };
    engine
        .mcp()
        .add_server(ServerConfig::new("mrtr", transport))
        .await
        .unwrap();
    engine.mcp().start_server("mrtr").await.unwrap();
    let model = Model::start(vec![Say::Text("Fine.".into()); turns]).await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    (engine, server, model, conv)
}

#[tokio::test]
async fn within_the_ttl_a_second_turn_sends_the_known_tools_without_listing_them_again() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, server, model, conv) = setup(dir.path(), Some(60_000), 2).await;
    assert_eq!(
        server.asking.lists.load(Ordering::SeqCst),
        1,
        "the start-up listing"
    );
    send(&engine, &conv, "one", ApprovalAnswer::Deny).await;
    send(&engine, &conv, "two", ApprovalAnswer::Deny).await;
    assert_eq!(
        server.asking.lists.load(Ordering::SeqCst),
        1,
        "no tools/list in either turn"
    );
    assert_eq!(model.offered(1).len(), 5);
    assert_eq!(model.offered(0), model.offered(1));
    engine.shutdown().await;
}

#[tokio::test]
async fn once_the_ttl_has_passed_the_next_turn_lists_again_and_sees_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, server, model, conv) = setup(dir.path(), Some(500), 2).await;
    send(&engine, &conv, "one", ApprovalAnswer::Deny).await;
    // The first turn may or may not come within 500 ms of the start-up listing.
    let after_first = server.asking.lists.load(Ordering::SeqCst);
    if let Ok(mut extra) = server.asking.extra_tool.lock() {
        *extra = Some("ask_later".to_owned());
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    send(&engine, &conv, "two", ApprovalAnswer::Deny).await;
    assert_eq!(server.asking.lists.load(Ordering::SeqCst), after_first + 1);
    assert!(!model.offered(0).iter().any(|t| t.ends_with("ask_later")));
    assert!(
        model.offered(1).iter().any(|t| t.ends_with("ask_later")),
        "{:?}",
        model.offered(1)
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn a_stateless_server_without_a_ttl_is_listed_again_on_every_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, server, _model, conv) = setup(dir.path(), None, 2).await;
    send(&engine, &conv, "one", ApprovalAnswer::Deny).await;
    send(&engine, &conv, "two", ApprovalAnswer::Deny).await;
    assert_eq!(server.asking.lists.load(Ordering::SeqCst), 3);
    engine.shutdown().await;
}
