//! One full turn — two model calls and one tool call, persisted — against an instant fake
//! OpenAI-compatible model on 127.0.0.1 and seed 003's Python weather server over stdio:
//! Switchboard's median next to LangGraph's `create_react_agent` with
//! `langchain-mcp-adapters` (persistent session) on the same fake model and server.
//!
//! `make bench-agent` (creates the LangGraph virtualenv under ~/.cache/switchboard first).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use axum::body::Body;
use axum::response::Response;
use serde_json::{Value, json};
use switchboard_engine::agent::TurnEnd;
use switchboard_engine::mcp::Conflict;
use switchboard_engine::providers::NewProvider;
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::store::NewConversation;
use switchboard_engine::{Engine, Paths, Redactor, Secrets};

const TURNS: usize = 60;

/// The fake model: a user message last → call the weather tool; a tool result last → answer.
async fn fake(body: axum::body::Bytes) -> Response {
    let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let last = req["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or(Value::Null);
    let tool = req["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str())
        .find(|n| n.contains("get_weather"))
        .unwrap_or("get_weather")
        .to_owned();
    let chunk = |delta: Value, finish: Value| {
        let c = json!({"id": "x", "object": "chat.completion.chunk", "created": 0,
            "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {c}\n\n")
    };
    let mut out = String::new();
    if last["role"] == "tool" {
        let text = json!({"role": "assistant", "content": "It's always raining in California."});
        out += &chunk(text, Value::Null);
        out += &chunk(json!({}), json!("stop"));
    } else {
        let tc = json!([{"index": 0, "id": "call_w", "type": "function",
            "function": {"name": tool, "arguments": "{\"location\": \"California\"}"}}]);
        out += &chunk(json!({"role": "assistant", "tool_calls": tc}), Value::Null);
        out += &chunk(json!({}), json!("tool_calls"));
    }
    out += "data: [DONE]\n\n";
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from(out))
        .unwrap_or_default()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

async fn ours(url: &str, python: &Path, weather: &Path) -> Vec<f64> {
    let dir = tempfile::tempdir().expect("tempdir");
    let redactor = Redactor::default();
    let store = std::sync::Arc::new(KeyringSecrets::mock().expect("keyring"));
    let secrets = Secrets::new(store, std::sync::Arc::new(|_: &str| None), redactor.clone());
    let paths = Paths::under(dir.path());
    let engine = Engine::open(paths, redactor, secrets)
        .await
        .expect("engine");
    let doc = json!({"mcpServers": {"weather": {"command": python,
        "args": [weather, "stdio"], "approval": "allow"}}});
    let doc = doc.to_string();
    let imported = engine.mcp().import_servers(&doc, Conflict::Skip);
    imported.await.expect("import");
    engine
        .mcp()
        .start_server("weather")
        .await
        .expect("weather server");
    // One turn is two model calls and one tool call: no title call afterwards.
    let off = serde_json::Value::Bool(false);
    let titles = engine
        .store()
        .set_setting(switchboard_engine::agent::title::AUTO_TITLE, &off);
    titles.await.expect("setting");
    // An unannotated tool counts as destructive and is asked about; allow it explicitly.
    let allow = Some(switchboard_engine::mcp::Approval::Allow);
    let policy = engine
        .mcp()
        .set_tool_policy("weather", "get_weather", allow);
    policy.await.expect("tool policy");
    let provider = NewProvider {
        name: "fake".into(),
        preset: "openai-compatible".into(),
        base_url: Some(format!("{url}/v1")),
        ..Default::default()
    };
    let p = engine
        .providers()
        .add_provider(provider)
        .await
        .expect("provider");
    let mut turns = Vec::new();
    for i in 0..TURNS + 5 {
        let new = NewConversation {
            provider_id: Some(p.provider.id.clone()),
            model: Some("fake-model".into()),
            ..Default::default()
        };
        let conv = engine.store().create_conversation(new).await.expect("conv");
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let drain = tokio::spawn(async move {
            while let Some(e) = rx.recv().await {
                if std::env::var_os("BENCH_TRACE").is_some() {
                    eprintln!("{e:?}");
                }
            }
        });
        let started = Instant::now();
        let prompt = "What is the weather in California?";
        let end = engine
            .agent()
            .send_message(&conv.id, prompt, tx)
            .await
            .expect("turn");
        let elapsed = started.elapsed().as_secs_f64() * 1000.0;
        drain.await.ok();
        assert_eq!(end, TurnEnd::Done);
        if i >= 5 {
            turns.push(elapsed);
        }
    }
    engine.shutdown().await;
    turns
}

fn langgraph(url: &str, python: &Path, weather: &Path) -> Option<Vec<f64>> {
    let venv = std::env::var_os("LANGGRAPH_PYTHON").map(PathBuf::from)?;
    let script = root().join("bench/agent/langgraph_turn.py");
    let out = std::process::Command::new(venv)
        .arg(script)
        .arg(url)
        .arg(weather)
        .arg(python)
        .arg(TURNS.to_string())
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!("langgraph failed: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let v: Value = serde_json::from_slice(&out.stdout).ok()?;
    let turns = v["turns_ms"].as_array()?;
    Some(turns.iter().filter_map(Value::as_f64).collect())
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let app = axum::Router::new().fallback(axum::routing::post(fake));
        tokio::spawn(async move { axum::serve(listener, app).await.ok() });
        let python = root().join("tests/fixtures/mcp-py/.venv/bin/python");
        let weather = root().join("tests/fixtures/mcp-py/weather.py");
        let ours = ours(&url, &python, &weather).await;
        let ours_med = median(ours.clone());
        println!(
            "switchboard: median {ours_med:.2} ms per turn ({} turns)",
            ours.len()
        );
        let (u, p, w) = (url.clone(), python.clone(), weather.clone());
        let theirs = tokio::task::spawn_blocking(move || langgraph(&u, &p, &w));
        match theirs.await.ok().flatten() {
            Some(t) => {
                let m = median(t.clone());
                println!("langgraph:   median {m:.2} ms per turn ({} turns)", t.len());
                println!("ratio switchboard / langgraph: {:.3}", ours_med / m);
            }
            None => println!("langgraph: not run (set LANGGRAPH_PYTHON to its venv's python)"),
        }
    });
}
