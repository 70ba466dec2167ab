//! `switchboard serve`: the local MCP endpoint over streamable HTTP on 127.0.0.1, reached by the
//! official Python `mcp` SDK's HTTP client with a token made by `switchboard clients add`, over
//! `mcp-server-time` from PyPI; and every request that must not pass — no token, a wrong or
//! revoked one, a web page's `Origin`, a rebinding `Host`, a body over the cap, broken JSON —
//! refused with its own status and a JSON-RPC error, while the endpoint keeps serving.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use super::mcp_serve::{crashy_profile, profile, run_client};
use super::support_py::{json_report, venv_python};

/// `switchboard --data-dir DIR ARGS`: success and what it printed.
pub(super) fn cli(dir: &Path, args: &[&str]) -> (bool, String) {
    let out = crate::suite::support_cli::output_within_limit(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("--data-dir")
            .arg(dir)
            .args(args)
            .env_remove("SWITCHBOARD_DATA_DIR"),
    );
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// A new client's token, as `clients add` prints it.
pub(super) fn add_client(dir: &Path, args: &[&str]) -> String {
    let (ok, said) = cli(dir, &[&["clients", "add"], args].concat());
    assert!(ok, "{said}");
    let token = said.lines().nth(1).unwrap_or_default().trim().to_owned();
    assert!(token.starts_with("sb_"), "{said}");
    token
}

/// `switchboard serve --port 0` over `dir`, killed when dropped.
pub(super) struct Served {
    child: Child,
    pub(super) url: String,
}

impl Served {
    pub(super) fn start(dir: &Path) -> Self {
        Self::start_with(dir, &[])
    }

    /// [`Served::start`] with more environment variables.
    pub(super) fn start_with(dir: &Path, env: &[(&str, &Path)]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("--data-dir")
            .arg(dir)
            .args(["serve", "--port", "0", "--server-wait", "30"])
            .env_remove("SWITCHBOARD_DATA_DIR")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let url = line
            .trim()
            .strip_prefix("Serving MCP on ")
            .unwrap_or_else(|| panic!("{line:?}"))
            .to_owned();
        Self { child, url }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Python client's report of one session with `token` (see `serve_client.py`).
fn session(url: &str, token: &str, calls: Value) -> Value {
    let (args, extras) = (json!([]), json!({}));
    run_client(
        &venv_python(),
        "none",
        url,
        &args,
        &calls,
        &extras,
        Some(token),
    )
}

#[tokio::test]
async fn an_app_over_http_hears_that_the_lists_changed_when_a_server_goes_down() {
    let dir = tempfile::tempdir().unwrap();
    crashy_profile(dir.path()).await;
    let token = add_client(dir.path(), &["Cursor"]);
    let served = Served::start(dir.path());
    let (args, calls, extras) = (
        json!([]),
        json!([["crashy__work", {}]]),
        json!({"linger": 3}),
    );
    let python = venv_python();
    let report = run_client(
        &python,
        "none",
        &served.url,
        &args,
        &calls,
        &extras,
        Some(&token),
    );
    assert_eq!(report["calls"][0]["isError"], true, "{report}");
    let notified = report["notified"].as_array().unwrap();
    assert!(
        notified.contains(&json!("notifications/tools/list_changed")),
        "{report}"
    );
}

#[tokio::test]
async fn an_app_with_its_token_lists_and_calls_tools_over_http_and_its_calls_are_logged() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let token = add_client(dir.path(), &["Claude Desktop"]);
    let served = Served::start(dir.path());
    assert!(
        served.url.starts_with("http://127.0.0.1:"),
        "{}",
        served.url
    );
    let calls = json!([
        ["clock__get_current_time", {"timezone": "Asia/Tokyo"}],
        ["guarded__get_current_time", {"timezone": "Asia/Tokyo"}],
    ]);
    let report = session(&served.url, &token, calls);
    let tools = report["tools"].to_string();
    assert!(
        tools.contains("clock__get_current_time") && tools.contains("guarded__convert_time"),
        "{report}"
    );
    assert_eq!(report["calls"][0]["isError"], json!(false), "{report}");
    assert!(
        report["calls"][0]["text"]
            .to_string()
            .contains("Asia/Tokyo"),
        "{report}"
    );
    // The policy asks, and this client cannot be asked: refused, and said where to allow it.
    assert_eq!(report["calls"][1]["isError"], json!(true), "{report}");

    let (ok, said) = cli(dir.path(), &["clients", "calls", "claude desktop"]);
    assert!(ok, "{said}");
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 2, "{said}");
    assert!(
        lines[0].contains("guarded/get_current_time  unanswered"),
        "{said}"
    );
    assert!(lines[1].contains("clock/get_current_time  done"), "{said}");
    let (_, said) = cli(dir.path(), &["clients", "list"]);
    assert!(
        said.contains("Claude Desktop  (all servers; last used "),
        "{said}"
    );
}

#[tokio::test]
async fn a_client_limited_to_one_server_sees_and_reaches_only_that_one() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let token = add_client(dir.path(), &["Cursor", "--servers", "clock"]);
    let served = Served::start(dir.path());
    let calls = json!([["guarded__get_current_time", {"timezone": "Asia/Tokyo"}]]);
    let report = session(&served.url, &token, calls);
    let tools: Vec<String> = serde_json::from_value(report["tools"].clone()).unwrap();
    assert!(!tools.is_empty(), "{report}");
    assert!(tools.iter().all(|t| t.starts_with("clock__")), "{report}");
    let error = report["calls"][0]["error"].to_string();
    assert!(error.contains("no running server offers"), "{report}");

    // Widened to every server, the same token reaches the other one's tools too.
    let (ok, said) = cli(dir.path(), &["clients", "servers", "Cursor", "--all"]);
    assert!(ok && said.contains("Cursor  (all servers"), "{said}");
    let report = session(&served.url, &token, json!([]));
    assert!(
        report["tools"].to_string().contains("guarded__"),
        "{report}"
    );
}

