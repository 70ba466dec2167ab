//! Fault servers (`tests/fixtures/mcp-py/fault_server.py`, standard-library Python speaking raw
//! newline-delimited JSON-RPC) through the supervisor: a server that crashes at start, crashes
//! mid-call, never answers, prints garbage on stdout, returns a 50 MB (or a 70 MB, over the
//! stdio message limit) result or starts slowly each ends in a clear, specific outcome, never
//! a hang or a panic.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::supervisor::{kinds, states_until};
use crate::mcp::client::backoff::Backoff;
use crate::mcp::client::process::group_alive;
use crate::mcp::supervisor::tools::Limits;
use crate::mcp::supervisor::{ServerState, Supervisor};
use crate::vocab::error::ToolError;
use crate::vocab::mcp::McpError;
use crate::vocab::mcp::{ResultPart, ToolResult};
use crate::vocab::server::{ServerConfig, Transport};

/// The fault server script.
fn fault_script() -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/mcp-py/fault_server.py");
    assert!(path.exists(), "{} is missing", path.display());
    path.to_string_lossy().into_owned()
}

/// A config running the fault server in `mode` (with an optional argument) under `name`.
fn fault(name: &str, mode: &str, arg: Option<&str>) -> ServerConfig {
    let mut args = vec!["-u".to_owned(), fault_script(), mode.to_owned()];
    args.extend(arg.map(str::to_owned));
    let transport = Transport::Stdio {
        command: "python3".to_owned(),
        args,
        env: BTreeMap::new(),
        cwd: None,
    };
    let mut config = ServerConfig::new(name, transport);
    config.call_timeout = Duration::from_secs(30);
    config
}

/// A supervisor that restarts after 50 ms (doubling) and gives up after 3 failures.
fn quick_supervisor(limits: Limits) -> Supervisor {
    let backoff = Backoff {
        base: Duration::from_millis(50),
        max: Duration::from_millis(200),
        max_failures: 3,
    };
    Supervisor::new(backoff, limits)
}

/// Calls the fault server's one tool.
async fn work(supervisor: &Supervisor, name: &str) -> Result<ToolResult, ToolError> {
    let args = json!({"input": "please"});
    supervisor
        .call(name, "work", args, CancellationToken::new())
        .await
}

