//! MCP host benchmarks against server-everything over stdio (`tests/fixtures/mcp-node`):
//!
//! - `echo`: sequential `tools/call` of `echo`, per-call median through our [`McpClient`]
//!   against a raw NDJSON client (JSON lines written straight to the child's stdin, answers
//!   matched by id: the lower bound) and against rmcp's own client with nothing of ours
//!   around it (`()` as its handler, `Peer::call_tool`: the bound rmcp sets);
//! - `start`: N servers started together through the [`Supervisor`] against the slowest of N
//!   single starts, and against N raw clients spawning and initializing concurrently.
//!
//! - `profile CLIENT CALLS`: one client alone (`raw`, `rmcp`, `rmcp-opts`: rmcp with our
//!   timeout options, or `ours`) making CALLS calls after a warm-up, for callgrind
//!   (`bench/mcp/profile.sh` subtracts two runs); it prints the per-call median and the
//!   process's context switches (all threads) over the measured calls.
//!
//! Prints one `key value` line per figure (medians in microseconds or milliseconds) for
//! `bench/mcp/run.sh`, which also runs the official Python SDK client and computes ratios.
//! `BENCH_RUNTIME` picks the tokio runtime: `multi` (default, as the app), `multi1` (one
//! worker thread) or `current` (the caller's thread only); with `BENCH_SPAWN` set, the
//! clients are driven from a spawned task (a worker thread, as the app's calls are) rather
//! than from `block_on`'s own thread.
//!
//! `cargo bench -p switchboard-engine --bench mcp -- echo CALLS ROUNDS | start N ROUNDS |
//! profile CLIENT CALLS`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use switchboard_engine::mcp::{IgnoreNotifications, Limits, McpClient, ServerState, Supervisor};
use switchboard_engine::vocab::server::{ServerConfig, ServerSpec, Transport};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio_util::sync::CancellationToken;

/// Calls made before measuring, to warm both sides up.
const WARMUP: usize = 50;

