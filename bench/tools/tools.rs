//! The built-in model's side of `make bench-tools` (the Berkeley Function Calling Leaderboard's
//! cases): Switchboard's `LocalProvider` answers each case of a JSONL file (written by
//! `bench/tools/bfcl.py cases`: the case's messages and its functions as OpenAI tools, names
//! already `.`→`_` as bfcl-eval's OpenAI handlers send them) with the tools offered, greedy,
//! and the answers are written as JSONL for `bfcl.py score` to check with BFCL's own checker:
//! `{id, category, calls: [{name, arguments}], text, unparsed, seconds, generated_tokens}`.
//! `unparsed` holds the calls that did not parse: the provider's `ToolCallInvalid` events and
//! text that looks like a call (a `<tool_call>` tag, a `{"name": …` or `{"tool": …` object,
//! an `"arguments"` key, an offered tool's name followed by `(`) but did not become one.
//!
//! Rows (`SWITCHBOARD_TOOLS_ROWS`, comma-separated, default all):
//! - `held`: the request as the app sends it (`switchboard.jsonl`);
//! - `unheld`: the same with `"switchboard_hold_calls": false` in the request's extra fields,
//!   the call grammar off (`switchboard-unheld.jsonl`);
//! - `cost`: the held decoding cost (`held-cost.json`): generated tokens per second on the
//!   same prompts (the first `SWITCHBOARD_TOOLS_COST_CASES` cases, 3) with and without the
//!   grammar, the prompt already in the KV cache (a warm-up answer first), the two
//!   alternating; medians of `SWITCHBOARD_BENCH_RUNS` (5) each.
//!
//! Inputs: `SWITCHBOARD_TOOLS_GGUF` (the model), `SWITCHBOARD_TOOLS_CASES` (the JSONL),
//! `SWITCHBOARD_TOOLS_OUT` (the folder written), `SWITCHBOARD_TOOLS_MAX_TOKENS` (384),
//! `SWITCHBOARD_TOOLS_CALL_RATIO` (the held row's first-decision ratio; the app's when unset —
//! set only to choose it on `live_simple` and `live_irrelevance`),
//! `SWITCHBOARD_TOOLS_THREADS` (2). A 4,096-token context, as `make bench-local` and the
//! llama-cpp-python peer (`bench/tools/llama_server.py`), with the same threads. Run through `make bench-tools` (`bench/tools/run.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use futures::StreamExt;
use serde_json::{Map, Value, json};
use switchboard_engine::local::{LocalProvider, LocalRuntime, ModelsDir, RuntimeOptions};
use switchboard_engine::provider::{
    ChatMessage, ChatRequest, Provider, ProviderEvent, SamplingParams, ToolSpec,
};

/// Threads when `SWITCHBOARD_TOOLS_THREADS` does not say (both runtimes use the same).
const THREADS: i32 = 2;
const CONTEXT: u32 = 4096;
/// Tokens per answer in the held-cost measurement.
const COST_TOKENS: u32 = 128;

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    env(name).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// One BFCL case as `bfcl.py cases` wrote it.
struct Case {
    id: String,
    category: String,
    system: Option<String>,
    messages: Vec<ChatMessage>,
    tools: Vec<ToolSpec>,
}

fn read_cases(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let mut system = None;
            let mut messages = Vec::new();
            for m in v["messages"].as_array().unwrap() {
                let content = m["content"].as_str().unwrap_or_default().to_owned();
                match m["role"].as_str().unwrap_or("user") {
                    "system" => system = Some(content),
                    "assistant" => messages.push(ChatMessage::Assistant {
                        text: content,
                        tool_calls: Vec::new(),
                    }),
                    _ => messages.push(ChatMessage::user(content)),
                }
            }
            let tools = v["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    let f = &t["function"];
                    ToolSpec {
                        name: f["name"].as_str().unwrap().to_owned(),
                        description: f["description"].as_str().unwrap_or_default().to_owned(),
                        parameters: f["parameters"].clone(),
                    }
                })
                .collect();
            Case {
                id: v["id"].as_str().unwrap().to_owned(),
                category: v["category"].as_str().unwrap().to_owned(),
                system,
                messages,
                tools,
            }
        })
        .collect()
}

/// How a row's requests are decoded.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// As the app sends them.
    Held,
    /// The call grammar off.
    Unheld,
}

impl Mode {
    fn label(self) -> &'static str {
        match self {
            Self::Held => "held",
            Self::Unheld => "unheld",
        }
    }
}