/// The result's text parts, joined.
fn text_of(result: &ToolResult) -> String {
    (result.content.iter())
        .filter_map(|p| match p {
            ResultPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Waits (up to 10 s) until a stderr line of `name` contains `needle`; returns the lines.
async fn stderr_with(supervisor: &Supervisor, name: &str, needle: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let lines = supervisor.logs(name).map(|l| l.stderr).unwrap_or_default();
        if lines.iter().any(|l| l.contains(needle)) || Instant::now() > deadline {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_server_that_crashes_at_start_is_failed_with_its_stderr_quoted() {
    let supervisor = Supervisor::default();
    let state = supervisor
        .start(fault("crasher", "crash-at-start", None))
        .await;
    let ServerState::Failed { reason } = &state else {
        panic!("expected Failed, got {state:?}");
    };
    assert!(
        reason.starts_with("handshake failed: ")
            && reason.ends_with(
                "the server's stderr ends with:\n\
                 fault_server: cannot start: crashing at start on purpose"
            ),
        "{reason}"
    );
    assert_eq!(supervisor.state("crasher"), Some(state));
}

#[tokio::test]
async fn a_crash_mid_call_fails_the_call_as_closed_and_the_server_is_restarted() {
    let supervisor = quick_supervisor(Limits::default());
    let state = supervisor
        .start(fault("midcall", "crash-mid-call", None))
        .await;
    assert!(
        matches!(state, ServerState::Ready { tools: 1, .. }),
        "{state:?}"
    );
    let first_pid = supervisor.pid("midcall").unwrap();
    let mut rx = supervisor.subscribe();
    let result = work(&supervisor, "midcall").await;
    assert!(
        matches!(result, Err(ToolError::Mcp(McpError::Closed))),
        "{result:?}"
    );
    let seen = states_until(&mut rx, "midcall", |s| {
        matches!(s, ServerState::Ready { .. })
    })
    .await;
    assert_eq!(kinds(&seen), vec!["restarting", "starting", "ready"]);
    assert!(
        matches!(seen[0], ServerState::Restarting { attempt: 1, .. }),
        "{seen:?}"
    );
    assert_ne!(supervisor.pid("midcall"), Some(first_pid));
    assert!(!group_alive(first_pid));
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn a_call_that_is_never_answered_times_out_and_the_server_is_sent_a_cancellation() {
    let supervisor = Supervisor::default();
    let mut config = fault("mute", "never-answer", None);
    config.call_timeout = Duration::from_millis(500);
    let state = supervisor.start(config).await;
    assert!(matches!(state, ServerState::Ready { .. }), "{state:?}");
    let started = Instant::now();
    let result = work(&supervisor, "mute").await;
    eprintln!("never-answer call returned after {:?}", started.elapsed());
    let after = Duration::from_millis(500);
    assert!(
        matches!(result, Err(ToolError::Mcp(McpError::Timeout { after: a })) if a == after),
        "{result:?}"
    );
    let lines = stderr_with(&supervisor, "mute", "cancelled request").await;
    let cancelled: Vec<_> = (lines.iter())
        .filter(|l| l.starts_with("fault_server: cancelled request"))
        .collect();
    assert_eq!(cancelled.len(), 1, "{lines:?}");
    assert!(
        matches!(supervisor.state("mute"), Some(ServerState::Ready { .. })),
        "a timed-out call does not take the server down"
    );
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn garbage_lines_on_stdout_are_skipped_and_the_server_keeps_working() {
    let supervisor = Supervisor::default();
    let state = supervisor.start(fault("noisy", "garbage", None)).await;
    let ServerState::Ready { info, tools } = state else {
        panic!("expected Ready, got {state:?}");
    };
    assert_eq!((info.name.as_str(), tools), ("fault-server", 1));
    for _ in 0..3 {
        let result = work(&supervisor, "noisy").await.unwrap();
        assert_eq!(text_of(&result), "worked");
    }
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn a_fifty_megabyte_result_is_truncated_to_the_limit_with_a_marker() {
    let limits = Limits {
        max_text_chars: 1_000,
        ..Limits::default()
    };
    let supervisor = Supervisor::new(Backoff::default(), limits);
    let state = supervisor.start(fault("huge", "huge", Some("50"))).await;
    assert!(matches!(state, ServerState::Ready { .. }), "{state:?}");
    let started = Instant::now();
    let result = work(&supervisor, "huge").await.unwrap();
    eprintln!(
        "50 MB result received and truncated in {:?}; peak RSS of the test process: {}",
        started.elapsed(),
        peak_rss()
    );
    let expected = format!("{}[… truncated 49999000 characters]", "x".repeat(1_000));
    assert_eq!(result.content, vec![ResultPart::Text { text: expected }]);
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn a_result_over_the_stdio_message_limit_fails_the_call_at_once_naming_the_limit() {
    let supervisor = Supervisor::default();
    let config = fault("huger", "huge", Some("70"));
    assert_eq!(config.call_timeout, Duration::from_secs(30));
    let state = supervisor.start(config).await;
    assert!(matches!(state, ServerState::Ready { .. }), "{state:?}");
    let result = work(&supervisor, "huger").await;
    let Err(ToolError::Mcp(McpError::ServerError { code, message, .. })) = result else {
        panic!("expected the too-large error, not a timeout: {result:?}");
    };
    assert_eq!(
        (code, message.as_str()),
        (
            -32603,
            "the server's answer was larger than 64 MiB (the limit) and was dropped"
        )
    );
    let again = supervisor.call("huger", "work", json!({}), CancellationToken::new());
    let again = again.await;
    assert!(
        matches!(again, Err(ToolError::Mcp(McpError::ServerError { .. }))),
        "the connection is still usable after a dropped answer: {again:?}"
    );
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn a_server_taking_five_seconds_to_start_becomes_ready_under_the_default_startup_timeout() {
    let supervisor = Supervisor::default();
    let config = fault("sleepy", "slow-start", Some("5"));
    assert_eq!(
        config.startup_timeout,
        crate::vocab::server::ServerSpec::STARTUP_TIMEOUT
    );
    let started = Instant::now();
    let state = supervisor.start(config).await;
    eprintln!("slow start became {state:?} after {:?}", started.elapsed());
    assert!(
        matches!(state, ServerState::Ready { tools: 1, .. }),
        "{state:?}"
    );
    assert_eq!(
        text_of(&work(&supervisor, "sleepy").await.unwrap()),
        "worked"
    );
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn a_server_slower_than_its_startup_timeout_fails_naming_the_timeout_and_is_killed() {
    let supervisor = Supervisor::default();
    let mut config = fault("too-slow", "slow-start", Some("30"));
    config.startup_timeout = Duration::from_millis(700);
    let state = supervisor.start(config).await;
    assert_eq!(
        state,
        ServerState::Failed {
            reason: "no answer after 700ms".to_owned()
        }
    );
    let deadline = Instant::now() + Duration::from_secs(3);
    while !slow_start_processes("30").is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(slow_start_processes("30"), Vec::<u32>::new());
}

/// Live (not zombie) fault servers in slow-start mode sleeping `seconds`.
fn slow_start_processes(seconds: &str) -> Vec<u32> {
    let wanted = ["fault_server.py", "slow-start", seconds];
    (std::fs::read_dir("/proc").into_iter().flatten().flatten())
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let args: Vec<_> = cmdline
                .split(|b| *b == 0)
                .map(String::from_utf8_lossy)
                .collect();
            wanted.iter().all(|w| args.iter().any(|a| a.ends_with(w)))
        })
        .filter(|pid| super::process_running(*pid))
        .collect()
}

/// The test process's peak resident set size, as /proc reports it (for the log only).
fn peak_rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    (status.lines())
        .find(|l| l.starts_with("VmHWM"))
        .map_or_else(|| "unknown".to_owned(), |l| l.trim().to_owned())
}

#[tokio::test]
async fn a_server_that_ignores_the_discover_probe_still_connects_in_the_handshake_era() {
    let supervisor = Supervisor::new(Backoff::default(), Limits::default());
    let started = Instant::now();
    let state = supervisor
        .start(fault("silent", "ignore-discover", None))
        .await;
    // rmcp waits 10 s for an answer before falling back (once per start; see docs/mcp-eras.md).
    eprintln!(
        "ignoring server/discover: ready after {:?}",
        started.elapsed()
    );
    let ServerState::Ready { info, tools, .. } = state else {
        panic!("{state:?}");
    };
    let era = (info.era, info.protocol_version.as_str(), tools);
    assert_eq!(
        era,
        (crate::vocab::mcp::ProtocolEra::Handshake, "2025-11-25", 1)
    );
    supervisor.shutdown_all().await;
}
