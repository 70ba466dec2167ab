//! Tool discovery per turn — what the host spends getting the tools to offer before the first
//! model request of a turn (`Supervisor::current_tools_for`, which a turn's setup calls) — with
//! warm caches: a 2026-07-28 server whose tool list carries a cache hint (`ttlMs` one hour; the
//! suite's own rmcp server over streamable HTTP on 127.0.0.1) next to the handshake era
//! (npm's server-everything over stdio, kept until `list_changed`). For reference, the same
//! stateless server without a `ttlMs`, which must be listed again on every turn. Median of 50
//! turns each, after 5 warm-up turns; the server's own `tools/list` count shows whether the
//! warm turns asked it anything.
//!
//! `make bench-discovery` (not part of `make test`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[allow(dead_code)]
#[path = "../../tests/suite/mrtr_server.rs"]
mod mrtr_server;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use mrtr_server::{Asking, Running};
use switchboard_engine::mcp::Conflict;
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::vocab::server::{ServerConfig, Transport};
use switchboard_engine::{Engine, Paths, Redactor, Secrets};

const TURNS: usize = 50;
const WARM_UP: usize = 5;

async fn engine(dir: &Path) -> Engine {
    let redactor = Redactor::default();
    let store = std::sync::Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(store, std::sync::Arc::new(|_: &str| None), redactor.clone());
    Engine::open(Paths::under(dir), redactor, secrets)
        .await
        .unwrap()
}

async fn add_http(engine: &Engine, name: &str, ttl_ms: Option<u64>) -> Running {
    let server = mrtr_server::start(Asking {
        ttl_ms,
        ..Asking::default()
    })
    .await;
    let transport = Transport::Http {
        url: server.url.clone(),
        headers: Default::default(),
    };
    engine
        .mcp()
        .add_server(ServerConfig::new(name, transport))
        .await
        .unwrap();
    engine.mcp().start_server(name).await.unwrap();
    server
}

async fn add_everything(engine: &Engine) {
    let js = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(js.exists(), "run scripts/deps.sh test");
    let doc = serde_json::json!({"mcpServers": {"handshake": {
        "command": "node", "args": [js, "stdio"]}}});
    engine
        .mcp()
        .import_servers(&doc.to_string(), Conflict::Skip)
        .await
        .unwrap();
    engine.mcp().start_server("handshake").await.unwrap();
}

/// The median time of one turn's tool discovery on `server`, and how many tools it offers.
async fn median(engine: &Engine, server: &str) -> (Duration, usize) {
    let servers = [server.to_owned()];
    let mut tools = 0;
    for _ in 0..WARM_UP {
        tools = engine.mcp().model_tools(Some(&servers)).await.len();
    }
    let mut times = Vec::with_capacity(TURNS);
    for _ in 0..TURNS {
        let started = Instant::now();
        let listed = engine.mcp().model_tools(Some(&servers)).await;
        times.push(started.elapsed());
        assert_eq!(listed.len(), tools);
    }
    times.sort();
    (times[TURNS / 2], tools)
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine(dir.path()).await;
        let hinted = add_http(&engine, "stateless", Some(3_600_000)).await;
        let unhinted = add_http(&engine, "stateless-no-ttl", None).await;
        add_everything(&engine).await;
        let (stateless, n1) = median(&engine, "stateless").await;
        let (handshake, n2) = median(&engine, "handshake").await;
        let (relist, n3) = median(&engine, "stateless-no-ttl").await;
        let lists = |r: &Running| r.asking.lists.load(Ordering::SeqCst);
        println!("tool discovery per turn, warm cache, median of {TURNS}:");
        println!("  2026-07-28, ttlMs 1 h ({n1} tools):        {stateless:>10.1?}  (tools/list requests in all turns: {})", lists(&hinted) - 1);
        println!("  handshake era, server-everything ({n2} tools): {handshake:>10.1?}");
        println!("  ratio stateless / handshake:                {:.2}", stateless.as_secs_f64() / handshake.as_secs_f64());
        println!("  reference, 2026-07-28 without ttlMs ({n3} tools): {relist:>10.1?}  (tools/list requests: {})", lists(&unhinted) - 1);
        engine.shutdown().await;
    });
}