fn request(model: &str, case: &Case, max_tokens: u32, mode: Mode) -> ChatRequest {
    let mut extra = Map::new();
    match mode {
        Mode::Held => {
            if let Some(r) = env("SWITCHBOARD_TOOLS_CALL_RATIO").and_then(|r| r.parse::<f64>().ok())
            {
                extra.insert("switchboard_call_ratio".into(), json!(r));
            }
        }
        Mode::Unheld => {
            extra.insert("switchboard_hold_calls".into(), Value::Bool(false));
        }
    }
    ChatRequest {
        model: model.into(),
        system: case.system.clone(),
        messages: case.messages.clone(),
        tools: case.tools.clone(),
        params: SamplingParams {
            temperature: Some(0.0),
            max_tokens: Some(max_tokens),
            seed: Some(1),
            ..SamplingParams::default()
        },
        extra,
        ..ChatRequest::default()
    }
}

/// One answer, collected.
struct Answer {
    calls: Vec<Value>,
    text: String,
    invalid: Vec<Value>,
    seconds: f64,
    generated: u64,
    finish: String,
    error: Option<String>,
}

async fn answer(provider: &LocalProvider, req: ChatRequest) -> Answer {
    let start = Instant::now();
    let mut out = Answer {
        calls: Vec::new(),
        text: String::new(),
        invalid: Vec::new(),
        seconds: 0.0,
        generated: 0,
        finish: String::new(),
        error: None,
    };
    match provider.stream(req).await {
        Err(e) => out.error = Some(e.to_string()),
        Ok(mut stream) => {
            while let Some(event) = stream.next().await {
                match event {
                    Ok(ProviderEvent::TextDelta { text }) => out.text.push_str(&text),
                    Ok(ProviderEvent::ToolCall { call }) => out
                        .calls
                        .push(json!({ "name": call.name, "arguments": call.arguments })),
                    Ok(ProviderEvent::ToolCallInvalid {
                        name, raw, error, ..
                    }) => out
                        .invalid
                        .push(json!({ "name": name, "raw": raw, "error": error })),
                    Ok(ProviderEvent::Usage { usage }) => out.generated = usage.output_tokens,
                    Ok(ProviderEvent::Finish { reason }) => out.finish = format!("{reason:?}"),
                    Ok(ProviderEvent::ReasoningDelta { .. }) => {}
                    Err(e) => {
                        out.error = Some(e.to_string());
                        break;
                    }
                }
            }
        }
    }
    out.seconds = start.elapsed().as_secs_f64();
    out
}

/// Text that looks like a tool call but did not become one: a `<tool_call>` tag, a JSON
/// object opening with a `"name"`, `"function"`, `"tool"` or `"tool_name"` key or holding an
/// `"arguments"` key, or an offered tool's name followed by `(` (a call written as code).
fn call_like(text: &str, tools: &[ToolSpec]) -> Vec<Value> {
    let mut found = Vec::new();
    if text.contains("<tool_call>") {
        found.push("<tool_call> tag");
    }
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let keys = [
        "{\"name\":",
        "{\"function\":",
        "{\"tool\":",
        "{\"tool_name\":",
        "\"arguments\":",
    ];
    if keys.iter().any(|k| squeezed.contains(k)) {
        found.push("JSON object naming a function or giving arguments");
    }
    let named = tools
        .iter()
        .any(|t| squeezed.contains(&format!("{}(", t.name)));
    if named {
        found.push("an offered tool's name followed by (");
    }
    found
        .into_iter()
        .map(|why| json!({ "raw": text, "error": format!("text looks like a call: {why}") }))
        .collect()
}

