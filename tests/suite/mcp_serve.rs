//! `switchboard mcp serve --stdio`: Switchboard as one MCP server for other apps, driven by the
//! official Python `mcp` SDK's client (1.x, and 2.x once) over the real binary, with `mcp-server-time` from
//! PyPI as the upstream server twice — once allowed by the user's policy, once asking — and
//! npm's `server-everything` for resources and prompts.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use switchboard_engine::vocab::server::{Approval, ServerConfig, Transport};

use super::servers::engine;
use super::support_py::{fixtures_py, json_report, time_stdio_config, venv_python};

/// A profile with `clock` (its tools allowed) and `guarded` (the policy asks).
pub(super) async fn profile(dir: &Path) {
    let engine = engine(dir).await;
    let mut clock = time_stdio_config("clock");
    clock.approval = Approval::Allow;
    engine.mcp().add_server(clock).await.unwrap();
    let mut guarded = time_stdio_config("guarded");
    guarded.approval = Approval::Ask;
    engine.mcp().add_server(guarded).await.unwrap();
    engine.shutdown().await;
}

/// The Python client's report of one session, answering elicitation with `answer`.
fn session(dir: &Path, answer: &str, calls: Value) -> Value {
    session_with(dir, answer, calls, json!({}))
}

/// [`session`] with `extras` (see `serve_client.py`: listing, a read, a prompt, lingering).
fn session_with(dir: &Path, answer: &str, calls: Value, extras: Value) -> Value {
    session_on(&venv_python(), dir, answer, calls, extras)
}

/// [`session_with`], the client on `python`'s `mcp` SDK.
fn session_on(python: &Path, dir: &Path, answer: &str, calls: Value, extras: Value) -> Value {
    let args = json!([
        "--data-dir",
        dir,
        "mcp",
        "serve",
        "--stdio",
        "--server-wait",
        "30"
    ]);
    let command = env!("CARGO_BIN_EXE_switchboard");
    run_client(python, answer, command, &args, &calls, &extras, None)
}

/// `serve_client.py` on `python`: `command` with `args` over stdio, or the URL `command` with
/// `token` over streamable HTTP; its one JSON report.
pub(super) fn run_client(
    python: &Path,
    answer: &str,
    command: &str,
    args: &Value,
    calls: &Value,
    extras: &Value,
    token: Option<&str>,
) -> Value {
    let mut client = Command::new(python);
    client
        .arg(fixtures_py().join("serve_client.py"))
        .args([answer, command])
        .arg(args.to_string())
        .arg(calls.to_string())
        .arg(extras.to_string())
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("RUST_LOG");
    if let Some(token) = token {
        client.env("SB_TOKEN", token);
    }
    json_report(&client.output().unwrap())
}

/// npm's `server-everything` over stdio, named `everything`.
fn everything() -> ServerConfig {
    ServerConfig::new(
        "everything",
        Transport::Stdio {
            command: "node".into(),
            args: vec![super::agent::everything_js(), "stdio".into()],
            env: Default::default(),
            cwd: None,
        },
    )
}

/// A profile with `server-everything`, its tools allowed.
async fn allowed_everything(dir: &Path) {
    let engine = engine(dir).await;
    let mut everything = everything();
    everything.approval = Approval::Allow;
    engine.mcp().add_server(everything).await.unwrap();
    engine.shutdown().await;
}

fn tokyo(tool: &str) -> Value {
    json!([[tool, {"timezone": "Asia/Tokyo"}]])
}

#[tokio::test]
async fn an_outside_client_lists_every_servers_tools_and_calls_an_allowed_one() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let report = session(dir.path(), "none", tokyo("clock__get_current_time"));
    assert_eq!(report["server"], "switchboard");
    let mut tools: Vec<&str> = (report["tools"].as_array().unwrap().iter())
        .map(|t| t.as_str().unwrap())
        .collect();
    tools.sort_unstable();
    assert_eq!(
        tools,
        [
            "clock__convert_time",
            "clock__get_current_time",
            "guarded__convert_time",
            "guarded__get_current_time"
        ]
    );
    let call = &report["calls"][0];
    assert_eq!(call["isError"], false, "{report}");
    let time: Value = serde_json::from_str(call["text"][0].as_str().unwrap()).unwrap();
    assert_eq!(time["timezone"], "Asia/Tokyo");
    assert_eq!(report["asked"], json!([]));
}

