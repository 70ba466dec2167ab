//! Tests of the MCP client and child-process handling against real servers from npm
//! (`tests/fixtures/mcp-node`, installed with `npm ci --prefix tests/fixtures/mcp-node`), and
//! against the standard-library Python fault server in `tests/fixtures/mcp-py`.

mod builtin;
mod capabilities;
mod faults;
mod follow;
mod http;
mod policy;
mod process;
mod sse;
mod stdio;
mod supervisor;
mod tasks;
mod tools;
mod web;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::McpClient;
use super::client::process::{Launch, ServerProcess};
use crate::vocab::mcp::ServerNotification;
use crate::vocab::server::{ServerSpec, Transport};

/// The fixtures folder of the npm servers.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/mcp-node")
}

/// server-everything's entry point; panics with the fix when it is not installed.
fn everything_js() -> String {
    let path =
        fixtures().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        path.exists(),
        "{} is missing: run `npm ci --prefix tests/fixtures/mcp-node` from the repository root",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

/// A spec running `node <args…>` over stdio.
fn node_spec(args: Vec<String>) -> ServerSpec {
    let mut spec = ServerSpec::new(
        "everything",
        Transport::Stdio {
            command: "node".to_owned(),
            args,
            env: BTreeMap::new(),
            cwd: None,
        },
    );
    spec.startup_timeout = Duration::from_secs(30);
    spec.call_timeout = Duration::from_secs(30);
    spec
}

/// server-everything over stdio.
fn everything_spec() -> ServerSpec {
    node_spec(vec![everything_js(), "stdio".to_owned()])
}

/// Connects to `spec`, with a channel receiving its notifications.
async fn connect(spec: &ServerSpec) -> (McpClient, mpsc::UnboundedReceiver<ServerNotification>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let client = McpClient::connect(spec, tx).await.expect("connect");
    (client, rx)
}

/// A JSON object from a `json!` literal.
fn args(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    value.as_object().expect("an object").clone()
}

/// Whether `/proc/<pid>` exists and is not a zombie.
fn process_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// A port nobody listens on right now.
pub(super) fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

/// Waits until something accepts connections on `port`.
pub(super) async fn wait_for_port(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "nothing listening on {port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Starts server-everything in an HTTP `mode` (`streamableHttp` or `sse`) on a free loopback
/// port. Returns the process (with its pipes, kept open) and the port.
pub(super) async fn start_everything_over(mode: &str) -> (ServerProcess, impl Sized, u16) {
    let port = free_port();
    let preload = fixtures().join("bind-loopback.cjs");
    let args = vec![
        "--require".to_owned(),
        preload.to_string_lossy().into_owned(),
        everything_js(),
        mode.to_owned(),
    ];
    let env = BTreeMap::from([("PORT".to_owned(), port.to_string())]);
    let launch = Launch {
        command: "node",
        args: &args,
        env: &env,
        cwd: None,
        inherit_env: &[],
    };
    let (process, stdout, stdin) = ServerProcess::spawn(launch).await.expect("spawn node");
    wait_for_port(port).await;
    (process, (stdout, stdin), port)
}