fn run_row(
    rt: &tokio::runtime::Runtime,
    provider: &LocalProvider,
    model: &str,
    cases: &[Case],
    max_tokens: u32,
    mode: Mode,
    path: &Path,
) {
    let label = mode.label();
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let started = Instant::now();
    for (i, case) in cases.iter().enumerate() {
        let a = rt.block_on(answer(provider, request(model, case, max_tokens, mode)));
        let mut unparsed = a.invalid;
        if a.calls.is_empty() {
            unparsed.extend(call_like(&a.text, &case.tools));
        }
        let line = json!({
            "id": case.id,
            "category": case.category,
            "calls": a.calls,
            "text": a.text,
            "unparsed": unparsed,
            "seconds": a.seconds,
            "generated_tokens": a.generated,
            "finish": a.finish,
            "error": a.error,
        });
        writeln!(file, "{line}").unwrap();
        if (i + 1) % 10 == 0 || i + 1 == cases.len() {
            file.flush().unwrap();
            eprintln!(
                "  switchboard ({label}): {}/{} cases, {:.0} s",
                i + 1,
                cases.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Generated tokens per second with and without the call grammar, the prompt cached.
fn held_cost(
    rt: &tokio::runtime::Runtime,
    provider: &LocalProvider,
    model: &str,
    cases: &[Case],
    path: &Path,
) {
    let runs: usize = env_num("SWITCHBOARD_BENCH_RUNS", 5).max(1);
    let n: usize = env_num("SWITCHBOARD_TOOLS_COST_CASES", 3).max(1);
    let chosen: Vec<&Case> = cases
        .iter()
        .filter(|c| c.category == "simple")
        .chain(cases.iter().filter(|c| c.category != "simple"))
        .take(n)
        .collect();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    let mut prompts = Vec::new();
    for case in chosen {
        let mut calls = [0usize; 2];
        for mode in [Mode::Held, Mode::Unheld] {
            rt.block_on(answer(provider, request(model, case, COST_TOKENS, mode)));
        }
        for _ in 0..runs {
            for (k, mode) in [Mode::Held, Mode::Unheld].into_iter().enumerate() {
                let a = rt.block_on(answer(provider, request(model, case, COST_TOKENS, mode)));
                let rate = a.generated as f64 / a.seconds;
                calls[k] += a.calls.len();
                if mode == Mode::Held {
                    with.push(rate);
                } else {
                    without.push(rate);
                }
            }
        }
        prompts.push(json!({ "id": case.id, "calls_held": calls[0], "calls_unheld": calls[1] }));
    }
    let (w, wo) = (median(with.clone()), median(without.clone()));
    let out = json!({
        "runs_per_prompt": runs,
        "max_tokens": COST_TOKENS,
        "prompts": prompts,
        "held_tokens_per_s": w,
        "unheld_tokens_per_s": wo,
        "held_over_unheld": w / wo,
        "held_samples": with,
        "unheld_samples": without,
    });
    std::fs::write(path, serde_json::to_string_pretty(&out).unwrap()).unwrap();
    eprintln!(
        "  held decoding cost: {w:.1} tok/s held, {wo:.1} tok/s unheld ({:.2}×)",
        w / wo
    );
}

fn main() {
    // RUST_LOG=switchboard_engine::local::decode=debug shows the decoder's decisions.
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    let gguf = PathBuf::from(env("SWITCHBOARD_TOOLS_GGUF").expect("SWITCHBOARD_TOOLS_GGUF"));
    let cases = read_cases(Path::new(
        &env("SWITCHBOARD_TOOLS_CASES").expect("SWITCHBOARD_TOOLS_CASES"),
    ));
    let out = PathBuf::from(env("SWITCHBOARD_TOOLS_OUT").expect("SWITCHBOARD_TOOLS_OUT"));
    std::fs::create_dir_all(&out).unwrap();
    let max_tokens: u32 = env_num("SWITCHBOARD_TOOLS_MAX_TOKENS", 384);
    let rows = env("SWITCHBOARD_TOOLS_ROWS").unwrap_or_else(|| "held,unheld,cost".into());
    let rows: Vec<&str> = rows.split(',').map(str::trim).collect();
    let threads: i32 = env_num("SWITCHBOARD_TOOLS_THREADS", THREADS);

    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    let name = gguf.file_name().unwrap().to_str().unwrap().to_owned();
    std::os::unix::fs::symlink(std::fs::canonicalize(&gguf).unwrap(), models.join(&name)).unwrap();
    let runtime = LocalRuntime::start(RuntimeOptions {
        max_context: CONTEXT,
        threads: Some(threads),
        ..RuntimeOptions::default()
    })
    .unwrap();
    let provider = LocalProvider::new(runtime, ModelsDir::new(models));
    let rt = tokio::runtime::Runtime::new().unwrap();
    // Loads the model, so that the first case's time is its answer's.
    let warm = ChatRequest {
        model: name.clone(),
        messages: vec![ChatMessage::user("Hi")],
        params: SamplingParams {
            temperature: Some(0.0),
            max_tokens: Some(2),
            ..SamplingParams::default()
        },
        ..ChatRequest::default()
    };
    let loaded = rt.block_on(answer(&provider, warm));
    assert!(loaded.error.is_none(), "{:?}", loaded.error);
    eprintln!(
        "switchboard: {} ({} cases, {max_tokens} tokens at most, {threads} threads, context {CONTEXT})",
        gguf.display(),
        cases.len()
    );
    if rows.contains(&"held") {
        let path = out.join("switchboard.jsonl");
        run_row(&rt, &provider, &name, &cases, max_tokens, Mode::Held, &path);
    }
    if rows.contains(&"unheld") {
        let path = out.join("switchboard-unheld.jsonl");
        run_row(
            &rt,
            &provider,
            &name,
            &cases,
            max_tokens,
            Mode::Unheld,
            &path,
        );
    }
    if rows.contains(&"cost") {
        held_cost(&rt, &provider, &name, &cases, &out.join("held-cost.json"));
    }
}
