//! server-everything over stdio: handshake, tools, prompts, resources, progress, cancellation,
//! timeouts, spawn errors and clean shutdown.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{args, connect, everything_js, everything_spec, node_spec, process_running};
use crate::mcp::client::process::group_alive;
use crate::mcp::client::{IgnoreNotifications, McpClient};
use crate::vocab::mcp::{McpError, ServerNotification};
use crate::vocab::mcp::{
    PromptRole, ResourceBody, ResultPart, ServerInfo, ToolAnnotations, ToolResult,
};
use crate::vocab::server::{ServerSpec, Transport};

const CALL: Duration = Duration::from_secs(10);

#[tokio::test]
async fn connecting_over_stdio_reports_the_server_and_the_handshake_era_version() {
    crate::mcp::client::process::login_path().await; // resolved once per process: not part of connect
    let started = Instant::now();
    let (client, _rx) = connect(&everything_spec()).await;
    eprintln!(
        "stdio connect (spawn + initialize): {:?}",
        started.elapsed()
    );
    let info = client.server_info().clone();
    assert_eq!(
        info,
        ServerInfo {
            name: "mcp-servers/everything".to_owned(),
            title: Some("Everything Reference Server".to_owned()),
            version: "2.0.0".to_owned(),
            protocol_version: "2025-11-25".to_owned(),
            era: crate::vocab::mcp::ProtocolEra::Handshake,
            instructions: info.instructions.clone(),
        }
    );
    client.shutdown().await;
}

#[tokio::test]
async fn listing_tools_includes_echo_and_get_sum_with_their_schemas() {
    let (client, _rx) = connect(&everything_spec()).await;
    let tools = client.list_tools().await.expect("tools");
    let echo = tools.iter().find(|t| t.name == "echo").expect("echo");
    assert_eq!(echo.input_schema["type"], "object");
    assert_eq!(echo.input_schema["properties"]["message"]["type"], "string");
    let sum = tools.iter().find(|t| t.name == "get-sum").expect("get-sum");
    assert_eq!(sum.input_schema["required"], json!(["a", "b"]));
    let long = tools
        .iter()
        .find(|t| t.name == "trigger-long-running-operation");
    assert_eq!(
        long.expect("long-running tool").annotations,
        ToolAnnotations {
            read_only: Some(true),
            destructive: Some(false),
            idempotent: Some(true),
            open_world: Some(false),
        }
    );
    client.shutdown().await;
}

#[tokio::test]
async fn calling_echo_returns_the_message_as_text() {
    let (client, _rx) = connect(&everything_spec()).await;
    let call = || {
        let args = args(json!({"message": "héllo 世界"}));
        client.call_tool("echo", args, CALL, CancellationToken::new())
    };
    let result = call().await.expect("echo");
    assert_eq!(
        result,
        ToolResult {
            content: vec![ResultPart::Text {
                text: "Echo: héllo 世界".to_owned()
            }],
            structured: None,
            is_error: false,
        }
    );
    let started = Instant::now();
    for _ in 0..50 {
        call().await.expect("echo");
    }
    eprintln!("stdio echo latency: {:?} per call", started.elapsed() / 50);
    client.shutdown().await;
}

