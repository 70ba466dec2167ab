//! One full turn — two model calls and one tool call, persisted — against an instant fake
//! OpenAI-compatible model on 127.0.0.1 and seed 003's Python weather server over stdio:
//! Switchboard next to a minimal stdlib Python loop over the same pieces with no persistence
//! (`minimal_loop.py`, the floor) and LangGraph's `create_react_agent` with
//! `langchain-mcp-adapters` (persistent session), side by side in rounds: each round runs
//! `TURNS` turns of each (after `WARMUP` unmeasured ones); the report gives the median and p90
//! of every measured turn, the spread of the round medians, and the ratios per round.
//!
//! `make bench-agent` (creates the LangGraph virtualenv under ~/.cache/switchboard first).
//! `SWITCHBOARD_BENCH_ROUNDS` (default 20) sets the rounds; `BENCH_PHASES=1` also times our
//! turn's phases (tracing spans `turn.*`, see `agent::phase`) and prints them per turn.
//!
//! It also reports the CPU time a turn costs (Linux, from /proc's per-thread accounting): ours
//! is this process's (less the fake model's own thread) and its weather server's over the
//! measured turns; the minimal loop's is its Python process's and its weather server's. On two
//! cores a turn whose CPU time exceeds the floor's cannot be as fast as the floor, however much
//! of its work overlaps.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use axum::body::Body;
use axum::response::Response;
use serde_json::{Value, json};
use switchboard_engine::agent::TurnEnd;
use switchboard_engine::mcp::Conflict;
use switchboard_engine::providers::NewProvider;
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::store::NewConversation;
use switchboard_engine::{Engine, Paths, Redactor, Secrets};

/// Measured turns per contender per round.
const TURNS: usize = 30;
/// Unmeasured turns before them in each round.
const WARMUP: usize = 5;

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

