//! Tool calls that servers run as tasks, through the whole engine: server-everything's
//! `simulate-research-query` (created → polled → result in history), a task the user cancels
//! (the server reports it cancelled), and, on `task-server.mjs` (the TypeScript SDK's tasks
//! over stateless HTTP with one task store, so tasks outlive their client), a task that fails
//! and a task that survives the engine being dropped mid-task.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_engine::agent::{ApprovalAnswer, ChatEvent, TurnEnd};
use switchboard_engine::mcp::{InteractionAnswer, InteractionEvent};
use switchboard_engine::store::{MessageStatus, Role};
use switchboard_engine::vocab::task::TaskStatus;

use super::model::{Model, Say};
use super::*;

pub(super) fn call(name: &str, args: Value) -> Say {
    Say::Calls(vec![(name.to_owned(), args)])
}

/// The statuses a turn reported for its tasks, in order.
pub(super) fn statuses(events: &[ChatEvent]) -> Vec<TaskStatus> {
    events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::ToolTask { status, .. } => Some(*status),
            _ => None,
        })
        .collect()
}

/// `task-server.mjs` on a free loopback port; it exits when dropped (its stdin closes).
struct TaskServer {
    child: Child,
    stdin: Option<ChildStdin>,
    url: String,
}

impl TaskServer {
    fn start() -> Self {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-node/task-server.mjs");
        let mut child = Command::new("node")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs task-server.mjs");
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let port = line
            .trim()
            .strip_prefix("port ")
            .expect("the server printed its port");
        Self {
            stdin: child.stdin.take(),
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for TaskServer {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// Configures and starts the task server at `url` as `tasks` (allowed without asking).
pub(super) async fn with_tasks_server(engine: &Engine, url: &str) {
    let doc = json!({"mcpServers": {"tasks": {"type": "http", "url": url, "approval": "allow"}}});
    engine
        .mcp()
        .import_servers(&doc.to_string(), Conflict::Skip)
        .await
        .unwrap();
    engine.mcp().start_server("tasks").await.unwrap();
}

/// The result parts stored in the conversation's tool messages: (text, is_error).
pub(super) async fn stored_results(engine: &Engine, conv: &str) -> Vec<(String, bool)> {
    let branch = engine.agent().conversation_branch(conv).await.unwrap();
    branch
        .iter()
        .filter(|m| m.role == Role::Tool)
        .flat_map(|m| m.content.clone())
        .filter_map(|p| match p {
            switchboard_engine::vocab::content::ContentPart::ToolResult {
                content,
                is_error,
                ..
            } => Some((
                switchboard_engine::agent::history::result_text(&content),
                is_error,
            )),
            _ => None,
        })
        .collect()
}

/// Runs a turn whose task never ends by itself; on its first task event, `act` is called with
/// the engine, the conversation and the call id. Returns how the turn ended and its events.
pub(super) async fn endless_turn(
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
    let turn = engine.agent().send_message(conv, "Go", tx);
    let end = tokio::time::timeout(Duration::from_secs(60), turn);
    let end = end.await.expect("the turn hung").unwrap();
    (end, watcher.await.unwrap())
}

/// Opens the engine on `dir` again, starts `tasks`, and waits (at most a minute) for the task
/// left running to complete `conv`'s tool result: the stored result must be the slow report,
/// its message complete. Returns the open engine.
pub(super) async fn result_after_reopening(dir: &Path, conv: &str) -> Engine {
    let engine = engine(dir).await;
    engine.mcp().start_server("tasks").await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let stored = loop {
        let stored = stored_results(&engine, conv).await;
        if !stored.is_empty() || Instant::now() > deadline {
            break stored;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        stored,
        vec![("report on tides after 15 steps".to_owned(), false)]
    );
    let branch = engine.agent().conversation_branch(conv).await.unwrap();
    let tool = branch.iter().find(|m| m.role == Role::Tool).unwrap();
    assert_eq!(tool.status, MessageStatus::Complete);
    engine
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_tool_of_server_everything_is_created_polled_and_its_result_lands_in_history() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let model = Model::start(vec![
        call(
            "everything__simulate-research-query",
            json!({"topic": "tides"}),
        ),
        Say::Text("Researched.".into()),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "Research tides", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    let seen = statuses(&ran.events);
    assert_eq!(seen.first(), Some(&TaskStatus::Working), "{seen:?}");
    assert_eq!(seen.last(), Some(&TaskStatus::Completed), "{seen:?}");
    let messages: Vec<&str> = (ran.events.iter())
        .filter_map(|e| match e {
            ChatEvent::ToolTask { message, .. } => message.as_deref(),
            _ => None,
        })
        .collect();
    assert!(messages.iter().any(|m| m.ends_with("...")), "{messages:?}");
    let stored = stored_results(&engine, &conv).await;
    assert_eq!(stored.len(), 1);
    assert!(
        stored[0].0.starts_with("# Research Report: tides"),
        "{stored:?}"
    );
    assert!(!stored[0].1);
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_that_needs_input_asks_the_user_through_tasks_result_and_then_completes() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let mut asked = engine.mcp().interactions().subscribe();
    let e = engine.clone();
    let answering = tokio::spawn(async move {
        while let Ok(event) = asked.recv().await {
            if let InteractionEvent::ElicitationRequested { id, .. } = event {
                let content = Some(json!({"interpretation": "snake"}));
                e.mcp()
                    .answer_interaction(&id, InteractionAnswer::Accept { content })
                    .unwrap();
                return true;
            }
        }
        false
    });
    let model = Model::start(vec![
        call(
            "everything__simulate-research-query",
            json!({"topic": "python", "ambiguous": true}),
        ),
        Say::Text("Researched.".into()),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "Research python", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert!(answering.await.unwrap(), "the server asked nothing");
    let seen = statuses(&ran.events);
    assert!(seen.contains(&TaskStatus::InputRequired), "{seen:?}");
    assert_eq!(seen.last(), Some(&TaskStatus::Completed), "{seen:?}");
    let stored = stored_results(&engine, &conv).await;
    assert!(
        stored[0].0.starts_with("# Research Report: python (snake)"),
        "{stored:?}"
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_task_from_its_card_cancels_it_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let model = Model::start(vec![
        call(
            "everything__simulate-research-query",
            json!({"topic": "never"}),
        ),
        Say::Text("Cancelled.".into()),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let (end, events) = endless_turn(&engine, &conv, |e, _, call_id| {
        tokio::spawn(async move { e.agent().cancel_task(&call_id).await.unwrap() });
    })
    .await;
    assert_eq!(end, TurnEnd::Done);
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
async fn stopping_the_turn_cancels_its_running_task_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let model = Model::start(vec![call(
        "everything__simulate-research-query",
        json!({"topic": "stopped"}),
    )])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let (end, events) = endless_turn(&engine, &conv, |e, c, _| {
        assert!(e.agent().stop_turn(&c));
    })
    .await;
    assert_eq!(end, TurnEnd::Cancelled);
    assert_eq!(statuses(&events).last(), Some(&TaskStatus::Cancelled));
    assert_eq!(
        results(&events),
        vec![("The user cancelled this task.".to_owned(), true)]
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_that_fails_ends_the_call_with_the_servers_error() {
    let server = TaskServer::start();
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
    assert_eq!(
        results(&ran.events),
        vec![("the disk is full".to_owned(), true)]
    );
    assert_eq!(
        stored_results(&engine, &conv).await,
        vec![("the disk is full".to_owned(), true)]
    );
    engine.shutdown().await;
}

/// Runs a turn calling `report` in an engine on its own runtime, and drops that runtime —
/// engine, turn and all — once the task has been created.
pub(super) fn start_task_then_drop_the_engine(dir: &Path, server_url: &str) -> String {
    let url = server_url.to_owned();
    let dir = dir.to_owned();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let engine = engine(&dir).await;
            let server =
                json!({"mcpServers": {"tasks": {"type": "http", "url": url, "approval": "allow"}}});
            engine
                .mcp()
                .import_servers(&server.to_string(), Conflict::Skip)
                .await
                .unwrap();
            engine.mcp().start_server("tasks").await.unwrap();
            let script = vec![
                call("tasks__report", json!({"steps": 15, "label": "tides"})),
                Say::Text("Done.".into()),
            ];
            let model = Model::start(script).await;
            let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
            let (tx, mut rx) = mpsc::unbounded_channel();
            let turn = engine.clone();
            let c = conv.clone();
            tokio::spawn(async move { turn.agent().send_message(&c, "Report", tx).await });
            let created = async {
                while let Some(ev) = rx.recv().await {
                    if matches!(ev, ChatEvent::ToolTask { .. }) {
                        return;
                    }
                }
                panic!("the turn ended without creating a task");
            };
            let wait = tokio::time::timeout(Duration::from_secs(60), created);
            wait.await.expect("no task was created");
            conv
        })
        // The runtime drops here, with the turn still waiting for its task.
    })
    .join()
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_survives_the_engine_being_dropped_and_completes_the_result_after_reopening() {
    let server = TaskServer::start();
    let dir = tempfile::tempdir().unwrap();
    let conv = start_task_then_drop_the_engine(dir.path(), &server.url);
    let engine = result_after_reopening(dir.path(), &conv).await;
    engine.shutdown().await;
}
