//! Tool calls a 2026-07-28 server runs as tasks (the Tasks extension, SEP-2663), through the
//! whole engine, on the suite's own rmcp server (`tasks_server.rs`): the server
//! answers `tools/call` with `resultType: "task"`; the turn follows the task like a
//! handshake-era one (same `tool_task` events, result in history), answers its input requests
//! through the interaction broker with `tasks/update`, cancels it with `tasks/cancel` (from
//! the card and from Stop), gets a failure as an error result, and resumes it after the
//! engine is dropped and opened again.

use std::sync::atomic::Ordering;

use serde_json::json;
use switchboard_engine::agent::{ApprovalAnswer, ChatEvent, TurnEnd};
use switchboard_engine::mcp::{InteractionAnswer, InteractionEvent};
use switchboard_engine::vocab::task::TaskStatus;

use super::super::tasks_server;
use super::model::{Model, Say};
use super::tasks::{
    call, endless_turn, result_after_reopening, start_task_then_drop_the_engine, statuses,
    stored_results, with_tasks_server,
};
use super::*;

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
    with_tasks_server(&engine, &server.url).await;
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
    with_tasks_server(&engine, &server.url).await;
    let mut asked = engine.mcp().interactions().subscribe();
    let e = engine.clone();
    let answering = tokio::spawn(async move {
        while let Ok(event) = asked.recv().await {
            if let InteractionEvent::ElicitationRequested { id, server, .. } = event {
                assert_eq!(server, "tasks");
                let content = Some(json!({"name": "Ada"}));
                e.mcp()
                    .answer_interaction(&id, InteractionAnswer::Accept { content })
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
    let logs = engine.mcp().server_logs("tasks").unwrap().messages;
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
    with_tasks_server(&engine, &server.url).await;
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

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_2026_task_from_its_card_sends_tasks_cancel() {
    let server = tasks_server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_tasks_server(&engine, &server.url).await;
    let model = Model::start(vec![
        call("tasks__endless", json!({})),
        Say::Text("Cancelled.".into()),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let (end, events) = endless_turn(&engine, &conv, |e, _, call_id| {
        tokio::spawn(async move { e.agent().cancel_task(&call_id).await.unwrap() });
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
    with_tasks_server(&engine, &server.url).await;
    let model = Model::start(vec![call("tasks__endless", json!({}))]).await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let (end, events) = endless_turn(&engine, &conv, |e, c, _| {
        assert!(e.agent().stop_turn(&c));
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
    let engine = result_after_reopening(dir.path(), &conv).await;
    assert_eq!(server.counts.cancels.load(Ordering::SeqCst), 0);
    engine.shutdown().await;
}