fn everything_js() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    assert!(
        path.exists(),
        "{} is missing: run scripts/deps.sh test",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

fn everything_config(name: &str) -> ServerConfig {
    let transport = Transport::Stdio {
        command: "node".to_owned(),
        args: vec![everything_js(), "stdio".to_owned()],
        env: BTreeMap::new(),
        cwd: None,
    };
    let mut config = ServerConfig::new(name, transport);
    config.startup_timeout = Duration::from_secs(120);
    config
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Per-call median of `calls` sequential echo calls through our client.
async fn ours_echo(client: &McpClient, calls: usize) -> Duration {
    let args = json!({"message": "hello"}).as_object().unwrap().clone();
    let timeout = Duration::from_secs(30);
    let mut samples = Vec::with_capacity(calls);
    for _ in 0..calls {
        let started = Instant::now();
        let cancel = CancellationToken::new();
        let result = client
            .call_tool("echo", args.clone(), timeout, cancel)
            .await;
        samples.push(started.elapsed());
        assert!(!result.unwrap().is_error);
    }
    median(samples)
}

/// rmcp's client alone over the child's stdio, as our client connects it but with no handler,
/// no line cap, no timeout or progress bookkeeping.
struct Rmcp {
    service: rmcp::service::RunningService<rmcp::RoleClient, ()>,
    child: Child,
}

impl Rmcp {
    async fn start() -> Self {
        let mut child = Command::new("node")
            .args([everything_js(), "stdio".to_owned()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn node");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(stdout, stdin);
        let mode = rmcp::service::ClientLifecycleMode::Initialize;
        let service = rmcp::service::serve_client_with_lifecycle((), transport, mode)
            .await
            .expect("rmcp handshake");
        Self { service, child }
    }

    /// Per-call median of `calls` sequential echo calls.
    async fn echo(&self, calls: usize) -> Duration {
        let args = json!({"message": "hello"}).as_object().unwrap().clone();
        let mut samples = Vec::with_capacity(calls);
        for _ in 0..calls {
            let started = Instant::now();
            let mut params = rmcp::model::CallToolRequestParams::new("echo");
            params.arguments = Some(args.clone());
            let result = self.service.peer().call_tool(params).await;
            samples.push(started.elapsed());
            assert_ne!(result.unwrap().is_error, Some(true));
        }
        median(samples)
    }

    /// [`Rmcp::echo`] with the request options our client passes (a timeout reset by
    /// progress), to isolate rmcp's cost of those.
    async fn echo_with_options(&self, calls: usize) -> Duration {
        use rmcp::model as rm;
        let args = json!({"message": "hello"}).as_object().unwrap().clone();
        let mut samples = Vec::with_capacity(calls);
        for _ in 0..calls {
            let started = Instant::now();
            let mut params = rm::CallToolRequestParams::new("echo");
            params.arguments = Some(args.clone());
            let request = rm::ClientRequest::CallToolRequest(rm::CallToolRequest::new(params));
            let options = rmcp::service::PeerRequestOptions::with_timeout(Duration::from_secs(30))
                .reset_timeout_on_progress();
            let handle = self
                .service
                .peer()
                .send_request_with_option(request, options);
            let result = handle.await.unwrap().await_response().await;
            samples.push(started.elapsed());
            assert!(matches!(result, Ok(rm::ServerResult::CallToolResult(_))));
        }
        median(samples)
    }

    async fn stop(mut self) {
        let _ = self.service.cancel().await;
        let _ = self.child.kill().await;
    }
}

/// A bare newline-delimited JSON-RPC client of a child process.
struct Raw {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl Raw {
    /// Spawns server-everything and runs `initialize` + `notifications/initialized`.
    async fn start() -> Self {
        let mut child = Command::new("node")
            .args([everything_js(), "stdio".to_owned()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn node");
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut raw = Self {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let init = json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}});
        raw.request("initialize", init).await;
        raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        raw
    }

    async fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).await.unwrap();
    }

    /// Sends a request and reads lines until the answer with its id (skipping notifications).
    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&request).await;
        loop {
            let line = self.lines.next_line().await.unwrap().expect("an answer");
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
        }
    }

    /// Per-call median of `calls` sequential echo calls.
    async fn echo(&mut self, calls: usize) -> Duration {
        let params = json!({"name": "echo", "arguments": {"message": "hello"}});
        let mut samples = Vec::with_capacity(calls);
        for _ in 0..calls {
            let started = Instant::now();
            let answer = self.request("tools/call", params.clone()).await;
            samples.push(started.elapsed());
            assert!(answer.get("result").is_some(), "{answer}");
        }
        median(samples)
    }

    async fn stop(mut self) {
        drop(self.stdin);
        let _ = self.child.kill().await;
    }
}

/// `echo CALLS ROUNDS`: per round, the per-call median of ours, of the raw client and of
/// rmcp's client alone.
async fn bench_echo(calls: usize, rounds: usize) {
    let spec = ServerSpec::new("everything", everything_config("everything").transport);
    let client = McpClient::connect(&spec, IgnoreNotifications)
        .await
        .unwrap();
    let mut raw = Raw::start().await;
    let alone = Rmcp::start().await;
    ours_echo(&client, WARMUP).await;
    raw.echo(WARMUP).await;
    alone.echo(WARMUP).await;
    for round in 1..=rounds {
        // Alternate which goes first, so neither always gets the quieter machine.
        let (ours, bare) = if round % 2 == 1 {
            (ours_echo(&client, calls).await, raw.echo(calls).await)
        } else {
            let bare = raw.echo(calls).await;
            (ours_echo(&client, calls).await, bare)
        };
        let rmcp = alone.echo(calls).await;
        println!("echo_ours_us {:.1}", micros(ours));
        println!("echo_raw_us {:.1}", micros(bare));
        println!("echo_rmcp_us {:.1}", micros(rmcp));
    }
    client.shutdown().await;
    raw.stop().await;
    alone.stop().await;
}

/// `start N ROUNDS`: per round, the slowest of N single starts, N started together through
/// the supervisor, and N raw clients spawned and initialized together.
async fn bench_start(n: usize, rounds: usize) {
    let configs: Vec<_> = (0..n)
        .map(|i| everything_config(&format!("s{i}")))
        .collect();
    for _ in 0..rounds {
        let mut slowest = Duration::ZERO;
        for config in &configs {
            let supervisor = Supervisor::new(Default::default(), Limits::default());
            let started = Instant::now();
            let state = supervisor.start(config.clone()).await;
            slowest = slowest.max(started.elapsed());
            assert!(matches!(state, ServerState::Ready { .. }), "{state:?}");
            supervisor.shutdown_all().await;
        }
        let supervisor = Supervisor::new(Default::default(), Limits::default());
        let started = Instant::now();
        let states = supervisor.start_all(&configs).await;
        let together = started.elapsed();
        assert!(
            (states.iter()).all(|(_, s)| matches!(s, ServerState::Ready { .. })),
            "{states:?}"
        );
        supervisor.shutdown_all().await;
        let started = Instant::now();
        let raws = futures::future::join_all((0..n).map(|_| async {
            let mut raw = Raw::start().await;
            raw.request("tools/list", json!({})).await;
            raw
        }))
        .await;
        let raw_together = started.elapsed();
        futures::future::join_all(raws.into_iter().map(Raw::stop)).await;
        println!("start_slowest_single_ms {:.1}", millis(slowest));
        println!("start_together_ms {:.1}", millis(together));
        println!("start_raw_together_ms {:.1}", millis(raw_together));
    }
}

/// Context switches of every thread of this process so far: (voluntary, involuntary).
fn context_switches() -> (u64, u64) {
    let mut total = (0, 0);
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return total;
    };
    for task in tasks.flatten() {
        let status = std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
        for line in status.lines() {
            let number = |l: &str| l.split_whitespace().nth(1).and_then(|n| n.parse().ok());
            if line.starts_with("voluntary_ctxt_switches") {
                total.0 += number(line).unwrap_or(0);
            } else if line.starts_with("nonvoluntary_ctxt_switches") {
                total.1 += number(line).unwrap_or(0);
            }
        }
    }
    total
}

