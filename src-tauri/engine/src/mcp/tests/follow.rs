//! The window's servers follow their configuration (`McpHost::follow_config`), against a real
//! temporary database, the built-in time server and real server-everything processes: a saved
//! server begins to start before the call returns, a failing start is the server's state,
//! switching off stops and on starts, an edit restarts, a rename or a removal leaves nothing
//! running under the old name, a turn waits for a server still starting, and shutdown leaves
//! no process behind.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::everything_js;
use crate::logging::Redactor;
use crate::mcp::McpHost;
use crate::mcp::client::process::group_alive;
use crate::mcp::supervisor::{ServerState, SupervisorEvent};
use crate::secrets::{KeyringSecrets, Secrets};
use crate::store::Store;
use crate::vocab::server::{ServerConfig, Transport};

/// A host over a fresh database (the folder is kept alive by the returned guard).
async fn host() -> (tempfile::TempDir, McpHost) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).await.unwrap();
    let redactor = Redactor::default();
    let keys = Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(keys, Arc::new(|_: &str| None), redactor.clone());
    (dir, McpHost::new(store, secrets, redactor))
}

fn clock(name: &str) -> ServerConfig {
    let transport = Transport::Builtin {
        server: "time".to_owned(),
        allow_private: false,
        folders: Vec::new(),
        env: Default::default(),
        settings: Default::default(),
    };
    ServerConfig::new(name, transport)
}

fn stdio(name: &str, command: &str, args: Vec<String>) -> ServerConfig {
    let transport = Transport::Stdio {
        command: command.to_owned(),
        args,
        env: BTreeMap::new(),
        cwd: None,
    };
    let mut config = ServerConfig::new(name, transport);
    config.startup_timeout = Duration::from_secs(30);
    config
}

/// server-everything behind a shell, with a grandchild that outlives a closed stdin (as
/// `npx` leaves one): only a stop of the whole group ends it.
fn everything_like_npx(name: &str) -> ServerConfig {
    let script = format!("sleep 300 & exec node '{}' stdio", everything_js());
    stdio(name, "sh", vec!["-c".to_owned(), script])
}

/// Adds `config` and has the host follow it; the server's id.
async fn save(host: &McpHost, config: ServerConfig) -> String {
    let id = host.add_server(config).await.unwrap().id;
    host.follow_config(std::slice::from_ref(&id)).await;
    id
}