#[tokio::test]
async fn a_client_limited_to_some_tools_of_a_server_sees_and_calls_only_those() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let token = add_client(dir.path(), &["Cursor"]);
    let (ok, said) = cli(
        dir.path(),
        &["clients", "tools", "Cursor", "clock", "get_current_time"],
    );
    assert!(
        ok && said.contains("of clock only get_current_time"),
        "{said}"
    );
    let served = Served::start(dir.path());
    let calls = json!([
        ["clock__convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}],
        ["clock__get_current_time", {"timezone": "Asia/Tokyo"}]
    ]);
    let report = session(&served.url, &token, calls);
    let tools: Vec<String> = serde_json::from_value(report["tools"].clone()).unwrap();
    assert!(
        tools.contains(&"clock__get_current_time".to_owned()),
        "{report}"
    );
    assert!(
        !tools.contains(&"clock__convert_time".to_owned()),
        "{report}"
    );
    assert!(
        tools.iter().any(|t| t.starts_with("guarded__")),
        "a server with no list keeps its tools: {report}"
    );
    let error = report["calls"][0]["error"].to_string();
    assert!(
        error.contains("offers this client a tool named"),
        "{report}"
    );
    assert!(
        report["calls"][1].to_string().contains("Asia/Tokyo"),
        "{report}"
    );

    // All its tools again: the same session-less token sees convert_time at once.
    let (ok, said) = cli(
        dir.path(),
        &["clients", "tools", "Cursor", "clock", "--all"],
    );
    assert!(ok && !said.contains("only"), "{said}");
    let report = session(&served.url, &token, json!([]));
    assert!(
        report["tools"].to_string().contains("clock__convert_time"),
        "{report}"
    );
}

/// POSTs `body` to the endpoint with `headers`: the status and the JSON-RPC error's message.
async fn post(url: &str, headers: &[(&str, &str)], body: Vec<u8>) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.body(body).send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    (status, text)
}

fn initialize() -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"}}})
    .to_string()
    .into_bytes()
}

