//! What the window saves runs at once, over IPC (mock runtime, real SQLite, the built-in time
//! server and real server-everything processes): a server added or imported starts without the
//! command waiting for it, its tools reach the next turn's request to the model; a start that
//! fails is the server's Failed state, not the command's error; switching off stops the
//! process, switching on starts it again; an edit restarts it; removing stops it; shutdown
//! leaves no process behind.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use switchboard_engine::Engine;
use tauri::Manager;

use super::ipc::{Harness, harness, invoke};
use super::providers::fake::{FakeProvider, Reply};

const ANSWER: &str = concat!(
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"fake-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Noon.\"},\"finish_reason\":\"stop\"}]}\n\n",
    "data: [DONE]\n\n",
);

fn engine(h: &Harness) -> Engine {
    h.window.state::<Engine>().inner().clone()
}

/// Stops every server the test started (the mock runtime outlives the test).
fn shut_down(h: &Harness) {
    tauri::async_runtime::block_on(engine(h).shutdown());
}

/// Server `name`'s state as `server_states` reports it (`null`: not supervised).
fn state(h: &Harness, name: &str) -> Value {
    let states = invoke(h, "server_states", json!({})).unwrap();
    (states.as_array().unwrap().iter())
        .find(|s| s["name"] == name)
        .map_or(Value::Null, |s| s["state"].clone())
}

