//! The local endpoint asking in Switchboard's window: an app that cannot be asked itself (the
//! official Python SDK's HTTP client without elicitation) calls `mcp-server-time`'s tool that
//! the policy asks about, with the engine in this process and a "window" that subscribes to its
//! interactions and answers them; "always" is kept for that app only, across a restart. An app
//! that leaves takes its question, or its upstream call, with it.

use std::path::Path;

use serde_json::{Value, json};
use switchboard_engine::Engine;
use switchboard_engine::mcp::{InteractionAnswer, InteractionEvent};
use switchboard_engine::vocab::server::{Approval, ServerConfig, Transport};

use super::mcp_serve::run_client;
use super::servers::engine;
use super::support_py::{free_port, time_stdio_config, venv_python};

const CALL: &str = "guarded__get_current_time";

/// What the window was asked: (app, tool, whether "always" was offered).
type Asked = Vec<(String, String, bool)>;

/// A window that answers the apps' calls it is asked about with `answers`, in order.
fn window(engine: &Engine, answers: Vec<InteractionAnswer>) -> tokio::task::JoinHandle<Asked> {
    let mut events = engine.mcp().interactions().subscribe();
    let engine = engine.clone();
    tokio::spawn(async move {
        let mut asked = Vec::new();
        for answer in answers {
            loop {
                let event = events.recv().await.unwrap();
                if let InteractionEvent::ClientCallRequested {
                    id,
                    client,
                    tool,
                    can_always,
                    ..
                } = event
                {
                    asked.push((client, tool, can_always));
                    engine.mcp().answer_interaction(&id, answer).unwrap();
                    break;
                }
            }
        }
        asked
    })
}

/// An engine over `dir` serving `guarded` (the policy asks) on a free port; its endpoint URL.
async fn serving(dir: &Path) -> (Engine, String) {
    let engine = engine(dir).await;
    if engine.store().find_server("guarded").await.is_err() {
        let mut guarded = time_stdio_config("guarded");
        guarded.approval = Approval::Ask;
        engine.mcp().add_server(guarded).await.unwrap();
    }
    engine.mcp().start_server("guarded").await.unwrap();
    let status = engine.local_server().set(true, free_port()).await.unwrap();
    let url = status.url.clone().unwrap_or_else(|| panic!("{status:?}"));
    (engine, url)
}

/// One session of the Python client (no elicitation) calling the guarded tool with `token`.
async fn call(url: &str, token: &str) -> Value {
    let (url, token) = (url.to_owned(), token.to_owned());
    tokio::task::spawn_blocking(move || {
        let calls = json!([[CALL, {"timezone": "Asia/Tokyo"}]]);
        let python = venv_python();
        run_client(
            &python,
            "none",
            &url,
            &json!([]),
            &calls,
            &json!({}),
            Some(&token),
        )
    })
    .await
    .unwrap()
}