#[tokio::test]
async fn requests_without_a_good_token_from_a_web_page_or_for_another_host_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let token = add_client(dir.path(), &["Script"]);
    let served = Served::start(dir.path());
    let url = served.url.as_str();
    let bearer = format!("Bearer {token}");
    let port = url.split(':').nth(2).unwrap().trim_end_matches("/mcp");

    let (status, text) = post(url, &[], initialize()).await;
    assert_eq!(status, 401, "{text}");
    assert!(text.contains("bearer token is needed"), "{text}");
    let (status, text) = post(url, &[("Authorization", "Bearer sb_guess")], initialize()).await;
    assert_eq!(status, 401, "{text}");
    assert!(text.contains("unknown or was revoked"), "{text}");

    let evil = [
        ("Authorization", bearer.as_str()),
        ("Origin", "https://evil.example"),
    ];
    let (status, text) = post(url, &evil, initialize()).await;
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("web pages"), "{text}");
    let own = format!("http://127.0.0.1:{port}");
    let (status, text) = post(
        url,
        &[("Authorization", &bearer), ("Origin", &own)],
        initialize(),
    )
    .await;
    assert_eq!(status, 200, "{text}");

    let host = format!("evil.example:{port}");
    let rebound = [("Authorization", bearer.as_str()), ("Host", host.as_str())];
    let (status, text) = post(url, &rebound, initialize()).await;
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("loopback"), "{text}");
    // The OpenAI-compatible routes beside /mcp are behind the same checks.
    let v1 = url.replace("/mcp", "/v1/chat/completions");
    // …and refused in OpenAI's error shape, which OpenAI clients raise.
    let (status, text) = post(&v1, &rebound, b"{}".to_vec()).await;
    assert_eq!(status, 403, "{text}");
    assert!(text.contains(r#""type":"permission_error""#), "{text}");
    let (status, text) = post(&v1, &evil, b"{}".to_vec()).await;
    assert_eq!(status, 403, "{text}");
    let (status, text) = post(&v1, &[], b"{}".to_vec()).await;
    assert_eq!(status, 401, "{text}");
    assert!(
        text.contains(r#""type":"authentication_error""#) && !text.contains("jsonrpc"),
        "{text}"
    );
    // The IPv6 loopback is served too, where the system has one.
    if std::net::TcpListener::bind("[::1]:0").is_ok() {
        let v6 = format!("http://[::1]:{port}/mcp");
        let (status, text) = post(&v6, &[("Authorization", &bearer)], initialize()).await;
        assert_eq!(status, 200, "{text}");
    }

    let huge = vec![b' '; switchboard_engine::mcp::SERVE_MAX_BODY + 1024];
    let (status, text) = post(url, &[("Authorization", &bearer)], huge).await;
    assert_eq!(status, 413, "{text}");
    let (status, text) = post(
        url,
        &[("Authorization", &bearer)],
        b"{\"jsonrpc\":".to_vec(),
    )
    .await;
    assert!((400..500).contains(&status), "{status} {text}");

    // Still serving the good token, until its client is removed.
    let (status, text) = post(url, &[("Authorization", &bearer)], initialize()).await;
    assert_eq!(status, 200, "{text}");
    let (ok, said) = cli(dir.path(), &["clients", "remove", "script"]);
    assert!(ok && said.contains("no longer works"), "{said}");
    let (status, text) = post(url, &[("Authorization", &bearer)], initialize()).await;
    assert_eq!(status, 401, "{text}");
}

#[tokio::test]
async fn the_typescript_sdks_client_lists_and_calls_tools_over_http_with_its_token() {
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let token = add_client(dir.path(), &["VS Code"]);
    let served = Served::start(dir.path());
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-node/serve-client.mjs");
    let out = Command::new("node")
        .arg(script)
        .args([
            served.url.as_str(),
            token.as_str(),
            "clock__get_current_time",
        ])
        .arg(json!({"timezone": "Asia/Tokyo"}).to_string())
        .output()
        .unwrap();
    let report = json_report(&out);
    let tools = report["tools"].to_string();
    assert!(
        tools.contains("clock__get_current_time") && tools.contains("guarded__convert_time"),
        "{report}"
    );
    assert_eq!(report["result"]["isError"], json!(false), "{report}");
    assert!(
        report["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Asia/Tokyo"),
        "{report}"
    );
    let (ok, said) = cli(dir.path(), &["clients", "calls", "VS Code"]);
    assert!(
        ok && said.contains("clock/get_current_time  done"),
        "{said}"
    );
}
