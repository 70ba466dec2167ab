//! The built-in model against llama-cpp-python's OpenAI-compatible server, side by side in one
//! run: the same GGUF (the default SmolLM2 from `scripts/deps.sh`), the same thread count (2)
//! and context (4,096), greedy, the same ~1,000-token prompt (varied per run so no cache
//! helps), 128 tokens out. Reports the medians of prompt tokens/s (prompt tokens ÷ time to first
//! token), generated tokens/s (after the first token), the time to first token, a follow-up
//! turn's time to first token (the kept KV cache) against the first's, and resident memory
//! after the runs against the file's size.
//!
//! `make bench-local` (builds llama-cpp-python in a virtualenv under ~/.cache/switchboard
//! first); underneath `SWITCHBOARD_BENCH_RUNS=N cargo bench --bench local`, with the peer's
//! Python in `SWITCHBOARD_LLAMA_PYTHON` (skipped when unset).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::PathBuf;
use std::time::Instant;

use futures::StreamExt;
use serde_json::Value;
use switchboard_engine::local::{LocalProvider, LocalRuntime, ModelsDir, RuntimeOptions};
use switchboard_engine::provider::{
    ChatMessage, ChatRequest, Provider, ProviderEvent, SamplingParams,
};

const THREADS: i32 = 2;
const CONTEXT: u32 = 4096;
const MAX_TOKENS: u32 = 128;

const PARAGRAPH: &str = "The weather service reports the temperature, the wind and the rain for \
each city every hour. Travellers read it before they leave, farmers before they sow, and \
sailors before they sail. When a storm comes, the service warns the coast a day ahead. ";

/// About 1,000 tokens of text and a question about it.
fn prompt() -> String {
    let mut p = PARAGRAPH.repeat(19);
    p.push_str("Summarize the text above in one sentence.");
    p
}

fn model() -> PathBuf {
    let cache = PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/switchboard/models");
    std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "gguf"))
        .expect("run scripts/deps.sh test first")
}

/// One answer's figures.
#[derive(Clone, Copy, Debug)]
struct Run {
    prompt_tokens: f64,
    generated: f64,
    ttft: f64,
    total: f64,
}

impl Run {
    fn prompt_rate(&self) -> f64 {
        self.prompt_tokens / self.ttft
    }
    fn gen_rate(&self) -> f64 {
        (self.generated - 1.0).max(0.0) / (self.total - self.ttft)
    }
}

async fn ask(
    provider: &LocalProvider,
    name: &str,
    messages: Vec<ChatMessage>,
    max: u32,
) -> (Run, String) {
    let req = ChatRequest {
        model: name.into(),
        messages,
        params: SamplingParams {
            temperature: Some(0.0),
            max_tokens: Some(max),
            seed: Some(1),
            ..SamplingParams::default()
        },
        ..ChatRequest::default()
    };
    let start = Instant::now();
    let mut stream = provider.stream(req).await.unwrap();
    let (mut first, mut text, mut usage) = (None, String::new(), None);
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            ProviderEvent::TextDelta { text: t } => {
                first.get_or_insert_with(|| start.elapsed().as_secs_f64());
                text.push_str(&t);
            }
            ProviderEvent::Usage { usage: u } => usage = Some(u),
            _ => {}
        }
    }
    let usage = usage.expect("no usage");
    let run = Run {
        prompt_tokens: usage.input_tokens as f64,
        generated: usage.output_tokens as f64,
        ttft: first.unwrap_or(f64::NAN),
        total: start.elapsed().as_secs_f64(),
    };
    (run, text)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn rss_kib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Ours: (runs, follow-up time to first token, RSS in KiB).