#[tokio::test]
async fn one_server_passed_through_keeps_its_own_tool_names_and_the_policy_still_decides() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let passed = |server: &str, calls: Value| {
        let args = json!([
            "--data-dir",
            dir.path(),
            "mcp",
            "serve",
            "--stdio",
            "--server",
            server,
            "--server-wait",
            "30"
        ]);
        let command = env!("CARGO_BIN_EXE_switchboard");
        run_client(
            &venv_python(),
            "none",
            command,
            &args,
            &calls,
            &json!({}),
            None,
        )
    };
    let report = passed("clock", tokyo("get_current_time"));
    let mut tools: Vec<&str> = (report["tools"].as_array().unwrap().iter())
        .map(|t| t.as_str().unwrap())
        .collect();
    tools.sort_unstable();
    assert_eq!(tools, ["convert_time", "get_current_time"], "{report}");
    assert_eq!(report["calls"][0]["isError"], false, "{report}");
    let asked = passed("guarded", tokyo("get_current_time"));
    let text = asked["calls"][0]["text"][0].as_str().unwrap();
    assert!(text.contains("needs the user's approval"), "{asked}");
    let unknown = crate::suite::support_cli::output_within_limit(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["--data-dir"])
            .arg(dir.path())
            .args(["mcp", "serve", "--stdio", "--server", "nope"])
            .env_remove("SWITCHBOARD_DATA_DIR"),
    );
    assert!(!unknown.status.success());
    let said = String::from_utf8_lossy(&unknown.stderr);
    assert!(said.contains("nope"), "{said}");
}

#[tokio::test]
async fn a_call_the_policy_asks_about_is_refused_when_the_client_cannot_ask() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let report = session(dir.path(), "none", tokyo("guarded__get_current_time"));
    let call = &report["calls"][0];
    assert_eq!(call["isError"], true, "{report}");
    let text = call["text"][0].as_str().unwrap();
    assert!(text.contains("needs the user's approval"), "{text}");
    assert!(text.contains("guarded"), "{text}");
}

#[tokio::test]
async fn the_clients_user_is_asked_and_their_answer_decides_the_call() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let report = session(dir.path(), "accept", tokyo("guarded__get_current_time"));
    assert_eq!(report["calls"][0]["isError"], false, "{report}");
    let asked = report["asked"][0].as_str().unwrap();
    assert!(
        asked.contains("get_current_time") && asked.contains("guarded"),
        "{asked}"
    );

    let report = session(dir.path(), "decline", tokyo("guarded__get_current_time"));
    let call = &report["calls"][0];
    assert_eq!(call["isError"], true, "{report}");
    assert!(
        call["text"][0].as_str().unwrap().contains("refused"),
        "{report}"
    );
}

#[tokio::test]
async fn an_outside_client_reads_a_servers_resources_and_expands_its_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let everything = everything();
    engine.mcp().add_server(everything).await.unwrap();
    engine.shutdown().await;

    let extras = json!({
        "list": true,
        "read": "demo://resource/dynamic/text/7",
        "prompt": ["everything__args-prompt", {"city": "Beijing"}],
    });
    let report = session_with(dir.path(), "none", json!([]), extras);
    let templates = report["templates"].as_array().unwrap();
    assert!(
        templates.contains(&json!("demo://resource/dynamic/text/{resourceId}")),
        "{report}"
    );
    assert!(
        !report["resources"].as_array().unwrap().is_empty(),
        "{report}"
    );
    let prompts = report["prompts"].as_array().unwrap();
    assert!(
        prompts.contains(&json!("everything__simple-prompt")),
        "{report}"
    );
    let read = report["read"][0].as_str().unwrap();
    assert!(read.contains('7'), "{report}");
    let [role, text] = [&report["prompt"][0][0], &report["prompt"][0][1]];
    assert_eq!(role, "user", "{report}");
    assert!(text.as_str().unwrap().contains("Beijing"), "{report}");
}

#[tokio::test]
async fn the_python_sdks_2_x_client_is_served_and_its_user_asked_too() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let python = fixtures_py().join("../mcp-py2/.venv/bin/python");
    assert!(python.exists(), "run `scripts/deps.sh test`");
    let calls = json!([
        ["clock__get_current_time", {"timezone": "Asia/Tokyo"}],
        ["guarded__get_current_time", {"timezone": "Europe/Paris"}],
    ]);
    let report = session_on(&python, dir.path(), "accept", calls, json!({}));
    assert_eq!(report["tools"].as_array().unwrap().len(), 4, "{report}");
    assert_eq!(report["calls"][0]["isError"], false, "{report}");
    assert_eq!(report["calls"][1]["isError"], false, "{report}");
    assert_eq!(
        report["asked"].as_array().unwrap().len(),
        1,
        "only the guarded call asks"
    );
}