/// The value at fraction `q` of the sorted samples (nearest rank).
fn quantile(v: &[f64], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

fn median(v: &[f64]) -> f64 {
    quantile(v, 0.5)
}

/// Our engine with the weather server running and the fake provider added.
struct Ours {
    engine: Engine,
    provider: String,
    _dir: tempfile::TempDir,
}

async fn open_ours(url: &str, python: &Path, weather: &Path) -> Ours {
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
    let allow = Some(switchboard_engine::vocab::server::Approval::Allow);
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
    Ours {
        engine,
        provider: p.provider.id,
        _dir: dir,
    }
}

/// One turn in a new conversation, in milliseconds.
async fn our_turn(ours: &Ours) -> f64 {
    let new = NewConversation {
        provider_id: Some(ours.provider.clone()),
        model: Some("fake-model".into()),
        ..Default::default()
    };
    let conv = ours.engine.store().create_conversation(new);
    let conv = conv.await.expect("conv");
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
    let end = ours.engine.agent().send_message(&conv.id, prompt, tx);
    let end = end.await.expect("turn");
    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
    drain.await.ok();
    assert_eq!(end, TurnEnd::Done);
    elapsed
}

/// One round of ours: `WARMUP` turns, then `TURNS` measured ones (and their CPU time, ms).
async fn our_round(ours: &Ours) -> (Vec<f64>, f64) {
    for _ in 0..WARMUP {
        our_turn(ours).await;
    }
    phases::reset();
    let cpu = cpu::Ours::now();
    let mut turns = Vec::with_capacity(TURNS);
    for _ in 0..TURNS {
        turns.push(our_turn(ours).await);
    }
    let cpu_ms = cpu.since();
    phases::add_turns(TURNS);
    (turns, cpu_ms)
}

/// CPU time from Linux's per-thread accounting (`/proc/PID/task/TID/schedstat`, nanoseconds on
/// a CPU); threads that end within a round are not counted (none of ours do: the runtime's,
/// SQLite's and the blocking pool's threads live on).
mod cpu {
    use std::sync::OnceLock;

    /// The fake model's thread (`/proc/thread-self` as it names it: `PID/task/TID`).
    pub(crate) static FAKE_THREAD: OnceLock<String> = OnceLock::new();

    fn schedstat(path: &str) -> u64 {
        let text = std::fs::read_to_string(format!("{path}/schedstat")).unwrap_or_default();
        text.split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    /// Every live thread of process `pid`.
    pub(crate) fn process_ns(pid: &str) -> u64 {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return 0;
        };
        (tasks.flatten())
            .map(|t| schedstat(&t.path().to_string_lossy()))
            .sum()
    }

    /// The pids of this process's children whose command line mentions `needle`.
    fn children(needle: &str) -> Vec<String> {
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
            return Vec::new();
        };
        let all: Vec<String> = (tasks.flatten())
            .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
            .flat_map(|c| c.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .collect();
        all.into_iter()
            .filter(|pid| {
                let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                String::from_utf8_lossy(&cmd).contains(needle)
            })
            .collect()
    }

    /// Our side of a turn: this process less the fake model, plus our weather server.
    pub(crate) struct Ours {
        at: u64,
    }

    impl Ours {
        fn total() -> u64 {
            let fake = FAKE_THREAD
                .get()
                .map_or(0, |t| schedstat(&format!("/proc/{t}")));
            let servers: u64 = children("weather.py").iter().map(|p| process_ns(p)).sum();
            process_ns("self") - fake + servers
        }

        pub(crate) fn now() -> Self {
            Self { at: Self::total() }
        }

        /// Milliseconds of CPU since [`Ours::now`].
        pub(crate) fn since(&self) -> f64 {
            Self::total().saturating_sub(self.at) as f64 / 1e6
        }
    }
}

/// One round of a Python peer (`minimal_loop.py`, `langgraph_turn.py`): its measured turns.
fn python_round(
    interpreter: &Path,
    script: &str,
    url: &str,
    python: &Path,
    weather: &Path,
) -> (Vec<f64>, Option<f64>) {
    let out = std::process::Command::new(interpreter)
        .arg(root().join("bench/agent").join(script))
        .arg(url)
        .arg(weather)
        .arg(python)
        .arg(TURNS.to_string())
        .output()
        .expect("python peer");
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("peer output");
    let turns = v["turns_ms"].as_array().expect("turns_ms");
    let turns = turns.iter().filter_map(Value::as_f64).collect();
    (turns, v["cpu_ms"].as_f64())
}

/// Every measured turn of one contender, round by round.
#[derive(Default)]
struct Runs {
    rounds: Vec<Vec<f64>>,
    /// CPU milliseconds per measured turn, per round (when measured).
    cpu: Vec<f64>,
}

impl Runs {
    fn all(&self) -> Vec<f64> {
        self.rounds.iter().flatten().copied().collect()
    }

    fn medians(&self) -> Vec<f64> {
        self.rounds.iter().map(|r| median(r)).collect()
    }

    fn report(&self, name: &str) {
        let all = self.all();
        let m = self.medians();
        let (lo, hi) = (quantile(&m, 0.0), quantile(&m, 1.0));
        println!(
            "{name:<13} median {:6.2} ms  p90 {:6.2} ms  round medians {lo:.2}–{hi:.2} ms  ({} turns, {} rounds)",
            median(&all),
            quantile(&all, 0.9),
            all.len(),
            m.len()
        );
        if !self.cpu.is_empty() {
            let (lo, hi) = (quantile(&self.cpu, 0.0), quantile(&self.cpu, 1.0));
            println!(
                "{:<13} CPU per turn: median {:.2} ms  (rounds {lo:.2}–{hi:.2} ms)",
                "",
                median(&self.cpu)
            );
        }
    }

    fn add(&mut self, (turns, cpu_ms): (Vec<f64>, Option<f64>)) {
        if let Some(cpu) = cpu_ms {
            self.cpu.push(cpu / turns.len().max(1) as f64);
        }
        self.rounds.push(turns);
    }

    /// Ours / theirs: per round (median and p90 of the round ratios) and of the pooled medians.
    fn ratio(&self, theirs: &Runs, name: &str) {
        let per_round: Vec<f64> = (self.medians().iter())
            .zip(theirs.medians())
            .map(|(a, b)| a / b)
            .collect();
        println!(
            "switchboard / {name:<12} per round median {:.3}  p90 {:.3}; of the medians {:.3}",
            median(&per_round),
            quantile(&per_round, 0.9),
            median(&self.all()) / median(&theirs.all())
        );
    }
}

/// Wall time per phase of our turns, from the engine's `turn.*` tracing spans.
mod phases {
    use std::collections::BTreeMap;
    use std::sync::Mutex;
    use std::time::Instant;

    use tracing::span;
    use tracing_subscriber::layer::Context;
    use tracing_subscriber::registry::LookupSpan;

    /// Per span name: total milliseconds and how many closed.
    type Sums = BTreeMap<&'static str, (f64, u64)>;

    /// The sums of the measured turns, and how many turns they cover.
    static TOTALS: Mutex<(Sums, usize)> = Mutex::new((BTreeMap::new(), 0));
    /// The sums since the last [`reset`].
    static PENDING: Mutex<Option<Sums>> = Mutex::new(None);

    /// Sums the wall time of each span, from its creation to its close.
    pub(crate) struct Timer;

    struct Opened(Instant);

    impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Timer {
        fn on_new_span(&self, _: &span::Attributes<'_>, id: &span::Id, ctx: Context<'_, S>) {
            if let Some(span) = ctx.span(id) {
                span.extensions_mut().insert(Opened(Instant::now()));
            }
        }

        fn on_close(&self, id: span::Id, ctx: Context<'_, S>) {
            let Some(span) = ctx.span(&id) else { return };
            let Some(opened) = span.extensions().get::<Opened>().map(|o| o.0) else {
                return;
            };
            let ms = opened.elapsed().as_secs_f64() * 1000.0;
            let mut pending = PENDING.lock().unwrap();
            let e = pending
                .get_or_insert_with(BTreeMap::new)
                .entry(span.metadata().name())
                .or_default();
            e.0 += ms;
            e.1 += 1;
        }
    }

    /// Forgets the spans closed so far (the warm-up's).
    pub(crate) fn reset() {
        PENDING.lock().unwrap().take();
    }

    /// Counts the spans closed since [`reset`] as `turns` measured turns.
    pub(crate) fn add_turns(turns: usize) {
        let pending = PENDING.lock().unwrap().take().unwrap_or_default();
        let mut totals = TOTALS.lock().unwrap();
        for (name, (ms, n)) in pending {
            let e = totals.0.entry(name).or_default();
            e.0 += ms;
            e.1 += n;
        }
        totals.1 += turns;
    }

    /// Prints the mean per turn of each phase, and their sum.
    pub(crate) fn print(turn_median: f64) {
        let totals = TOTALS.lock().unwrap();
        let turns = totals.1.max(1) as f64;
        println!("phases of our turn (mean wall time per turn over {turns} turns):");
        let mut sum = 0.0;
        for (name, (ms, n)) in &totals.0 {
            let per_turn = ms / turns;
            if name.matches('.').count() == 1 {
                sum += per_turn;
            }
            println!(
                "  {name:<22} {per_turn:7.3} ms  ({:.1} spans per turn)",
                *n as f64 / turns
            );
        }
        println!(
            "  {:<22} {sum:7.3} ms  (top-level phases; turn median {turn_median:.2} ms)",
            "sum"
        );
    }
}

fn main() {
    let timing = std::env::var_os("BENCH_PHASES").is_some();
    if timing {
        let spans =
            tracing_subscriber::filter::filter_fn(|m| m.is_span() && m.name().starts_with("turn."));
        let filter = tracing_subscriber::filter::Targets::new()
            .with_target("switchboard_engine", tracing::Level::TRACE);
        tracing_subscriber::registry()
            .with(phases::Timer.with_filter(spans).with_filter(filter))
            .init();
    }
    let rounds: usize = std::env::var("SWITCHBOARD_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let app = axum::Router::new().fallback(axum::routing::post(fake));
        // The fake model runs on a thread of its own, so its CPU time can be left out of ours.
        let std_listener = listener.into_std().expect("listener");
        std::thread::spawn(move || {
            let thread = std::fs::read_link("/proc/thread-self").unwrap_or_default();
            let _ = cpu::FAKE_THREAD.set(thread.to_string_lossy().into_owned());
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("fake model runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
                let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                    let _ = tcp.set_nodelay(true);
                });
                axum::serve(listener, app).await.ok();
            });
        });
        let python = root().join("tests/fixtures/mcp-py/.venv/bin/python");
        let weather = root().join("tests/fixtures/mcp-py/weather.py");
        let langgraph = std::env::var_os("LANGGRAPH_PYTHON").map(PathBuf::from);
        let ours = open_ours(&url, &python, &weather).await;
        let (mut us, mut minimal, mut lg) = (Runs::default(), Runs::default(), Runs::default());
        for round in 0..rounds {
            let (turns, cpu_ms) = our_round(&ours).await;
            us.add((turns, Some(cpu_ms)));
            let (u, p, w) = (url.clone(), python.clone(), weather.clone());
            let floor = tokio::task::spawn_blocking(move || {
                python_round(&p, "minimal_loop.py", &u, &p, &w)
            });
            minimal.add(floor.await.expect("minimal loop"));
            if let Some(venv) = langgraph.clone() {
                let (u, p, w) = (url.clone(), python.clone(), weather.clone());
                let peer = tokio::task::spawn_blocking(move || {
                    python_round(&venv, "langgraph_turn.py", &u, &p, &w)
                });
                lg.add(peer.await.expect("langgraph"));
            }
            eprintln!("round {}/{rounds} done", round + 1);
        }
        ours.engine.shutdown().await;
        us.report("switchboard");
        minimal.report("minimal loop");
        if lg.rounds.is_empty() {
            println!("langgraph: not run (set LANGGRAPH_PYTHON to its venv's python)");
        } else {
            lg.report("langgraph");
        }
        us.ratio(&minimal, "minimal loop");
        if !lg.rounds.is_empty() {
            us.ratio(&lg, "langgraph");
        }
        if timing {
            phases::print(median(&us.all()));
        }
    });
}