async fn ours(gguf: &PathBuf, runs: usize) -> (Vec<Run>, f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    let name = gguf.file_name().unwrap().to_str().unwrap().to_owned();
    std::os::unix::fs::symlink(gguf, models.join(&name)).unwrap();
    let runtime = LocalRuntime::start(RuntimeOptions {
        max_context: CONTEXT,
        threads: Some(THREADS),
        ..RuntimeOptions::default()
    })
    .unwrap();
    let provider = LocalProvider::new(runtime, ModelsDir::new(models));
    ask(&provider, &name, vec![ChatMessage::user("Hi")], 4).await; // loads the model
    let (mut all, mut follow) = (Vec::new(), f64::NAN);
    for i in 0..runs {
        let question = ChatMessage::user(format!("Run {i}. {}", prompt()));
        let (run, text) = ask(&provider, &name, vec![question.clone()], MAX_TOKENS).await;
        all.push(run);
        if i == runs - 1 {
            let history = vec![
                question,
                ChatMessage::Assistant {
                    text,
                    tool_calls: Vec::new(),
                },
                ChatMessage::user("Say that again, shorter."),
            ];
            follow = ask(&provider, &name, history, 8).await.0.ttft;
        }
    }
    (all, follow, rss_kib())
}

/// The peer's runs, from `bench/local/llama_cpp_python.py`.
fn theirs(python: &str, gguf: &PathBuf, runs: usize) -> (Vec<Run>, f64, f64) {
    let prompt_file = std::env::temp_dir().join("switchboard-bench-local-prompt.txt");
    std::fs::write(&prompt_file, prompt()).unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/bench/local/llama_cpp_python.py"
    );
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(gguf)
        .args([THREADS.to_string(), CONTEXT.to_string(), runs.to_string()])
        .arg(&prompt_file)
        .arg(MAX_TOKENS.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Run {
            prompt_tokens: r["prompt_tokens"].as_f64().unwrap_or(f64::NAN),
            generated: r["generated"].as_f64().unwrap(),
            ttft: r["ttft_s"].as_f64().unwrap(),
            total: r["total_s"].as_f64().unwrap(),
        })
        .collect();
    (
        all,
        v["follow_ttft_s"].as_f64().unwrap(),
        v["rss_kib"].as_f64().unwrap(),
    )
}

fn report(label: &str, runs: &[Run], follow: f64, rss: f64) -> [f64; 3] {
    let p = median(runs.iter().map(Run::prompt_rate).collect());
    let g = median(runs.iter().map(Run::gen_rate).collect());
    let t = median(runs.iter().map(|r| r.ttft).collect());
    let spread = |f: fn(&Run) -> f64| {
        let v: Vec<f64> = runs.iter().map(f).collect();
        let (lo, hi) = (
            v.iter().copied().fold(f64::MAX, f64::min),
            v.iter().copied().fold(0.0, f64::max),
        );
        format!("{lo:.3}–{hi:.3}")
    };
    println!(
        "{label:<18} prompt {p:>7.1} tok/s  generate {g:>6.1} tok/s  first token {t:.3} s ({} s)  \
         follow-up first token {follow:.3} s ({:.2}× the first)  RSS {:.0} MiB  prompt {} tokens",
        spread(|r| r.ttft),
        follow / t,
        rss / 1024.0,
        runs[0].prompt_tokens
    );
    [p, g, t]
}

fn main() {
    let runs: usize = std::env::var("SWITCHBOARD_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let gguf = model();
    let size = std::fs::metadata(&gguf).unwrap().len() as f64 / 1048576.0;
    println!(
        "{} ({size:.0} MiB), {THREADS} threads, context {CONTEXT}, {MAX_TOKENS} tokens out, median of {runs} runs",
        gguf.display()
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (r, f, m) = rt.block_on(ours(&gguf, runs));
    let a = report("switchboard", &r, f, m);
    let Ok(python) = std::env::var("SWITCHBOARD_LLAMA_PYTHON") else {
        println!("(no SWITCHBOARD_LLAMA_PYTHON: llama-cpp-python skipped)");
        return;
    };
    let (r, f, m) = theirs(&python, &gguf, runs);
    let b = report("llama-cpp-python", &r, f, m);
    println!(
        "ratios (switchboard ÷ llama-cpp-python): prompt {:.2}×, generate {:.2}×, first token {:.2}× (lower is better)",
        a[0] / b[0],
        a[1] / b[1],
        a[2] / b[2]
    );
}