fn text(report: &Value) -> String {
    report["calls"][0]["text"][0]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

type Events = tokio::sync::broadcast::Receiver<InteractionEvent>;

/// The Python SDK's client (handshake era, no elicitation) making `calls` with `token`, left
/// running for the test to kill.
fn python_app(url: &str, token: &str, calls: &Value) -> std::process::Child {
    std::process::Command::new(venv_python())
        .arg(super::support_py::fixtures_py().join("serve_client.py"))
        .args(["none", url, "[]"])
        .arg(calls.to_string())
        .arg("{}")
        .env("SB_TOKEN", token)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// The id of the next app's call the window is asked about.
async fn next_asked(events: &mut Events) -> String {
    loop {
        if let InteractionEvent::ClientCallRequested { id, .. } = events.recv().await.unwrap() {
            return id;
        }
    }
}

/// Why the question `asked` left the window; an error if it is still there after 20 s.
async fn closed_reason(
    events: &mut Events,
    asked: &str,
) -> Result<switchboard_engine::mcp::CloseReason, tokio::time::error::Elapsed> {
    let closed = async {
        loop {
            if let InteractionEvent::Closed { id, reason, .. } = events.recv().await.unwrap()
                && id == asked
            {
                return reason;
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(20), closed).await
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_that_cannot_be_asked_is_asked_about_in_the_window_and_always_is_kept_for_it_alone()
{
    let dir = tempfile::tempdir().unwrap();
    let (engine, url) = serving(dir.path()).await;
    let (cursor_client, cursor) = engine
        .store()
        .add_serve_client("Cursor", None)
        .await
        .unwrap();
    let (_, zed) = engine.store().add_serve_client("Zed", None).await.unwrap();
    let answers = vec![
        InteractionAnswer::Deny,
        InteractionAnswer::ApproveAlways,
        InteractionAnswer::Approve,
    ];
    let window = window(&engine, answers);

    let denied = call(&url, &cursor).await;
    assert_eq!(denied["calls"][0]["isError"], true, "{denied}");
    assert!(text(&denied).contains("refused"), "{denied}");
    let allowed = call(&url, &cursor).await;
    assert_eq!(allowed["calls"][0]["isError"], false, "{allowed}");
    assert!(text(&allowed).contains("Asia/Tokyo"), "{allowed}");
    let again = call(&url, &cursor).await;
    assert_eq!(again["calls"][0]["isError"], false, "not asked: {again}");
    let other = call(&url, &zed).await;
    assert_eq!(other["calls"][0]["isError"], false, "{other}");

    let asked = window.await.unwrap();
    let who: Vec<&str> = asked.iter().map(|(c, _, _)| c.as_str()).collect();
    assert_eq!(who, ["Cursor", "Cursor", "Zed"], "{asked:?}");
    assert!(
        asked
            .iter()
            .all(|(_, tool, always)| tool == "get_current_time" && *always)
    );
    engine.local_server().stop().await;
    engine.shutdown().await;

    // After a restart, with no window: Cursor's "always" holds, Zed's "once" did not.
    let (engine, url) = serving(dir.path()).await;
    let kept = call(&url, &cursor).await;
    assert_eq!(kept["calls"][0]["isError"], false, "{kept}");
    let unasked = call(&url, &zed).await;
    assert_eq!(unasked["calls"][0]["isError"], true, "{unasked}");
    assert!(text(&unasked).contains("approval"), "{unasked}");

    // Settings → Local server lists what Cursor may call without asking; "Ask again" takes it back.
    let store = engine.store();
    let kept = store.serve_client_grants(&cursor_client.id).await.unwrap();
    let named: Vec<(&str, &str)> = kept
        .iter()
        .map(|g| (g.server.as_str(), g.tool.as_str()))
        .collect();
    assert_eq!(named, [("guarded", "get_current_time")]);
    (store
        .revoke_serve_client_grant(&cursor_client.id, "guarded", "get_current_time")
        .await)
        .unwrap();
    let asked_again = call(&url, &cursor).await;
    assert_eq!(asked_again["calls"][0]["isError"], true, "{asked_again}");
    engine.local_server().stop().await;
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_that_leaves_while_the_window_asks_about_its_call_takes_the_question_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, url) = serving(dir.path()).await;
    let (_, token) = engine
        .store()
        .add_serve_client("Cursor", None)
        .await
        .unwrap();
    let mut events = engine.mcp().interactions().subscribe();
    let capabilities = rmcp::model::ClientCapabilities::default();
    let app = super::mcp_serve_relay::stateless_app(&url, &token, capabilities).await;
    let peer = app.peer().clone();
    let calling = tokio::spawn(async move {
        let mut params = rmcp::model::CallToolRequestParams::new(CALL);
        params.arguments = json!({"timezone": "Asia/Tokyo"}).as_object().cloned();
        peer.call_tool(params).await
    });
    let asked = next_asked(&mut events).await;
    // The app goes away before anyone answers.
    let _ = app.cancel().await;
    calling.abort();
    let reason = closed_reason(&mut events, &asked).await;
    assert_eq!(
        reason.expect("the question stayed in the window"),
        switchboard_engine::mcp::CloseReason::Withdrawn
    );
    assert!(engine.mcp().interactions().waiting().is_empty());

    // A handshake-era app (the Python SDK's client, whose session outlives its connection)
    // killed while the window asks about its call.
    let mut python = python_app(&url, &token, &json!([[CALL, {"timezone": "Asia/Tokyo"}]]));
    let asked = next_asked(&mut events).await;
    python.kill().unwrap();
    python.wait().unwrap();
    let reason = closed_reason(&mut events, &asked).await;
    assert_eq!(
        reason.expect("the killed app's question stayed in the window"),
        switchboard_engine::mcp::CloseReason::Withdrawn
    );
    engine.local_server().stop().await;
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_that_leaves_mid_call_has_the_upstream_call_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let script = super::support_py::fixtures_py().join("fault_server.py");
    let mute = ServerConfig::new(
        "mute",
        Transport::Stdio {
            command: "python3".into(),
            args: vec![script.to_string_lossy().into_owned(), "never-answer".into()],
            env: Default::default(),
            cwd: None,
        },
    );
    engine.mcp().add_server(mute).await.unwrap();
    let allow = Some(Approval::Allow);
    (engine.mcp().set_tool_policy("mute", "work", allow).await).unwrap();
    engine.mcp().start_server("mute").await.unwrap();
    let status = engine.local_server().set(true, free_port()).await.unwrap();
    let url = status.url.clone().unwrap_or_else(|| panic!("{status:?}"));
    let (_, token) = engine.store().add_serve_client("Zed", None).await.unwrap();
    let capabilities = rmcp::model::ClientCapabilities::default();
    let app = super::mcp_serve_relay::stateless_app(&url, &token, capabilities).await;
    let peer = app.peer().clone();
    let calling = tokio::spawn(async move {
        let params = rmcp::model::CallToolRequestParams::new("mute__work");
        peer.call_tool(params).await
    });
    // The n-th line of the server's stderr that holds `needle`, once it is there.
    let stderr = |needle: &'static str, n: usize| {
        let engine = engine.clone();
        async move {
            for _ in 0..400 {
                let lines = engine.mcp().server_logs("mute").unwrap().stderr;
                let found: Vec<&String> = lines.iter().filter(|l| l.contains(needle)).collect();
                if let Some(line) = found.get(n) {
                    return Some((*line).clone());
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            None
        }
    };
    let reached = stderr("ignoring request", 0).await;
    assert!(reached.is_some(), "the call never reached the server");
    // A stateless-era app goes away while the server still works on its call.
    let _ = app.cancel().await;
    calling.abort();
    let cancelled = stderr("cancelled request", 0).await;
    assert!(cancelled.is_some(), "the server was never told");

    // A handshake-era app (the Python SDK's client, whose session outlives its connection)
    // killed mid-call.
    let mut python = python_app(&url, &token, &json!([["mute__work", {}]]));
    let reached = stderr("ignoring request", 1).await;
    assert!(
        reached.is_some(),
        "the second call never reached the server"
    );
    python.kill().unwrap();
    python.wait().unwrap();
    let cancelled = stderr("cancelled request", 1).await;
    assert!(
        cancelled.is_some(),
        "the server was never told of the killed app's call: {:?}",
        engine.mcp().server_logs("mute").unwrap().stderr
    );
    engine.local_server().stop().await;
    engine.shutdown().await;
}