/// Waits (up to 30 s) until server `name` is no longer starting; its state then.
fn settled(h: &Harness, name: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = state(h, name);
        if now["type"] != "starting" || Instant::now() > deadline {
            return now;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn everything_js() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything")
        .join("dist/index.js");
    assert!(path.exists(), "run scripts/deps.sh test");
    path.to_string_lossy().into_owned()
}

/// The live processes whose working directory is `dir` (the test's servers run there).
fn processes_in(dir: &Path) -> Vec<u32> {
    let dir = dir.canonicalize().unwrap();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(Result::ok) {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cwd = std::fs::read_link(entry.path().join("cwd")).ok();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = (stat.rsplit(')').next()).is_some_and(|r| r.trim_start().starts_with('Z'));
        if cwd.as_deref() == Some(dir.as_path()) && !zombie {
            found.push(pid);
        }
    }
    found
}

/// Waits (up to 5 s) until no process runs in `dir`; those left.
fn none_left_in(dir: &Path) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = processes_in(dir);
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// server-everything over stdio in `dir`, behind a shell with a grandchild that outlives a
/// closed stdin (as `npx` leaves one).
fn everything_in(name: &str, dir: &Path) -> Value {
    let script = format!("sleep 300 & exec node '{}' stdio", everything_js());
    json!({ "input": {
        "name": name,
        "transport": { "type": "stdio", "command": "sh", "args": ["-c", script],
                       "cwd": dir.to_string_lossy() }
    }})
}

#[test]
fn a_server_added_over_ipc_starts_at_once_and_its_tools_are_in_the_next_turn() {
    let h = harness();
    let input = json!({ "input": {
        "name": "clock", "transport": { "type": "builtin", "server": "time" }
    }});
    invoke(&h, "add_server", input).unwrap();
    assert_ne!(state(&h, "clock"), Value::Null, "the add began the start");
    assert_eq!(settled(&h, "clock")["type"], "ready");

    // The turn asks the model list for the context window first, then chats.
    let fake = tauri::async_runtime::block_on(FakeProvider::start(vec![
        Reply::ok("application/json", r#"{"object":"list","data":[]}"#),
        Reply::ok("text/event-stream", ANSWER),
    ]));
    let provider = json!({ "input": {
        "name": "Fake", "preset": "openai-compatible", "baseUrl": format!("{}/v1", fake.url)
    }});
    let added = invoke(&h, "add_provider", provider).unwrap();
    let conv = invoke(&h, "create_conversation", json!({ "input": {} })).unwrap();
    let id = conv["id"].as_str().unwrap().to_owned();
    let patch = json!({ "providerId": added["provider"]["id"], "model": "fake-1" });
    invoke(
        &h,
        "update_conversation",
        json!({ "id": id, "patch": patch }),
    )
    .unwrap();
    let sent = json!({ "conversationId": id, "text": "What time is it in Tokyo?",
                       "onEvent": "__CHANNEL__:11" });
    assert_eq!(invoke(&h, "send_message", sent), Ok(Value::Null));
    let deadline = Instant::now() + Duration::from_secs(20);
    while fake.seen().len() < 2 {
        assert!(
            Instant::now() < deadline,
            "no chat request: {:?}",
            fake.seen()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let request = fake.seen()[1].body.to_string();
    assert!(request.contains("clock__get_current_time"), "{request}");
    shut_down(&h);
}

#[test]
fn an_import_starts_the_servers_that_start_on_their_own_and_leaves_the_others() {
    let h = harness();
    let doc = r#"{"mcpServers": {
        "clock": {"builtin": "time"},
        "off": {"builtin": "time", "disabled": true},
        "by-hand": {"builtin": "time", "autoStart": false}
    }}"#;
    invoke(
        &h,
        "import_servers",
        json!({ "json": doc, "replace": false }),
    )
    .unwrap();
    assert_eq!(settled(&h, "clock")["type"], "ready");
    assert_eq!(state(&h, "off"), Value::Null);
    assert_eq!(state(&h, "by-hand"), Value::Null);
    shut_down(&h);
}

#[test]
fn a_server_that_cannot_start_is_saved_and_failed_with_the_reason() {
    let h = harness();
    let input = json!({ "input": {
        "name": "ghost",
        "transport": { "type": "stdio", "command": "switchboard-no-such-server" }
    }});
    let added = invoke(&h, "add_server", input).unwrap();
    assert_eq!(added["config"]["name"], "ghost");
    let failed = settled(&h, "ghost");
    assert_eq!(failed["type"], "failed", "{failed}");
    let reason = failed["reason"].as_str().unwrap();
    assert!(reason.contains("switchboard-no-such-server"), "{reason}");
}

#[test]
fn the_switch_stops_and_starts_the_process_an_edit_restarts_it_and_a_removal_stops_it() {
    let h = harness();
    let work = tempfile::tempdir().unwrap();
    let added = invoke(&h, "add_server", everything_in("everything", work.path())).unwrap();
    let id = added["id"].clone();
    assert_eq!(settled(&h, "everything")["type"], "ready");
    assert!(!processes_in(work.path()).is_empty());

    let off = json!({ "id": id, "enabled": false });
    invoke(&h, "set_server_enabled", off).unwrap();
    assert_eq!(state(&h, "everything"), json!({ "type": "stopped" }));
    assert_eq!(none_left_in(work.path()), Vec::<u32>::new());

    let on = json!({ "id": id, "enabled": true });
    invoke(&h, "set_server_enabled", on).unwrap();
    assert_eq!(settled(&h, "everything")["type"], "ready");
    let before = processes_in(work.path());

    let mut edited = everything_in("everything", work.path());
    edited["input"]["callTimeoutMs"] = json!(5000);
    invoke(
        &h,
        "update_server",
        json!({ "id": id, "input": edited["input"] }),
    )
    .unwrap();
    assert_eq!(settled(&h, "everything")["type"], "ready");
    let after = processes_in(work.path());
    assert!(
        before.iter().all(|pid| !after.contains(pid)),
        "the edit did not restart the server: {before:?} then {after:?}"
    );

    invoke(&h, "remove_server", json!({ "id": id })).unwrap();
    assert_eq!(state(&h, "everything"), Value::Null);
    assert_eq!(none_left_in(work.path()), Vec::<u32>::new());

    invoke(&h, "add_server", everything_in("again", work.path())).unwrap();
    assert_eq!(settled(&h, "again")["type"], "ready");
    shut_down(&h);
    assert_eq!(none_left_in(work.path()), Vec::<u32>::new());
}
