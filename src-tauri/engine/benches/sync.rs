//! Sync at scale: N conversations × 20 messages (English and Chinese) in a real SQLite file,
//! synced through a real WebDAV server (`wsgidav` from the test virtualenv, on 127.0.0.1) and
//! through a folder. Per run: the first sync of the full profile (push), the first sync of an
//! empty second profile (pull), then one message added on the first and an incremental sync on
//! each side. Reports medians over the runs with the spread, and the bytes moved (request and
//! response bodies) and requests made.
//!
//! `make bench-sync` (10,000 conversations, 3 runs); underneath,
//! `SWITCHBOARD_BENCH_CONVERSATIONS=N SWITCHBOARD_BENCH_RUNS=R cargo bench -p
//! switchboard-engine --bench sync`. The source database is built once per size and kept in the
//! target directory (`bench-sync-N.db`); each run syncs a fresh copy.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use secrecy::SecretString;
use switchboard_engine::Store;
use switchboard_engine::store::{MessageStatus, NewMessage, PageRequest, Role};
use switchboard_engine::sync::{FolderRemote, Remote, SyncReport, WebDavRemote, sync_once};
use switchboard_engine::vocab::content::ContentPart;

const MESSAGES: usize = 20;
const TEXTS: &[&str] = &[
    "What is the weather in California this week? I am planning a trip.",
    "加州这周的天气怎么样？我打算去旅行，需要带雨伞吗？",
    "Here is a small script:\n\n```python\nimport requests\nprint(requests.get('https://example.com').status_code)\n```",
    "| day | forecast |\n|---|---|\n| Mon | rain |\n| Tue | sun |",
];

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().replace(['_', ','], "").parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