/// `profile CLIENT CALLS`: one client alone, its measured calls between the markers.
async fn bench_profile(which: &str, calls: usize) {
    enum Client {
        Ours(McpClient),
        Raw(Raw),
        Rmcp(Rmcp),
    }
    let mut client = match which {
        "ours" => {
            let spec = ServerSpec::new("everything", everything_config("everything").transport);
            Client::Ours(
                McpClient::connect(&spec, IgnoreNotifications)
                    .await
                    .unwrap(),
            )
        }
        "raw" => Client::Raw(Raw::start().await),
        "rmcp" | "rmcp-opts" => Client::Rmcp(Rmcp::start().await),
        other => panic!("unknown client {other}: ours, raw, rmcp or rmcp-opts"),
    };
    let run = async |client: &mut Client, calls| match client {
        Client::Ours(c) => ours_echo(c, calls).await,
        Client::Raw(c) => c.echo(calls).await,
        Client::Rmcp(c) if which == "rmcp-opts" => c.echo_with_options(calls).await,
        Client::Rmcp(c) => c.echo(calls).await,
    };
    run(&mut client, WARMUP).await;
    // `BENCH_PAUSE_MS`: time for a tracer to attach (`strace -f -p`) after the warm-up.
    if let Some(pause) = std::env::var("BENCH_PAUSE_MS")
        .ok()
        .and_then(|p| p.parse().ok())
    {
        println!("pid {}", std::process::id());
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
    let before = context_switches();
    let median = run(&mut client, calls).await;
    let after = context_switches();
    println!("profile_{which}_us {:.1}", micros(median));
    println!(
        "profile_{which}_ctxt_per_call voluntary {:.2} involuntary {:.2}",
        (after.0 - before.0) as f64 / calls as f64,
        (after.1 - before.1) as f64 / calls as f64
    );
    match client {
        Client::Ours(c) => c.shutdown().await,
        Client::Raw(c) => c.stop().await,
        Client::Rmcp(c) => c.stop().await,
    }
}

fn main() {
    let runtime = match std::env::var("BENCH_RUNTIME").as_deref() {
        Ok("current") => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        Ok("multi1") => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build(),
        _ => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
    };
    let runtime = runtime.expect("a tokio runtime");
    if std::env::var_os("BENCH_SPAWN").is_some() {
        // On a worker thread, as the app's calls are, instead of `block_on`'s own thread.
        runtime.block_on(async { tokio::spawn(run()).await.expect("the bench task") });
    } else {
        runtime.block_on(run());
    }
}

async fn run() {
    // `cargo bench` passes `--bench`; keep only our own arguments.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    switchboard_engine::mcp::login_path().await;
    let number =
        |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    match args.first().map(String::as_str) {
        Some("echo") => bench_echo(number(1, 1000), number(2, 5)).await,
        Some("start") => bench_start(number(1, 10), number(2, 3)).await,
        Some("profile") => {
            let which = args.get(1).map_or("ours", String::as_str);
            bench_profile(which, number(2, 2000)).await;
        }
        _ => eprintln!(
            "usage: mcp echo [CALLS] [ROUNDS] | mcp start [N] [ROUNDS] | mcp profile CLIENT [CALLS]"
        ),
    }
}
