//! `switchboard serve` passing tasks through (the 2026-07-28 Tasks extension, SEP-2663): an app
//! of the stateless era that declares the extension (rmcp's own client) calls tools the suite's
//! tasks server (`tasks_server`, over HTTP) runs as tasks. It gets each task under an id of
//! Switchboard's, follows it with `tasks/get` to its inline result, answers what a task asks
//! with `tasks/update`, and cancels one with `tasks/cancel`; another app's token does not reach
//! the task. An app that does not declare the extension gets the server's own answer for such
//! a client.

use std::sync::atomic::Ordering;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    DetailedTask, GetTaskParams, InputResponses, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;

use super::mcp_serve_http::{Served, add_client, cli};
use super::mcp_serve_relay::stateless_app;
use super::tasks_server;

/// An app speaking 2026-07-28 with `token`, declaring the Tasks extension when `tasks`.
async fn app(url: &str, token: &str, tasks: bool) -> RunningService<RoleClient, ClientConfig> {
    let capabilities = match tasks {
        true => ClientCapabilities::builder().enable_tasks().build(),
        false => ClientCapabilities::default(),
    };
    stateless_app(url, token, capabilities).await
}

/// The task a call answered with.
async fn started(
    app: &RunningService<RoleClient, ClientConfig>,
    tool: &str,
    args: serde_json::Value,
) -> String {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = args.as_object().cloned();
    match app.call_tool_once(params).await.expect("the call") {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("no task: {other:?}"),
    }
}

/// Polls task `id` until its status is not `working`.
async fn settled(app: &RunningService<RoleClient, ClientConfig>, id: &str) -> DetailedTask {
    for _ in 0..100 {
        let got = app
            .get_task(GetTaskParams::new(id))
            .await
            .expect("tasks/get");
        if got.task.status() != TaskStatus::Working {
            return got.task;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("task {id} never settled");
}

fn result_text(task: &DetailedTask) -> String {
    let TaskPayload::Completed { result } = &task.payload else {
        panic!("not completed: {task:?}");
    };
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_that_follows_tasks_gets_them_under_its_own_ids_and_follows_answers_and_cancels_them()
 {
    let upstream = tasks_server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (path, url) = (dir.path().to_owned(), upstream.url.clone());
    let (token, other, served) = tokio::task::spawn_blocking(move || {
        let config = path.join("servers.json");
        let servers = json!({ "mcpServers": { "jobs": { "type": "http", "url": url, "approval": "allow" } } });
        std::fs::write(&config, servers.to_string()).unwrap();
        let (ok, said) = cli(&path, &["servers", "import", config.to_str().unwrap()]);
        assert!(ok, "{said}");
        (add_client(&path, &["app"]), add_client(&path, &["other"]), Served::start(&path))
    })
    .await
    .unwrap();
    let app = app(&served.url, &token, true).await;

    // A task that works three steps, followed to its result, carried inline.
    let id = started(&app, "jobs__report", json!({"label": "sales", "steps": 3})).await;
    let first = app.get_task(GetTaskParams::new(&id)).await.unwrap().task;
    assert_eq!(first.task.task_id, id, "the app's own id");
    let done = settled(&app, &id).await;
    assert_eq!(result_text(&done), "report on sales after 3 steps");
    assert!(upstream.counts.gets.load(Ordering::SeqCst) >= 2);

    // Another app's token does not reach it.
    let stranger = self::app(&served.url, &other, true).await;
    let error = stranger
        .get_task(GetTaskParams::new(&id))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no task"), "{error}");

    // A task that asks: its question reaches the app, whose answer goes to the server.
    let id = started(&app, "jobs__ask_name", json!({})).await;
    let asking = settled(&app, &id).await;
    let TaskPayload::InputRequired { input_requests } = &asking.payload else {
        panic!("no question: {asking:?}");
    };
    assert!(input_requests.contains_key("name"), "{input_requests:?}");
    let answer = json!({ "action": "accept", "content": { "name": "Ada" } });
    let responses = InputResponses::from([("name".to_owned(), answer)]);
    app.update_task(UpdateTaskParams::new(&id, responses))
        .await
        .expect("tasks/update");
    assert_eq!(upstream.counts.updates.load(Ordering::SeqCst), 1);
    assert_eq!(result_text(&settled(&app, &id).await), "hello Ada");

    // A task that works until cancelled.
    let id = started(&app, "jobs__endless", json!({})).await;
    app.cancel_task(CancelTaskParams::new(&id))
        .await
        .expect("tasks/cancel");
    assert_eq!(upstream.counts.cancels.load(Ordering::SeqCst), 1);
    assert_eq!(settled(&app, &id).await.status(), TaskStatus::Cancelled);

    // An app that does not follow tasks gets what the server tells such a client.
    let plain = self::app(&served.url, &token, false).await;
    let mut params = CallToolRequestParams::new("jobs__report".to_owned());
    params.arguments = json!({"label": "x", "steps": 1}).as_object().cloned();
    let answer = plain.call_tool_once(params).await.unwrap();
    let CallToolResponse::Complete(result) = answer else {
        panic!("a task for an app that cannot follow it: {answer:?}");
    };
    let said = serde_json::to_string(&result.content).unwrap();
    assert!(said.contains("runs only as a task"), "{said}");
    for running in [app, stranger, plain] {
        let _ = running.cancel().await;
    }
}
