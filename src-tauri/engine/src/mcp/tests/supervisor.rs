//! The supervisor against real server-everything processes: concurrent start, spawn failure,
//! restart with backoff after a crash, giving up, stop and shutdown leaving no process, logs.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tokio::sync::broadcast;

use super::everything_js;
use crate::mcp::client::backoff::Backoff;
use crate::mcp::client::process::group_alive;
use crate::mcp::supervisor::tools::Limits;
use crate::mcp::supervisor::{ServerState, Supervisor, SupervisorEvent};
use crate::vocab::server::{ServerConfig, Transport};

/// A config running server-everything over stdio under `name`.
pub(super) fn everything(name: &str) -> ServerConfig {
    stdio(name, "node", vec![everything_js(), "stdio".to_owned()])
}

/// A stdio config with short timeouts for tests.
fn stdio(name: &str, command: &str, args: Vec<String>) -> ServerConfig {
    let transport = Transport::Stdio {
        command: command.to_owned(),
        args,
        env: BTreeMap::new(),
        cwd: None,
    };
    let mut config = ServerConfig::new(name, transport);
    config.startup_timeout = Duration::from_secs(30);
    config.call_timeout = Duration::from_secs(30);
    config
}

/// Collects the state events of `server` until one matches `until` (or 30 s pass).
pub(super) async fn states_until(
    rx: &mut broadcast::Receiver<SupervisorEvent>,
    server: &str,
    until: impl Fn(&ServerState) -> bool,
) -> Vec<ServerState> {
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let left = deadline - Instant::now();
        let Ok(Ok(event)) = tokio::time::timeout(left, rx.recv()).await else {
            break;
        };
        if let SupervisorEvent::State { server: s, state } = event
            && s == server
        {
            let done = until(&state);
            seen.push(state);
            if done {
                break;
            }
        }
    }
    seen
}

/// The state's variant name, to compare sequences without the details.
fn kind(state: &ServerState) -> &'static str {
    match state {
        ServerState::Starting => "starting",
        ServerState::Ready { .. } => "ready",
        ServerState::Failed { .. } => "failed",
        ServerState::Stopped => "stopped",
        ServerState::Restarting { .. } => "restarting",
    }
}

pub(super) fn kinds(states: &[ServerState]) -> Vec<&'static str> {
    states.iter().map(kind).collect()
}

/// Kills the whole process group of `pid` (a crash, as far as the supervisor can tell).
fn kill_group(pid: u32) {
    let pgid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL).unwrap();
}

#[tokio::test]
async fn three_servers_started_concurrently_reach_ready_and_publish_starting_then_ready() {
    crate::mcp::client::process::login_path().await;
    let single = Supervisor::default();
    let started = Instant::now();
    assert_eq!(kind(&single.start(everything("solo")).await), "ready");
    let one = started.elapsed();
    single.shutdown_all().await;

    let supervisor = Supervisor::default();
    let mut rx = supervisor.subscribe();
    let configs = vec![everything("a"), everything("b"), everything("c")];
    let started = Instant::now();
    let states = supervisor.start_all(&configs).await;
    let three = started.elapsed();
    eprintln!("start of one server: {one:?}; three concurrently: {three:?}");
    let names: Vec<_> = states.iter().map(|(n, s)| (n.as_str(), kind(s))).collect();
    assert_eq!(names, vec![("a", "ready"), ("b", "ready"), ("c", "ready")]);
    let mut per_server: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
    while let Ok(event) = rx.try_recv() {
        if let SupervisorEvent::State { server, state } = event {
            per_server.entry(server).or_default().push(kind(&state));
        }
    }
    let expected: BTreeMap<String, Vec<&'static str>> = ["a", "b", "c"]
        .into_iter()
        .map(|n| (n.to_owned(), vec!["starting", "ready"]))
        .collect();
    assert_eq!(per_server, expected);
    let ServerState::Ready { info, tools } = supervisor.state("a").unwrap() else {
        panic!("a is not ready");
    };
    assert_eq!(
        (info.name.as_str(), tools > 10),
        ("mcp-servers/everything", true)
    );
    let pids: Vec<u32> = ["a", "b", "c"]
        .iter()
        .map(|n| supervisor.pid(n).unwrap())
        .collect();
    let started = Instant::now();
    supervisor.shutdown_all().await;
    eprintln!("shutdown_all of three servers: {:?}", started.elapsed());
    assert!(pids.iter().all(|pid| !group_alive(*pid)));
}

