//! Tasks against server-everything's `simulate-research-query` (a tool with
//! `taskSupport: "required"`, handshake era): the call becomes a task, the task is polled to
//! its end and its result fetched; a cancelled task is cancelled on the server.

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::supervisor::everything;
use crate::mcp::client::backoff::Backoff;
use crate::mcp::client::tasks::{CallOutcome, TaskState};
use crate::mcp::supervisor::tools::Limits;
use crate::mcp::supervisor::{ServerState, Supervisor};
use crate::vocab::mcp::ResultPart;
use crate::vocab::task::TaskStatus;

/// A supervisor running server-everything as `everything`.
async fn running() -> Supervisor {
    let supervisor = Supervisor::new(Backoff::default(), Limits::default());
    let state = supervisor.start(everything("everything")).await;
    assert!(matches!(state, ServerState::Ready { .. }), "{state:?}");
    supervisor
}

/// Starts a research task on `topic`.
async fn research(supervisor: &Supervisor, topic: &str) -> TaskState {
    let args = json!({"topic": topic});
    let call = supervisor.call_outcome(
        "everything",
        "simulate-research-query",
        args,
        CancellationToken::new(),
        None,
    );
    match call.await.unwrap() {
        CallOutcome::Task(state) => state,
        CallOutcome::Done(result) => panic!("the call did not become a task: {result:?}"),
    }
}

#[tokio::test]
async fn a_task_tool_runs_as_a_task_that_is_polled_to_completion_and_fetched() {
    let supervisor = running().await;
    let mut state = research(&supervisor, "rust").await;
    assert_eq!(state.status, TaskStatus::Working);
    let mut seen = vec![state.status];
    while !state.status.is_terminal() {
        tokio::time::sleep(state.next_poll()).await;
        state = supervisor
            .task_status("everything", &state.task_id)
            .await
            .unwrap();
        seen.push(state.status);
    }
    assert_eq!(seen.last(), Some(&TaskStatus::Completed), "{seen:?}");
    let result = supervisor
        .task_result("everything", &state, CancellationToken::new())
        .await
        .unwrap();
    assert!(!result.is_error);
    let text = match &result.content[..] {
        [ResultPart::Text { text }] => text.clone(),
        other => panic!("{other:?}"),
    };
    assert!(text.starts_with("# Research Report: rust"), "{text}");
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn a_cancelled_task_is_cancelled_on_the_server() {
    let supervisor = running().await;
    let state = research(&supervisor, "cancel me").await;
    let after = supervisor
        .task_cancel("everything", &state.task_id)
        .await
        .unwrap();
    assert_eq!(after.task_id, state.task_id);
    assert_eq!(after.status, TaskStatus::Cancelled);
    supervisor.shutdown_all().await;
}
