//! Tool calls a 2026-07-28 server runs as tasks (the Tasks extension, SEP-2663), through the
//! whole engine, on the suite's own rmcp server (`tasks_server.rs`): the server
//! answers `tools/call` with `resultType: "task"`; the turn follows the task like a
//! handshake-era one (same `tool_task` events, result in history), answers its input requests
//! through the interaction broker with `tasks/update`, cancels it with `tasks/cancel` (from
//! the card and from Stop), gets a failure as an error result, and resumes it after the
//! engine is dropped and opened again.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_engine::agent::{ApprovalAnswer, ChatEvent, TurnEnd};
use switchboard_engine::mcp::tasks::TaskStatus;
use switchboard_engine::mcp::{InteractionAnswer, InteractionEvent};
use switchboard_engine::store::{MessageStatus, Role};

use super::super::tasks_server::{self, Running};
use super::model::{Model, Say};
use super::tasks::{call, start_task_then_drop_the_engine, statuses, stored_results};
use super::*;

/// Configures and starts the tasks server as `tasks` (allowed without asking).
async fn with_server(engine: &Engine, server: &Running) {
    let doc =
        json!({"mcpServers": {"tasks": {"type": "http", "url": server.url, "approval": "allow"}}});
    engine
        .import_servers(&doc.to_string(), Conflict::Skip)
        .await
        .unwrap();
    engine.start_server("tasks").await.unwrap();
}