fn target_dir() -> PathBuf {
    let dir = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Builds the source profile once: multi-row inserts in one transaction.
async fn build(path: &Path, conversations: usize) {
    if path.exists() {
        return;
    }
    let partial = path.with_extension("partial");
    let _ = std::fs::remove_file(&partial);
    let store = Store::open(&partial).await.unwrap();
    drop(store);
    let url = format!("sqlite://{}", partial.display());
    let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    let mut tx = sqlx::Connection::begin(&mut conn).await.unwrap();
    let base = 1_700_000_000_000i64;
    for chunk in (0..conversations).collect::<Vec<_>>().chunks(200) {
        for &n in chunk {
            let c = format!("bench-c{n:06}");
            let at = base + n as i64 * 1000;
            let head = format!("{c}-m{:02}", MESSAGES - 1);
            sqlx::query(
                "INSERT INTO conversations (id, title, created_at, updated_at, settings, head_id) \
                 VALUES (?, ?, ?, ?, '{}', ?)",
            )
            .bind(&c)
            .bind(format!("Conversation {n} 对话"))
            .bind(at)
            .bind(at + MESSAGES as i64)
            .bind(&head)
            .execute(&mut *tx)
            .await
            .unwrap();
            for i in 0..MESSAGES {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                let content =
                    serde_json::json!([{"type": "text", "text": TEXTS[(n + i) % TEXTS.len()]}]);
                sqlx::query(
                    "INSERT INTO messages (id, conversation_id, parent_id, role, content, status, \
                     created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'complete', ?, ?)",
                )
                .bind(format!("{c}-m{i:02}"))
                .bind(&c)
                .bind((i > 0).then(|| format!("{c}-m{:02}", i - 1)))
                .bind(role)
                .bind(content.to_string())
                .bind(at + i as i64)
                .bind(at + i as i64)
                .execute(&mut *tx)
                .await
                .unwrap();
            }
        }
    }
    tx.commit().await.unwrap();
    drop(conn);
    std::fs::rename(&partial, path).unwrap();
}

struct WsgiDav {
    child: Child,
    port: u16,
    _root: tempfile::TempDir,
}

impl WsgiDav {
    fn start() -> Self {
        let root = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let served = root.path().join("dav");
        std::fs::create_dir(&served).unwrap();
        let config = root.path().join("wsgidav.yaml");
        std::fs::write(
            &config,
            format!(
                "host: 127.0.0.1\nport: {port}\nprovider_mapping:\n  \"/\": \"{}\"\n\
                 http_authenticator:\n  domain_controller: null\n  accept_basic: true\n  \
                 accept_digest: false\n  default_to_digest: false\n\
                 simple_dc:\n  user_mapping:\n    \"*\": true\nverbose: 0\nlogging:\n  enable_loggers: []\n",
                served.display()
            ),
        )
        .unwrap();
        let wsgidav = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/mcp-py/.venv/bin/wsgidav");
        let child = Command::new(&wsgidav)
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("wsgidav (run `scripts/deps.sh test` first)");
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "wsgidav did not listen"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Self {
            child,
            port,
            _root: root,
        }
    }

    fn remote(&self) -> WebDavRemote {
        let url = format!("http://127.0.0.1:{}/sync/", self.port);
        WebDavRemote::new(&url, None, None, Duration::from_secs(120)).unwrap()
    }
}

impl Drop for WsgiDav {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One phase's figures over the runs.
#[derive(Default)]
struct Phase {
    secs: Vec<f64>,
    up: Vec<u64>,
    down: Vec<u64>,
    requests: Vec<u64>,
    records: Vec<u64>,
}

impl Phase {
    fn add(&mut self, r: &SyncReport, secs: f64) {
        self.secs.push(secs);
        self.up.push(r.bytes_up);
        self.down.push(r.bytes_down);
        self.requests.push(r.requests);
        self.records.push(r.pulled + r.pushed);
    }
}

fn median<T: Copy + PartialOrd>(v: &[T]) -> T {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[s.len() / 2]
}

fn spread(v: &[f64]) -> (f64, f64) {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(0.0, f64::max);
    (lo, hi)
}

async fn timed(store: &Store, remote: &dyn Remote, phase: &mut Phase) {
    let started = Instant::now();
    let report = sync_once(store, remote, None::<&SecretString>, "bench")
        .await
        .unwrap();
    phase.add(&report, started.elapsed().as_secs_f64());
}

async fn one_more_message(store: &Store) {
    let listed = store
        .list_conversations(&PageRequest::first(1), &Default::default())
        .await
        .unwrap();
    let conv = &listed.items[0];
    store
        .append_as_head(NewMessage {
            conversation_id: conv.id.clone(),
            parent_id: conv.head_id.clone(),
            role: Role::User,
            content: vec![ContentPart::text("And what about next week? 下周呢？")],
            status: MessageStatus::Complete,
            model: None,
        })
        .await
        .unwrap();
}

fn main() {
    let conversations = env_number("SWITCHBOARD_BENCH_CONVERSATIONS", 10_000);
    let runs = env_number("SWITCHBOARD_BENCH_RUNS", 3);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let source = target_dir().join(format!("bench-sync-{conversations}.db"));
    runtime.block_on(build(&source, conversations));
    println!(
        "sync bench: {conversations} conversations × {MESSAGES} messages ({} records), {runs} runs",
        conversations * (MESSAGES + 1)
    );
    for through in ["webdav", "folder"] {
        let names = [
            "first sync, push",
            "first sync, pull",
            "one message, push",
            "one message, pull",
        ];
        let mut phases: Vec<Phase> = names.iter().map(|_| Phase::default()).collect();
        for _ in 0..runs {
            runtime.block_on(async {
                let dir = tempfile::tempdir().unwrap();
                let a_path = dir.path().join("a.db");
                std::fs::copy(&source, &a_path).unwrap();
                let a = Store::open(&a_path).await.unwrap();
                let b = Store::open(&dir.path().join("b.db")).await.unwrap();
                let dav = (through == "webdav").then(WsgiDav::start);
                let remote = || -> Box<dyn Remote> {
                    match &dav {
                        Some(dav) => Box::new(dav.remote()),
                        None => Box::new(FolderRemote::new(dir.path().join("folder"))),
                    }
                };
                timed(&a, remote().as_ref(), &mut phases[0]).await;
                timed(&b, remote().as_ref(), &mut phases[1]).await;
                one_more_message(&a).await;
                timed(&a, remote().as_ref(), &mut phases[2]).await;
                timed(&b, remote().as_ref(), &mut phases[3]).await;
            });
        }
        for (name, p) in names.iter().zip(&phases) {
            let (lo, hi) = spread(&p.secs);
            println!(
                "{through:6} {name:18}: median {:8.3} s (spread {lo:.3}–{hi:.3}), {} records, {} bytes up, {} bytes down, {} requests",
                median(&p.secs),
                median(&p.records),
                median(&p.up),
                median(&p.down),
                median(&p.requests),
            );
        }
    }
}