/// Waits (up to 30 s) until server `name`'s state is no longer Starting; that state.
async fn settled(host: &McpHost, name: &str) -> Option<ServerState> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let state = host.server_state(name);
        if !matches!(state, Some(ServerState::Starting)) || Instant::now() > deadline {
            return state;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits (up to 5 s) until no process of group `pid` is left; whether none is.
async fn group_gone(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while group_alive(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    !group_alive(pid)
}

#[tokio::test]
async fn a_saved_server_reads_starting_when_the_call_returns_and_the_start_goes_on_behind() {
    let (_dir, host) = host().await;
    // A process that never answers the handshake: the start can only end by its timeout.
    let silent = stdio("silent", "sh", vec!["-c".to_owned(), "sleep 60".to_owned()]);
    let began = Instant::now();
    save(&host, silent).await;
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "the call waited for the start: {:?}",
        began.elapsed()
    );
    assert_eq!(host.server_state("silent"), Some(ServerState::Starting));
    host.shutdown().await;
    assert_eq!(host.server_state("silent"), Some(ServerState::Stopped));
}

#[tokio::test]
async fn a_saved_server_publishes_starting_once_then_ready() {
    let (_dir, host) = host().await;
    let mut events = host.subscribe();
    save(&host, clock("clock")).await;
    let mut states = Vec::new();
    while states.len() < 2 {
        let event = tokio::time::timeout(Duration::from_secs(10), events.recv()).await;
        if let Ok(Ok(SupervisorEvent::State { state, .. })) = event {
            states.push(state);
        } else {
            panic!("no state event: {event:?}");
        }
    }
    assert_eq!(states[0], ServerState::Starting);
    assert!(
        matches!(states[1], ServerState::Ready { tools: 2, .. }),
        "{states:?}"
    );
    let tools = host.model_tools(None).await;
    let names: Vec<&str> = tools.iter().map(|(_, t)| t.name.as_str()).collect();
    assert_eq!(names, ["convert_time", "get_current_time"]);
}

#[tokio::test]
async fn a_server_that_cannot_start_is_failed_with_the_reason_and_stays_saved() {
    let (_dir, host) = host().await;
    let ghost = stdio("ghost", "switchboard-no-such-server", Vec::new());
    save(&host, ghost).await;
    let Some(ServerState::Failed { reason }) = settled(&host, "ghost").await else {
        panic!("not failed: {:?}", host.server_state("ghost"));
    };
    assert!(
        reason.contains("`switchboard-no-such-server` was not found"),
        "{reason}"
    );
    let saved = host.list_servers().await.unwrap();
    assert_eq!(saved[0].config.name, "ghost");
}

#[tokio::test]
async fn switching_a_server_off_stops_it_and_switching_it_on_starts_it() {
    let (_dir, host) = host().await;
    let id = save(&host, clock("clock")).await;
    assert!(matches!(
        settled(&host, "clock").await,
        Some(ServerState::Ready { .. })
    ));

    host.set_server_enabled(&id, false).await.unwrap();
    host.follow_config(std::slice::from_ref(&id)).await;
    assert_eq!(host.server_state("clock"), Some(ServerState::Stopped));
    assert!(host.model_tools(None).await.is_empty());

    host.set_server_enabled(&id, true).await.unwrap();
    host.follow_config(std::slice::from_ref(&id)).await;
    assert!(matches!(
        settled(&host, "clock").await,
        Some(ServerState::Ready { .. })
    ));
    assert_eq!(host.model_tools(None).await.len(), 2);
}

#[tokio::test]
async fn a_server_that_does_not_start_on_its_own_is_left_alone_when_saved() {
    let (_dir, host) = host().await;
    let mut manual = clock("manual");
    manual.auto_start = false;
    save(&host, manual).await;
    assert_eq!(host.server_state("manual"), None);
}

#[tokio::test]
async fn an_edit_restarts_a_running_server_and_a_rename_leaves_nothing_under_the_old_name() {
    let (_dir, host) = host().await;
    let id = save(&host, everything_like_npx("everything")).await;
    assert!(matches!(
        settled(&host, "everything").await,
        Some(ServerState::Ready { .. })
    ));
    let old_pid = host.supervisor().pid("everything").expect("a pid");

    // Following an unchanged server does nothing.
    host.follow_config(std::slice::from_ref(&id)).await;
    assert_eq!(host.supervisor().pid("everything"), Some(old_pid));

    let renamed = everything_like_npx("renamed");
    host.update_server(&id, renamed).await.unwrap();
    host.follow_config(std::slice::from_ref(&id)).await;
    assert!(group_gone(old_pid).await, "the old run's group is alive");
    assert_eq!(
        host.server_state("everything"),
        None,
        "the old name is forgotten"
    );
    assert!(matches!(
        settled(&host, "renamed").await,
        Some(ServerState::Ready { .. })
    ));
    let new_pid = host.supervisor().pid("renamed").expect("a pid");
    assert_ne!(new_pid, old_pid);

    host.remove_server(&id).await.unwrap();
    assert!(
        group_gone(new_pid).await,
        "a removed server's group is alive"
    );
    assert_eq!(host.server_state("renamed"), None);
    assert!(host.server_states().is_empty());
}

#[tokio::test]
async fn a_turn_waits_for_a_server_still_starting_and_is_offered_its_tools() {
    let (_dir, host) = host().await;
    // A generous wait: two busy cores may take more than the default 3 s to start node.
    let wait = serde_json::json!(30);
    let setting = crate::mcp::host::turn_start::SERVER_WAIT;
    host.store().set_setting(setting, &wait).await.unwrap();
    save(&host, everything_like_npx("everything")).await;
    assert_eq!(host.server_state("everything"), Some(ServerState::Starting));
    let tools = host.model_tools(None).await;
    assert!(
        tools
            .iter()
            .any(|(s, t)| s == "everything" && t.name == "echo"),
        "{:?}",
        host.server_state("everything")
    );
    host.shutdown().await;
}

#[tokio::test]
async fn starting_a_server_already_starting_waits_for_it_to_be_ready() {
    let (_dir, host) = host().await;
    save(&host, everything_like_npx("everything")).await;
    host.start_server("everything").await.unwrap();
    assert!(matches!(
        host.server_state("everything"),
        Some(ServerState::Ready { .. })
    ));
    let pid = host.supervisor().pid("everything").expect("a pid");
    host.shutdown().await;
    assert!(group_gone(pid).await, "shutdown left the group {pid} alive");
}