/// The status messages a turn reported for its tasks.
fn messages(events: &[ChatEvent]) -> Vec<String> {
    (events.iter())
        .filter_map(|e| match e {
            ChatEvent::ToolTask { message, .. } => message.clone(),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_task_is_followed_until_done_and_its_result_lands_in_history() {
    let server = tasks_server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_server(&engine, &server).await;
    let model = Model::start(vec![
        call("tasks__report", json!({"label": "tides", "steps": 5})),
        Say::Text("Reported.".into()),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "Report on tides", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    let seen = statuses(&ran.events);
    assert_eq!(seen.first(), Some(&TaskStatus::Working), "{seen:?}");
    assert_eq!(seen.last(), Some(&TaskStatus::Completed), "{seen:?}");
    let said = messages(&ran.events);
    assert!(said.iter().any(|m| m.starts_with("step ")), "{said:?}");
    let expected = vec![("report on tides after 5 steps".to_owned(), false)];
    assert_eq!(results(&ran.events), expected);
    assert_eq!(stored_results(&engine, &conv).await, expected);
    assert!(server.counts.gets.load(Ordering::SeqCst) >= 1);
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_task_that_needs_input_is_answered_through_the_broker_with_tasks_update() {
    let server = tasks_server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_server(&engine, &server).await;
    let mut asked = engine.supervisor().interactions().subscribe();
    let e = engine.clone();
    let answering = tokio::spawn(async move {
        while let Ok(event) = asked.recv().await {
            if let InteractionEvent::ElicitationRequested { id, server, .. } = event {
                assert_eq!(server, "tasks");
                let content = Some(json!({"name": "Ada"}));
                e.answer_interaction(&id, InteractionAnswer::Accept { content })
                    .unwrap();
                return true;
            }
        }
        false
    });
    let model = Model::start(vec![
        call("tasks__ask_name", json!({})),
        Say::Text("Greeted.".into()),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "Ask my name", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert!(answering.await.unwrap(), "the task asked nothing");
    let seen = statuses(&ran.events);
    assert!(seen.contains(&TaskStatus::InputRequired), "{seen:?}");
    assert_eq!(seen.last(), Some(&TaskStatus::Completed), "{seen:?}");
    assert_eq!(results(&ran.events), vec![("hello Ada".to_owned(), false)]);
    assert_eq!(server.counts.updates.load(Ordering::SeqCst), 1);
    let logs = engine.supervisor().logs("tasks").unwrap().messages;
    assert!(
        logs.iter()
            .any(|l| l.contains("tasks/update") && l.contains("name")),
        "{logs:?}"
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_task_that_fails_gives_an_error_result_not_a_hang() {
    let server = tasks_server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_server(&engine, &server).await;
    let model = Model::start(vec![
        call("tasks__doomed", json!({})),
        Say::Text("It failed.".into()),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "Try", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert_eq!(statuses(&ran.events).last(), Some(&TaskStatus::Failed));
    let expected = vec![(
        "The task failed (error -32603): the disk is full".to_owned(),
        true,
    )];
    assert_eq!(results(&ran.events), expected);
    assert_eq!(stored_results(&engine, &conv).await, expected);
    engine.shutdown().await;
}

/// Runs a turn calling `endless`; on its first task event, `act` is called with the engine,
/// the conversation and the call id. Returns how the turn ended and its events.
async fn endless_turn(
    engine: &Engine,
    conv: &str,
    act: impl Fn(Engine, String, String) + Send + 'static,
) -> (TurnEnd, Vec<ChatEvent>) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (e, c) = (engine.clone(), conv.to_owned());
    let watcher = tokio::spawn(async move {
        let mut events: Vec<ChatEvent> = Vec::new();
        while let Some(ev) = rx.recv().await {
            if let ChatEvent::ToolTask { call_id, .. } = &ev
                && statuses(&events).is_empty()
            {
                act(e.clone(), c.clone(), call_id.clone());
            }
            events.push(ev);
        }
        events
    });
    let turn = engine.send_message(conv, "Go", tx);
    let end = tokio::time::timeout(Duration::from_secs(60), turn);
    let end = end.await.expect("the turn hung").unwrap();
    (end, watcher.await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_2026_task_from_its_card_sends_tasks_cancel() {
    let server = tasks_server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_server(&engine, &server).await;
    let model = Model::start(vec![
        call("tasks__endless", json!({})),
        Say::Text("Cancelled.".into()),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let (end, events) = endless_turn(&engine, &conv, |e, _, call_id| {
        tokio::spawn(async move { e.cancel_task(&call_id).await.unwrap() });
    })
    .await;
    assert_eq!(end, TurnEnd::Done);
    assert_eq!(server.counts.cancels.load(Ordering::SeqCst), 1);
    assert_eq!(
        statuses(&events).last(),
        Some(&TaskStatus::Cancelled),
        "the server's own status after tasks/cancel"
    );
    assert_eq!(
        results(&events),
        vec![("The user cancelled this task.".to_owned(), true)]
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn stopping_the_turn_cancels_its_2026_task_on_the_server() {
    let server = tasks_server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_server(&engine, &server).await;
    let model = Model::start(vec![call("tasks__endless", json!({}))]).await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let (end, events) = endless_turn(&engine, &conv, |e, c, _| {
        assert!(e.stop_turn(&c));
    })
    .await;
    assert_eq!(end, TurnEnd::Cancelled);
    assert_eq!(server.counts.cancels.load(Ordering::SeqCst), 1);
    assert_eq!(statuses(&events).last(), Some(&TaskStatus::Cancelled));
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_2026_task_survives_the_engine_being_dropped_and_its_result_lands_after_reopening() {
    let server = tasks_server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let conv = start_task_then_drop_the_engine(dir.path(), &server.url);
    let engine = engine(dir.path()).await;
    engine.start_server("tasks").await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let stored = loop {
        let stored = stored_results(&engine, &conv).await;
        if !stored.is_empty() || Instant::now() > deadline {
            break stored;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        stored,
        vec![("report on tides after 15 steps".to_owned(), false)]
    );
    let branch = engine.conversation_branch(&conv).await.unwrap();
    let tool = branch.iter().find(|m| m.role == Role::Tool).unwrap();
    assert_eq!(tool.status, MessageStatus::Complete);
    assert_eq!(server.counts.cancels.load(Ordering::SeqCst), 0);
    engine.shutdown().await;
}