#[test]
fn backoff_doubles_from_one_second_up_to_a_minute_with_twenty_percent_jitter() {
    let backoff = Backoff::default();
    let delays: Vec<u64> = (1..=8).map(|n| backoff.delay(n).as_secs()).collect();
    assert_eq!(delays, vec![1, 2, 4, 8, 16, 32, 60, 60]);
    for _ in 0..100 {
        let d = backoff.jittered(3);
        assert!((Duration::from_millis(3200)..=Duration::from_millis(4800)).contains(&d));
    }
}

#[tokio::test]
async fn a_server_whose_command_is_missing_goes_to_failed_with_the_spawn_reason() {
    let supervisor = Supervisor::default();
    let config = stdio("ghost", "switchboard-no-such-program", Vec::new());
    let state = supervisor.start(config).await;
    assert_eq!(
        state,
        ServerState::Failed {
            reason: "`switchboard-no-such-program` was not found on the PATH (taken from your \
                     login shell); is it installed?"
                .to_owned()
        }
    );
    assert_eq!(supervisor.state("ghost"), Some(state));
}

#[tokio::test]
async fn a_missing_uvx_or_npx_says_switchboard_can_bring_it() {
    let supervisor = Supervisor::default();
    for (command, hint) in [
        (
            "/switchboard/no/such/dir/uvx",
            "`switchboard runtimes install uv`.",
        ),
        (
            "/switchboard/no/such/dir/npx",
            "`switchboard runtimes install node`.",
        ),
    ] {
        let state = supervisor.start(stdio("lost", command, Vec::new())).await;
        let ServerState::Failed { reason } = state else {
            panic!("{state:?}");
        };
        assert!(reason.ends_with(hint), "{reason}");
    }
}

#[tokio::test]
async fn a_server_that_dies_is_restarted_with_backoff_and_shows_restarting_then_ready() {
    let supervisor = Supervisor::default();
    assert_eq!(
        kind(&supervisor.start(everything("phoenix")).await),
        "ready"
    );
    let mut rx = supervisor.subscribe();
    let pid = supervisor.pid("phoenix").unwrap();
    let killed = Instant::now();
    kill_group(pid);
    let seen = states_until(&mut rx, "phoenix", |s| kind(s) == "ready").await;
    eprintln!("crash to ready again: {:?}", killed.elapsed());
    assert_eq!(kinds(&seen), vec!["restarting", "starting", "ready"]);
    let ServerState::Restarting { attempt, r#in } = &seen[0] else {
        unreachable!()
    };
    assert_eq!(*attempt, 1);
    assert!(
        (Duration::from_millis(800)..=Duration::from_millis(1200)).contains(r#in),
        "{in:?}"
    );
    assert!(killed.elapsed() >= Duration::from_millis(800));
    let new_pid = supervisor.pid("phoenix").unwrap();
    assert_ne!(new_pid, pid);
    supervisor.shutdown_all().await;
    assert!(!group_alive(new_pid));
}

#[tokio::test]
async fn a_server_that_keeps_failing_to_restart_is_given_up_after_five_failures() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("started-once");
    let script = format!(
        "if [ -e '{m}' ]; then echo 'broken on purpose' >&2; exit 1; fi; touch '{m}'; \
         exec node '{js}' stdio",
        m = marker.display(),
        js = everything_js()
    );
    let backoff = Backoff {
        base: Duration::from_millis(20),
        max: Duration::from_millis(100),
        max_failures: 5,
    };
    let supervisor = Supervisor::new(backoff, Limits::default());
    let config = stdio("flaky", "sh", vec!["-c".to_owned(), script]);
    assert_eq!(kind(&supervisor.start(config).await), "ready");
    let mut rx = supervisor.subscribe();
    kill_group(supervisor.pid("flaky").unwrap());
    let seen = states_until(&mut rx, "flaky", |s| kind(s) == "failed").await;
    let attempts: Vec<u32> = (seen.iter())
        .filter_map(|s| match s {
            ServerState::Restarting { attempt, .. } => Some(*attempt),
            _ => None,
        })
        .collect();
    assert_eq!(attempts, vec![1, 2, 3, 4]);
    let Some(ServerState::Failed { reason }) = seen.last() else {
        panic!("{seen:?}")
    };
    assert!(
        reason.starts_with("gave up after 5 consecutive failures"),
        "{reason}"
    );
}

