//! The built-in model's time to first token through the local server's OpenAI-compatible API
//! (`POST /v1/chat/completions`, streamed, model `local`, a client's token) against the in-app
//! path (the agent's turn in a conversation, as the window starts it: `send_message`, up to its
//! first text event), in one process over one engine, one model and one loaded runtime. The two
//! alternate, each question new (its run number first, so no cached prefix helps either), 8
//! tokens out, greedy. Prints each side's median and spread and the median of the per-pair
//! differences (API − in-app), in milliseconds.
//!
//! `make bench-serve-ttft`; underneath `SWITCHBOARD_BENCH_RUNS=N cargo bench --bench serve_ttft`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::PathBuf;
use std::time::Instant;

use futures::StreamExt;
use serde_json::json;
use switchboard_engine::agent::{ChatEvent, ChatSettings};
use switchboard_engine::mcp::Gateway;
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::store::{ConversationPatch, NewConversation};
use switchboard_engine::{Engine, Paths, Redactor, Secrets};
use tokio_util::sync::CancellationToken;

const OUT_TOKENS: u32 = 8;

fn gguf() -> PathBuf {
    let home = PathBuf::from(std::env::var("HOME").unwrap());
    let path = home.join(".cache/switchboard/models/SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(path.is_file(), "run scripts/deps.sh test first");
    path
}

fn question(run: usize) -> String {
    format!(
        "Run {run}. In one sentence, why do travellers read the weather report before they leave?"
    )
}

/// The in-app path: a turn in a new conversation of the built-in model, up to its first text.
async fn in_app(engine: &Engine, provider: &str, run: usize) -> f64 {
    let new = NewConversation {
        provider_id: Some(provider.to_owned()),
        ..Default::default()
    };
    let conv = engine.store().create_conversation(new).await.unwrap();
    let settings = ChatSettings {
        max_output_tokens: Some(OUT_TOKENS),
        temperature: Some(0.0),
        ..Default::default()
    };
    let patch = ConversationPatch {
        settings: Some(serde_json::to_value(settings).unwrap()),
        ..Default::default()
    };
    engine
        .store()
        .update_conversation(&conv.id, patch)
        .await
        .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let started = Instant::now();
    let agent = engine.agent().clone();
    let id = conv.id.clone();
    let text = question(run);
    let turn = tokio::spawn(async move { agent.send_message(&id, &text, tx).await });
    let mut first = None;
    while let Some(event) = rx.recv().await {
        if first.is_none()
            && matches!(&event, ChatEvent::TextDelta { text, .. } if !text.is_empty())
        {
            first = Some(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    turn.await.unwrap().unwrap();
    first.expect("the model wrote no text")
}

/// The API path: a streamed chat completion of model `local`, up to its first content chunk.
async fn through_api(http: &reqwest::Client, url: &str, token: &str, run: usize) -> f64 {
    let body = json!({
        "model": "local",
        "stream": true,
        "max_tokens": OUT_TOKENS,
        "temperature": 0.0,
        "messages": [{"role": "user", "content": question(run)}],
    });
    let started = Instant::now();
    let response = http
        .post(url)
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let mut stream = response.bytes_stream();
    let mut seen = String::new();
    let mut first = None;
    while let Some(chunk) = stream.next().await {
        seen.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
        if first.is_none() && has_text(&seen) {
            first = Some(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    first.unwrap_or_else(|| panic!("no content in {seen}"))
}

/// Whether a whole `data:` event of the stream so far carries text (a chunk whose
/// `choices[0].delta.content` is not empty; the first chunk names the role only).
fn has_text(stream: &str) -> bool {
    stream
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<serde_json::Value>(data).ok())
        .any(|event| {
            event["choices"][0]["delta"]["content"]
                .as_str()
                .is_some_and(|text| !text.is_empty())
        })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn spread(v: &[f64]) -> String {
    let lo = v.iter().copied().fold(f64::MAX, f64::min);
    let hi = v.iter().copied().fold(f64::MIN, f64::max);
    format!("{:.1} ms ({lo:.1}–{hi:.1})", median(v.to_vec()))
}

async fn bench(runs: usize) {
    let dir = tempfile::tempdir().unwrap();
    let redactor = Redactor::default();
    let keys = std::sync::Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(keys, std::sync::Arc::new(|_: &str| None), redactor.clone());
    let engine = Engine::open(Paths::under(dir.path()), redactor, secrets)
        .await
        .unwrap();
    let off = serde_json::Value::Bool(false);
    let titles = engine
        .store()
        .set_setting(switchboard_engine::agent::title::AUTO_TITLE, &off);
    titles.await.unwrap();
    engine
        .providers()
        .provide_default_model(&gguf())
        .await
        .unwrap()
        .expect("the model");
    let provider = engine
        .providers()
        .ensure_local_provider()
        .await
        .unwrap()
        .provider
        .id;
    let (_, token) = engine
        .store()
        .add_serve_client("bench", None)
        .await
        .unwrap();
    let stop = CancellationToken::new();
    let gateway = Gateway::new(engine.mcp().clone());
    let endpoint =
        switchboard_engine::mcp::serve_http(gateway, 0, stop.clone(), engine.api_routes());
    let endpoint = endpoint.await.unwrap();
    let url = format!("http://{}/v1/chat/completions", endpoint.addr());
    let http = reqwest::Client::new();
    // Warm both paths (the model loads on the first).
    for run in 0..3 {
        in_app(&engine, &provider, 10_000 + run).await;
        through_api(&http, &url, &token, 20_000 + run).await;
    }
    let (mut ours, mut api, mut diffs) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        // Alternate which goes first, so neither always follows the other.
        let (a, b) = if run % 2 == 0 {
            let a = in_app(&engine, &provider, run).await;
            (a, through_api(&http, &url, &token, run).await)
        } else {
            let b = through_api(&http, &url, &token, run).await;
            (in_app(&engine, &provider, run).await, b)
        };
        ours.push(a);
        api.push(b);
        diffs.push(b - a);
    }
    stop.cancel();
    println!("built-in model (SmolLM2-135M Q4_1), {OUT_TOKENS} tokens out, {runs} pairs:");
    println!("  in-app turn, first text        {}", spread(&ours));
    println!("  /v1/chat/completions, first    {}", spread(&api));
    println!("  API − in-app, median of pairs  {}", spread(&diffs));
}

fn main() {
    let runs: usize = std::env::var("SWITCHBOARD_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(bench(runs));
}