/// A profile in `dir` with `crashy` (`fault_server.py`, which dies in the middle of a call of
/// its tool `work`), allowed for outside clients.
pub(super) async fn crashy_profile(dir: &Path) {
    let engine = engine(dir).await;
    let script = fixtures_py().join("fault_server.py");
    let crashy = ServerConfig::new(
        "crashy",
        Transport::Stdio {
            command: "python3".into(),
            args: vec![
                script.to_string_lossy().into_owned(),
                "crash-mid-call".into(),
            ],
            env: Default::default(),
            cwd: None,
        },
    );
    engine.mcp().add_server(crashy).await.unwrap();
    // Its tool has no annotations, so it counts as destructive: only a tool policy allows it.
    let allow = Some(Approval::Allow);
    engine
        .mcp()
        .set_tool_policy("crashy", "work", allow)
        .await
        .unwrap();
    engine.shutdown().await;
}

#[tokio::test]
async fn a_server_that_goes_down_mid_call_tells_the_client_its_lists_changed() {
    let dir = tempfile::tempdir().unwrap();
    crashy_profile(dir.path()).await;

    let calls = json!([["crashy__work", {}]]);
    let report = session_with(dir.path(), "none", calls, json!({"linger": 3}));
    assert_eq!(report["calls"][0]["isError"], true, "{report}");
    let notified = report["notified"].as_array().unwrap();
    assert!(
        notified.contains(&json!("notifications/tools/list_changed")),
        "{report}"
    );
}

#[tokio::test]
async fn the_cli_sets_who_decides_a_servers_calls_for_outside_clients_too() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let cli = |args: &[&str]| {
        let out = crate::suite::support_cli::output_within_limit(
            Command::new(env!("CARGO_BIN_EXE_switchboard"))
                .arg("--data-dir")
                .arg(dir.path())
                .args(["servers", "approval"])
                .args(args)
                .env_remove("SWITCHBOARD_DATA_DIR"),
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    };
    let (ok, said) = cli(&["guarded", "allow", "--tool", "get_current_time"]);
    assert!(
        ok && said.contains("guarded get_current_time: allow"),
        "{said}"
    );
    let (ok, said) = cli(&["clock", "deny"]);
    assert!(ok && said.contains("clock: deny"), "{said}");
    let (ok, said) = cli(&["clock", "sometimes"]);
    assert!(!ok && said.contains("allow, ask or deny"), "{said}");

    let calls = json!([
        ["guarded__get_current_time", {"timezone": "Asia/Tokyo"}],
        ["clock__get_current_time", {"timezone": "Asia/Tokyo"}],
    ]);
    let report = session(dir.path(), "none", calls);
    assert_eq!(report["calls"][0]["isError"], false, "{report}");
    assert_eq!(report["calls"][1]["isError"], true, "{report}");
    let refused = report["calls"][1]["text"][0].as_str().unwrap();
    assert!(refused.contains("refused"), "{refused}");
}

#[tokio::test]
async fn a_client_that_asks_for_progress_hears_the_upstream_calls_progress_in_order() {
    let dir = tempfile::tempdir().unwrap();
    allowed_everything(dir.path()).await;

    let calls =
        json!([["everything__trigger-long-running-operation", {"duration": 0.6, "steps": 3}]]);
    let report = session_with(dir.path(), "none", calls, json!({"progress": true}));
    let call = &report["calls"][0];
    assert_eq!(call["isError"], json!(false), "{report}");
    assert!(call["text"].to_string().contains("Steps: 3"), "{report}");
    assert_eq!(
        call["progress"],
        json!([[1.0, 3.0], [2.0, 3.0], [3.0, 3.0]]),
        "{report}"
    );
}

#[tokio::test]
async fn a_client_subscribed_to_a_resource_hears_the_servers_updates_of_it() {
    let dir = tempfile::tempdir().unwrap();
    allowed_everything(dir.path()).await;

    // server-everything sends an update of each subscribed URI as soon as its updates are
    // switched on, then every 5 s.
    let uri = "demo://resource/dynamic/text/7";
    let calls = json!([["everything__toggle-subscriber-updates", {}]]);
    let extras = json!({ "subscribe": uri, "linger": 1.5 });
    let report = session_with(dir.path(), "none", calls, extras);
    assert_eq!(report["calls"][0]["isError"], json!(false), "{report}");
    let updated = report["updated"].as_array().expect("updates");
    assert!(!updated.is_empty(), "{report}");
    assert!(updated.iter().all(|u| u == uri), "{report}");
}