#[tokio::test]
async fn stop_and_shutdown_all_leave_no_process_behind() {
    let supervisor = Supervisor::default();
    let states = supervisor
        .start_all(&[everything("one"), everything("two")])
        .await;
    assert!(states.iter().all(|(_, s)| kind(s) == "ready"), "{states:?}");
    let (one, two) = (
        supervisor.pid("one").unwrap(),
        supervisor.pid("two").unwrap(),
    );
    assert!(supervisor.stop("one").await);
    assert!(!group_alive(one), "the stopped server's group is gone");
    assert!(group_alive(two));
    assert_eq!(supervisor.state("one"), Some(ServerState::Stopped));
    assert!(!supervisor.stop("one").await, "stopping twice is a no-op");
    let started = Instant::now();
    supervisor.shutdown_all().await;
    eprintln!("shutdown_all of one server: {:?}", started.elapsed());
    assert!(!group_alive(two));
    assert_eq!(supervisor.state("two"), Some(ServerState::Stopped));
    assert_eq!(supervisor.pid("two"), None);
}

#[tokio::test]
async fn restart_replaces_the_process_and_logs_keep_the_stderr_lines() {
    let supervisor = Supervisor::default();
    assert_eq!(kind(&supervisor.start(everything("logs")).await), "ready");
    let before = supervisor.pid("logs").unwrap();
    let state = supervisor.restart("logs").await.unwrap();
    assert_eq!(kind(&state), "ready");
    let after = supervisor.pid("logs").unwrap();
    assert_ne!(before, after);
    assert!(!group_alive(before));
    supervisor.stop("logs").await;
    let logs = supervisor.logs("logs").unwrap();
    assert_eq!(
        logs.stderr,
        vec!["Starting default (STDIO) server...".to_owned()]
    );
    assert!(supervisor.restart("never-started").await.is_none());
}

#[tokio::test]
async fn a_tools_list_changed_notification_relists_the_tools_and_publishes_tools_changed() {
    let supervisor = Supervisor::default();
    let mut rx = supervisor.subscribe();
    assert_eq!(
        kind(&supervisor.start(everything("changing")).await),
        "ready"
    );
    let changed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Ok(SupervisorEvent::ToolsChanged { server }) = rx.recv().await {
                break server;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(changed, "changing");
    let listed = supervisor.tools_for(&["changing".to_owned()]).len();
    let Some(ServerState::Ready { tools, .. }) = supervisor.state("changing") else {
        panic!("not ready");
    };
    assert_eq!(tools, listed);
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn mcp_log_messages_are_kept_in_the_logs_beside_stderr() {
    let supervisor = Supervisor::default();
    assert_eq!(kind(&supervisor.start(everything("chatty")).await), "ready");
    let toggle = serde_json::json!({});
    let cancel = tokio_util::sync::CancellationToken::new();
    supervisor
        .call("chatty", "toggle-simulated-logging", toggle, cancel)
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    // The first message may be the server's note on the roots it received from us. The
    // simulated ones say "Info-level message", …, but "Alert level-message".
    let simulated = |m: &String| {
        let m = m.to_lowercase();
        m.contains("-level message") || m.contains(" level-message")
    };
    let mut messages = Vec::new();
    while !messages.iter().any(simulated) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        messages = supervisor.logs("chatty").unwrap().messages;
    }
    let first = messages.iter().find(|m| simulated(m));
    assert!(first.is_some_and(|m| m.starts_with('[')), "{messages:?}");
    supervisor.shutdown_all().await;
}
