//! Both protocol eras, negotiated per server against real servers: the handshake era from
//! npm's server-everything and PyPI's `mcp` 1.x (FastMCP), the stateless 2026-07-28 era from
//! PyPI's `mcp` 2.x (MCPServer, `tests/fixtures/mcp-py2`), the TypeScript SDK 2.x
//! (`tests/fixtures/mcp-ts2`) and the suite's own rmcp server ([`super::mrtr_server`]). Each
//! stateless server also reports, from inside a tool, the revision the request carried.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use switchboard_engine::mcp::{IgnoreNotifications, McpClient};
use switchboard_engine::vocab::mcp::{ProtocolEra, ResultPart};
use switchboard_engine::vocab::server::{ServerSpec, Transport};
use tokio_util::sync::CancellationToken;

use super::mrtr_server::{self, Asking};
use super::support_py::weather_stdio_config;

/// A fixture file under `tests/fixtures`, which must exist (the fix named otherwise).
fn fixture(path: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    assert!(
        path.exists(),
        "{} is missing: run `scripts/deps.sh test`",
        path.display()
    );
    path
}

fn stdio(name: &str, command: PathBuf, args: &[PathBuf]) -> ServerSpec {
    let transport = Transport::Stdio {
        command: command.to_string_lossy().into_owned(),
        args: args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        env: BTreeMap::new(),
        cwd: None,
    };
    let mut spec = ServerSpec::new(name, transport);
    spec.startup_timeout = Duration::from_secs(30);
    spec.call_timeout = Duration::from_secs(30);
    spec
}

fn node(script: PathBuf) -> ServerSpec {
    stdio("node", PathBuf::from("node"), &[script])
}

fn everything() -> ServerSpec {
    let mut spec = node(PathBuf::from(super::agent::everything_js()));
    if let Transport::Stdio { args, .. } = &mut spec.transport {
        args.push("stdio".to_owned());
    }
    spec
}

fn py2() -> ServerSpec {
    let python = fixture("mcp-py2/.venv/bin/python");
    stdio("py2", python, &[fixture("mcp-py2/stateless.py")])
}

fn ts2() -> ServerSpec {
    fixture("mcp-ts2/node_modules/@modelcontextprotocol/server");
    node(fixture("mcp-ts2/stateless.mjs"))
}

/// Connects, printing how long it took (negotiation included; not asserted).
async fn connect(spec: &ServerSpec) -> McpClient {
    let started = Instant::now();
    let client = McpClient::connect(spec, IgnoreNotifications)
        .await
        .expect("connect");
    eprintln!("{}: connected in {:?}", spec.name, started.elapsed());
    client
}

/// The only text of a tool's answer.
async fn call_text(client: &McpClient, tool: &str, args: Map<String, Value>) -> String {
    let cancel = CancellationToken::new();
    let result = client
        .call_tool(tool, args, Duration::from_secs(30), cancel)
        .await;
    match result.expect("call").content.as_slice() {
        [ResultPart::Text { text }] => text.clone(),
        other => panic!("expected one text part, got {other:?}"),
    }
}

/// (era, negotiated version, server name) of a connection.
fn era_of(client: &McpClient) -> (ProtocolEra, String, String) {
    let info = client.server_info();
    (info.era, info.protocol_version.clone(), info.name.clone())
}

#[tokio::test]
async fn server_everything_answers_the_discover_probe_with_an_error_and_speaks_the_handshake_era() {
    let client = connect(&everything()).await;
    let expected = (
        ProtocolEra::Handshake,
        "2025-11-25".into(),
        "mcp-servers/everything".into(),
    );
    assert_eq!(era_of(&client), expected);
    let mut args = Map::new();
    args.insert("message".into(), "both eras".into());
    assert_eq!(call_text(&client, "echo", args).await, "Echo: both eras");
    client.shutdown().await;
}

#[tokio::test]
async fn a_fastmcp_1_server_falls_back_to_the_handshake_era() {
    let client = connect(&weather_stdio_config("weather").spec()).await;
    let (era, version, _) = era_of(&client);
    assert_eq!(
        (era, version.as_str()),
        (ProtocolEra::Handshake, "2025-11-25")
    );
    client.shutdown().await;
}

#[tokio::test]
async fn a_python_mcp_2_server_speaks_the_stateless_era_and_sees_it_on_each_request() {
    let client = connect(&py2()).await;
    let expected = (
        ProtocolEra::Stateless,
        "2026-07-28".into(),
        "py2-stateless".into(),
    );
    assert_eq!(era_of(&client), expected);
    assert_eq!(
        call_text(&client, "protocol_version", Map::new()).await,
        "2026-07-28"
    );
    let args = serde_json::json!({"a": 2, "b": 40})
        .as_object()
        .cloned()
        .unwrap_or_default();
    assert_eq!(call_text(&client, "add", args).await, "42");
    client.shutdown().await;
}

#[tokio::test]
async fn a_typescript_sdk_2_server_speaks_the_stateless_era_and_sees_it_on_each_request() {
    let client = connect(&ts2()).await;
    let expected = (
        ProtocolEra::Stateless,
        "2026-07-28".into(),
        "ts2-stateless".into(),
    );
    assert_eq!(era_of(&client), expected);
    assert_eq!(
        call_text(&client, "protocol_version", Map::new()).await,
        "2026-07-28"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn an_rmcp_server_over_streamable_http_speaks_the_stateless_era() {
    let server = mrtr_server::start(Asking::default()).await;
    let spec = ServerSpec::new(
        "mrtr",
        Transport::Http {
            url: server.url.clone(),
            headers: BTreeMap::new(),
        },
    );
    let client = connect(&spec).await;
    let expected = (
        ProtocolEra::Stateless,
        "2026-07-28".into(),
        "switchboard-mrtr-test".into(),
    );
    assert_eq!(era_of(&client), expected);
    client.shutdown().await;
}