#[tokio::test]
async fn calling_get_sum_adds_the_numbers() {
    let (client, _rx) = connect(&everything_spec()).await;
    let args = args(json!({"a": 2, "b": 40}));
    let result = client
        .call_tool("get-sum", args, CALL, CancellationToken::new())
        .await
        .expect("get-sum");
    assert_eq!(
        result.content,
        vec![ResultPart::Text {
            text: "The sum of 2 and 40 is 42.".to_owned()
        }]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn get_tiny_image_returns_an_image_part() {
    let (client, _rx) = connect(&everything_spec()).await;
    let result = client
        .call_tool(
            "get-tiny-image",
            args(json!({})),
            CALL,
            CancellationToken::new(),
        )
        .await
        .expect("get-tiny-image");
    let image = result.content.iter().find_map(|part| match part {
        ResultPart::Image { mime, data } => Some((mime.clone(), data.len())),
        _ => None,
    });
    let (mime, len) = image.expect("an image part");
    assert_eq!(mime, "image/png");
    assert!(len > 100, "base64 data of {len} bytes");
    client.shutdown().await;
}

#[tokio::test]
async fn get_structured_content_returns_the_structured_result() {
    let (client, _rx) = connect(&everything_spec()).await;
    let args = args(json!({"location": "New York"}));
    let result = client
        .call_tool(
            "get-structured-content",
            args,
            CALL,
            CancellationToken::new(),
        )
        .await
        .expect("get-structured-content");
    assert_eq!(
        result.structured,
        Some(json!({"temperature": 33, "conditions": "Cloudy", "humidity": 82}))
    );
    assert!(!result.is_error);
    client.shutdown().await;
}

#[tokio::test]
async fn a_tool_error_is_a_result_with_is_error_not_a_failure() {
    let (client, _rx) = connect(&everything_spec()).await;
    let result = client
        .call_tool(
            "get-sum",
            args(json!({"a": "x"})),
            CALL,
            CancellationToken::new(),
        )
        .await
        .expect("an answer");
    assert!(result.is_error, "{result:?}");
    client.shutdown().await;
}

#[tokio::test]
async fn listing_prompts_and_getting_one_with_arguments() {
    let (client, _rx) = connect(&everything_spec()).await;
    let prompts = client.list_prompts().await.expect("prompts");
    let prompt = prompts
        .iter()
        .find(|p| p.name == "args-prompt")
        .expect("args-prompt");
    let required: Vec<_> = prompt
        .arguments
        .iter()
        .map(|a| (a.name.as_str(), a.required))
        .collect();
    assert_eq!(required, vec![("city", true), ("state", false)]);
    let args = BTreeMap::from([("city".to_owned(), "Paris".to_owned())]);
    let expanded = client
        .get_prompt("args-prompt", args)
        .await
        .expect("prompt");
    assert_eq!(expanded.messages.len(), 1);
    assert_eq!(expanded.messages[0].role, PromptRole::User);
    assert_eq!(
        expanded.messages[0].content,
        ResultPart::Text {
            text: "What's weather in Paris?".to_owned()
        }
    );
    client.shutdown().await;
}

#[tokio::test]
async fn listing_and_reading_a_resource() {
    let (client, _rx) = connect(&everything_spec()).await;
    let resources = client.list_resources().await.expect("resources");
    let uri = "demo://resource/static/document/features.md";
    let listed = resources.iter().find(|r| r.uri == uri);
    assert!(listed.is_some(), "{uri} not in {resources:#?}");
    let contents = client.read_resource(uri).await.expect("read");
    assert_eq!(contents.len(), 1);
    assert_eq!(contents[0].uri, uri);
    let ResourceBody::Text(text) = &contents[0].body else {
        panic!("expected text, got {:?}", contents[0].body);
    };
    assert!(!text.is_empty());
    client.shutdown().await;
}

#[tokio::test]
async fn a_long_running_tool_sends_progress_notifications() {
    let (client, mut rx) = connect(&everything_spec()).await;
    let args = args(json!({"duration": 0.8, "steps": 4}));
    let result = client
        .call_tool(
            "trigger-long-running-operation",
            args,
            CALL,
            CancellationToken::new(),
        )
        .await
        .expect("long-running");
    assert!(!result.is_error);
    let mut steps = Vec::new();
    while let Ok(notification) = rx.try_recv() {
        if let ServerNotification::Progress {
            progress, total, ..
        } = notification
        {
            steps.push((progress, total));
        }
    }
    let expected: Vec<_> = (1..=4).map(|i| (f64::from(i), Some(4.0))).collect();
    assert_eq!(steps, expected);
    client.shutdown().await;
}

#[tokio::test]
async fn cancelling_a_long_running_call_returns_cancelled_promptly() {
    let (client, _rx) = connect(&everything_spec()).await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let args = args(json!({"duration": 20, "steps": 20}));
    let result = client
        .call_tool("trigger-long-running-operation", args, CALL, cancel)
        .await;
    assert!(matches!(result, Err(McpError::Cancelled)), "{result:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let echo = client.call_tool("echo", args_message(), CALL, CancellationToken::new());
    assert!(
        echo.await.is_ok(),
        "the connection survives a cancelled call"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn a_call_outlasting_its_timeout_returns_timeout() {
    let (client, _rx) = connect(&everything_spec()).await;
    let started = Instant::now();
    let args = args(json!({"duration": 5, "steps": 1}));
    let after = Duration::from_millis(500);
    let result = client
        .call_tool(
            "trigger-long-running-operation",
            args,
            after,
            CancellationToken::new(),
        )
        .await;
    assert!(
        matches!(result, Err(McpError::Timeout { after: a }) if a == after),
        "{result:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    client.shutdown().await;
}

#[tokio::test]
async fn a_missing_binary_gives_a_spawn_error_naming_the_command() {
    let transport = Transport::Stdio {
        command: "switchboard-no-such-server".to_owned(),
        args: vec![],
        env: BTreeMap::new(),
        cwd: None,
    };
    let result =
        McpClient::connect(&ServerSpec::new("ghost", transport), IgnoreNotifications).await;
    let Err(McpError::Spawn { command, reason }) = result else {
        panic!("expected a spawn error, got {result:?}");
    };
    assert_eq!(command, "switchboard-no-such-server");
    assert!(
        reason.contains("`switchboard-no-such-server` was not found"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_server_that_exits_at_once_gives_a_handshake_error_quoting_its_stderr() {
    let spec = node_spec(vec![
        "-e".to_owned(),
        "console.error('boom: no config'); process.exit(3)".to_owned(),
    ]);
    let result = McpClient::connect(&spec, IgnoreNotifications).await;
    let Err(McpError::Handshake(message)) = result else {
        panic!("expected a handshake error, got {result:?}");
    };
    assert!(message.contains("boom: no config"), "{message}");
}

#[tokio::test]
async fn stderr_is_captured_line_by_line() {
    let (client, _rx) = connect(&everything_spec()).await;
    let log = client.stderr().expect("a stdio server has stderr");
    let lines = log.lines();
    assert!(
        lines
            .iter()
            .any(|l| l == "Starting default (STDIO) server..."),
        "{lines:?}"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn shutdown_leaves_no_process_of_the_group_behind() {
    let spec = npx_like_spec();
    let (client, _rx) = connect(&spec).await;
    let pid = client.pid().expect("pid");
    assert!(group_alive(pid));
    let started = Instant::now();
    client.shutdown().await;
    eprintln!("shutdown of sh + node + sleep: {:?}", started.elapsed());
    assert!(!group_alive(pid), "process group {pid} still has members");
    assert!(!process_running(pid));
}

#[tokio::test]
async fn dropping_a_client_without_shutdown_kills_its_process_group() {
    let (client, _rx) = connect(&npx_like_spec()).await;
    let pid = client.pid().expect("pid");
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(3);
    while group_alive(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!group_alive(pid), "process group {pid} still has members");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_progress_report_sent_before_the_result_is_heard_before_the_call_returns() {
    // No pause between steps: the last report and the result leave the server back to back,
    // while busy threads keep the runtime's workers short of CPU (as a loaded machine does).
    let (client, mut rx) = connect(&everything_spec()).await;
    let busy = Busy::start(4);
    let steps = 25;
    for _ in 0..8 {
        let (sink, mut reports) = tokio::sync::mpsc::unbounded_channel();
        let args = args(json!({"duration": 0, "steps": steps}));
        let call = "trigger-long-running-operation";
        let cancel = CancellationToken::new();
        let result = client.call_tool_with_progress(call, args, CALL, cancel, Some(sink));
        assert!(!result.await.expect("long-running").is_error);
        let mut heard = Vec::new();
        while let Ok(report) = reports.try_recv() {
            heard.push(report.progress);
        }
        let expected: Vec<f64> = (1..=steps).map(f64::from).collect();
        assert_eq!(heard, expected, "the call's sink");
        let mut told = Vec::new();
        while let Ok(notification) = rx.try_recv() {
            if let ServerNotification::Progress { progress, .. } = notification {
                told.push(progress);
            }
        }
        assert_eq!(told, expected, "the host");
    }
    drop(busy);
    client.shutdown().await;
}

/// Threads that spin until dropped.
struct Busy(
    std::sync::Arc<std::sync::atomic::AtomicBool>,
    Vec<std::thread::JoinHandle<()>>,
);

impl Busy {
    fn start(threads: usize) -> Self {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spin = |stop: std::sync::Arc<std::sync::atomic::AtomicBool>| {
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        };
        let handles = (0..threads).map(|_| spin(stop.clone())).collect();
        Self(stop, handles)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        for handle in self.1.drain(..) {
            let _ = handle.join();
        }
    }
}

#[tokio::test]
async fn progress_notifications_reset_the_call_timeout() {
    let (client, _rx) = connect(&everything_spec()).await;
    // 2 s in all, a progress notification every 250 ms, a 700 ms timeout.
    let args = args(json!({"duration": 2, "steps": 8}));
    let after = Duration::from_millis(700);
    let result = client
        .call_tool(
            "trigger-long-running-operation",
            args,
            after,
            CancellationToken::new(),
        )
        .await;
    assert!(result.is_ok(), "{result:?}");
    client.shutdown().await;
}

#[tokio::test]
async fn a_banner_on_stdout_before_the_handshake_is_ignored() {
    let script = format!(
        "echo 'Welcome to my server!'; exec node '{}' stdio",
        everything_js()
    );
    let mut spec = everything_spec();
    spec.transport = sh_transport(script);
    let (client, _rx) = connect(&spec).await;
    assert_eq!(client.server_info().name, "mcp-servers/everything");
    client.shutdown().await;
}

/// Like `npx`: a shell in front of node, plus a grandchild that ignores stdin closing.
fn npx_like_spec() -> ServerSpec {
    let script = format!("sleep 300 & node '{}' stdio", everything_js());
    let mut spec = everything_spec();
    spec.transport = sh_transport(script);
    spec
}

fn sh_transport(script: String) -> Transport {
    Transport::Stdio {
        command: "sh".to_owned(),
        args: vec!["-c".to_owned(), script],
        env: BTreeMap::new(),
        cwd: None,
    }
}

fn args_message() -> serde_json::Map<String, serde_json::Value> {
    args(json!({"message": "still here"}))
}
