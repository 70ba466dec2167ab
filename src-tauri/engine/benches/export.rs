//! Export and import at scale: N conversations × 50 messages (English and Chinese text, code,
//! a tool call and its result every ten messages) in a real SQLite file. Reports the median
//! of several runs for exporting every conversation as JSON, Markdown and HTML, and for
//! importing the JSON back into an empty database, with messages per second, the process's
//! peak memory in each phase (the writers hold two batches of 32 conversations at most; the
//! importer streams the file, holding a queue of 8 conversations), and a digest of each format's
//! output (to check that a change leaves the bytes as they were).
//!
//! `make bench-export` (1,000 conversations) or `make bench-export CONVERSATIONS=10000`;
//! underneath, `SWITCHBOARD_BENCH_CONVERSATIONS=N SWITCHBOARD_BENCH_RUNS=R cargo bench -p
//! switchboard-engine --bench export`. `SWITCHBOARD_BENCH_ONLY=md,html` runs only those
//! phases (`json`, `md`, `html`, `import`; the import needs the JSON export, which it makes);
//! `SWITCHBOARD_BENCH_OUT=/dev/shm` writes the exports and import databases there (memory,
//! not disk). The source database is built once per size with multi-row inserts and kept in
//! the target directory (`bench-export-N.db`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use sqlx::{Connection, SqliteConnection};
use switchboard_engine::Store;
use switchboard_engine::export::{ExportFormat, ExportRequest, ExportScope, export, import_file};
use switchboard_engine::store::{Conversation, Message, MessageStatus, Role};
use switchboard_engine::vocab::content::ContentPart;

const MESSAGES: usize = 50;

const TEXTS: &[&str] = &[
    "What is the weather in California this week? I am planning a trip.",
    "加州这周的天气怎么样？我打算去旅行，需要带雨伞吗？",
    "Here is a small script:\n\n```python\nimport requests\nprint(requests.get('https://example.com').status_code)\n```\n\nIt prints the **status code**.",
    "| day | forecast |\n|---|---|\n| Mon | rain |\n| Tue | sun |\n\nThat is the forecast for the next two days.",
];

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().replace(['_', ','], "").parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

fn message(c: &str, i: usize, parent: Option<String>) -> Message {
    let id = format!("{c}-m{i:02}");
    let (role, content) = match i % 10 {
        3 => (
            Role::Assistant,
            vec![ContentPart::ToolCall {
                id: format!("{id}-call"),
                server: "weather".into(),
                tool: "get_weather".into(),
                arguments: json!({"location": "California", "days": 7}),
            }],
        ),
        4 => (
            Role::Tool,
            vec![ContentPart::ToolResult {
                call_id: format!("{c}-m{:02}-call", i - 1),
                content: json!({"content": [{"type": "text", "text": "It's always raining in California"}], "structured": null, "is_error": false}),
                is_error: false,
            }],
        ),
        n if n % 2 == 0 => (Role::User, vec![ContentPart::text(TEXTS[i % TEXTS.len()])]),
        _ => (
            Role::Assistant,
            vec![ContentPart::text(TEXTS[(i + 2) % TEXTS.len()])],
        ),
    };
    Message {
        id,
        conversation_id: c.into(),
        parent_id: parent,
        role,
        content,
        status: MessageStatus::Complete,
        model: (role == Role::Assistant).then(|| "qwen2.5:3b".to_owned()),
        usage: None,
        error: None,
        created_at: 1_751_935_438_000 + i as i64 * 1000,
        updated_at: 1_751_935_438_000 + i as i64 * 1000,
    }
}

fn conversation(n: usize) -> (Conversation, Vec<Message>) {
    let c = format!("conv-{n:04}");
    let mut messages: Vec<Message> = Vec::with_capacity(MESSAGES);
    for i in 0..MESSAGES {
        let parent = messages.last().map(|m| m.id.clone());
        messages.push(message(&c, i, parent));
    }
    let conversation = Conversation {
        id: c.clone(),
        title: if n.is_multiple_of(2) {
            format!("Weather trip {n}")
        } else {
            format!("加州天气 {n}")
        },
        created_at: 1_751_935_438_000 + n as i64,
        updated_at: 1_751_935_438_000 + n as i64,
        pinned: false,
        archived: false,
        provider_id: None,
        model: Some("qwen2.5:3b".into()),
        system_prompt: None,
        settings: json!({}),
        head_id: messages.last().map(|m| m.id.clone()),
        project_id: None,
    };
    (conversation, messages)
}

fn db_path(conversations: usize) -> PathBuf {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    target.join(format!("bench-export-{conversations}.db"))
}

/// Rows per multi-row INSERT (12 values each, well under SQLite's 32,766 variables).
const ROWS_PER_INSERT: usize = 500;

/// Builds the source database at `path` (through a temporary file, so an interrupted build
/// is not mistaken for a finished one): the schema from `Store::open`, then every row with
/// multi-row INSERTs in one transaction.
async fn build(path: &Path, conversations: usize) {
    let started = Instant::now();
    let tmp = path.with_extension("db.partial");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", tmp.display()));
    }
    Store::open(&tmp).await.unwrap().close().await;
    let url = format!("sqlite://{}", tmp.display());
    let mut db = SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("PRAGMA synchronous = OFF")
        .execute(&mut db)
        .await
        .unwrap();
    let mut tx = db.begin().await.unwrap();
    let mut batch_c = Vec::new();
    let mut batch_m = Vec::new();
    for n in 0..conversations {
        let (c, messages) = conversation(n);
        batch_c.push(c);
        batch_m.extend(messages);
        if batch_m.len() >= ROWS_PER_INSERT || n + 1 == conversations {
            insert_conversations(&mut tx, &batch_c).await;
            for chunk in batch_m.chunks(ROWS_PER_INSERT) {
                insert_messages(&mut tx, chunk).await;
            }
            batch_c.clear();
            batch_m.clear();
        }
    }
    tx.commit().await.unwrap();
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(&mut db)
        .await
        .unwrap();
    db.close().await.unwrap();
    std::fs::rename(&tmp, path).unwrap();
    println!(
        "built {} ({conversations} conversations) in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
}

fn values(rows: usize, columns: usize) -> String {
    let row = format!("({})", vec!["?"; columns].join(", "));
    vec![row; rows].join(", ")
}

async fn insert_conversations(tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>, cs: &[Conversation]) {
    let sql = format!(
        "INSERT INTO conversations (id, title, created_at, updated_at, model, settings, head_id) VALUES {}",
        values(cs.len(), 7)
    );
    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
    for c in cs {
        q = q
            .bind(c.id.clone())
            .bind(c.title.clone())
            .bind(c.created_at)
            .bind(c.updated_at)
            .bind(c.model.clone())
            .bind(c.settings.to_string())
            .bind(c.head_id.clone());
    }
    q.execute(&mut **tx).await.unwrap();
}

async fn insert_messages(tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>, ms: &[Message]) {
    let sql = format!(
        "INSERT INTO messages (id, conversation_id, parent_id, role, content, status, model, \
         created_at, updated_at) VALUES {}",
        values(ms.len(), 9)
    );
    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
    for m in ms {
        q = q
            .bind(m.id.clone())
            .bind(m.conversation_id.clone())
            .bind(m.parent_id.clone())
            .bind(m.role)
            .bind(serde_json::to_string(&m.content).unwrap())
            .bind(m.status)
            .bind(m.model.clone())
            .bind(m.created_at)
            .bind(m.updated_at);
    }
    q.execute(&mut **tx).await.unwrap();
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn peak_rss_mib() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.split_whitespace().nth(1).unwrap_or("0").to_owned())
        })
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or("unknown".into(), |kb| format!("{:.0} MiB", kb / 1024.0))
}

/// Resets the process's peak-memory mark (Linux), so each phase reports its own peak.
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// A digest of every file under `path` (names and bytes, in name order).
fn digest(path: &Path) -> u64 {
    fn walk(path: &Path, files: &mut Vec<PathBuf>) {
        match std::fs::read_dir(path) {
            Ok(entries) => {
                for e in entries.flatten() {
                    walk(&e.path(), files);
                }
            }
            Err(_) => files.push(path.to_path_buf()),
        }
    }
    let mut files = Vec::new();
    walk(path, &mut files);
    files.sort();
    let mut h = std::hash::DefaultHasher::new();
    for f in files {
        h.write(
            f.strip_prefix(path)
                .unwrap_or(&f)
                .as_os_str()
                .as_encoded_bytes(),
        );
        let mut file = std::fs::File::open(&f).unwrap();
        let mut buf = vec![0; 1 << 16];
        loop {
            let n = std::io::Read::read(&mut file, &mut buf).unwrap();
            if n == 0 {
                break;
            }
            h.write(&buf[..n]);
        }
    }
    h.finish()
}

fn report(label: &str, total: usize, runs: &[Duration], digest: Option<u64>) {
    let m = median(runs.to_vec());
    let all: Vec<String> = runs
        .iter()
        .map(|r| format!("{:.0}", r.as_secs_f64() * 1000.0))
        .collect();
    println!(
        "{label:<12} median {:>8.1} ms  {:>9.0} messages/s  peak memory {:>8}  runs [{}] ms{}",
        m.as_secs_f64() * 1000.0,
        total as f64 / m.as_secs_f64(),
        peak_rss_mib(),
        all.join(", "),
        digest.map_or(String::new(), |d| format!("  output {d:016x}"))
    );
    reset_peak();
}

fn request(format: ExportFormat, out: &Path) -> ExportRequest {
    ExportRequest {
        format,
        scope: ExportScope::All,
        out: out.display().to_string(),
        no_tool_results: false,
        no_reasoning: false,
    }
}

/// Exports `runs` times, each into a new file or folder (`out` for the last run, so it can
/// be checked; the others are removed after all runs, so no run writes over just-deleted
/// files, which some file systems make slower).
async fn export_runs(
    store: &Store,
    format: ExportFormat,
    out: &Path,
    runs: usize,
    total: usize,
) -> Vec<Duration> {
    let mut times = Vec::new();
    let mut used = Vec::new();
    for i in 0..runs {
        let path = if i + 1 == runs {
            out.to_path_buf()
        } else {
            out.with_file_name(format!(
                "run{i}-{}",
                out.file_name().unwrap().to_string_lossy()
            ))
        };
        let t = Instant::now();
        let summary = export(store, &request(format, &path), |_, _| {})
            .await
            .unwrap();
        times.push(t.elapsed());
        assert_eq!(summary.messages as usize, total);
        used.push(path);
    }
    for path in used.iter().take(runs - 1) {
        let _ = std::fs::remove_dir_all(path);
        let _ = std::fs::remove_file(path);
    }
    times
}

fn main() {
    let conversations = env_number("SWITCHBOARD_BENCH_CONVERSATIONS", 1_000);
    let runs = env_number("SWITCHBOARD_BENCH_RUNS", 5);
    let total = conversations * MESSAGES;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let source = db_path(conversations);
        if !source.exists() {
            build(&source, conversations).await;
        }
        let dir = match std::env::var_os("SWITCHBOARD_BENCH_OUT") {
            Some(base) => tempfile::tempdir_in(base).unwrap(),
            None => tempfile::tempdir().unwrap(),
        };
        let store = Store::open(&source).await.unwrap();
        reset_peak();
        println!("export/import of {conversations} conversations × {MESSAGES} messages, median of {runs} runs");
        let only = std::env::var("SWITCHBOARD_BENCH_ONLY").unwrap_or_default();
        let wanted = |phase: &str| only.is_empty() || only.split(',').any(|p| p.trim() == phase);
        for (label, format, out) in [
            ("export json", ExportFormat::Json, dir.path().join("all.json")),
            ("export md", ExportFormat::Markdown, dir.path().join("md")),
            ("export html", ExportFormat::Html, dir.path().join("html")),
        ] {
            let needed = wanted(label.trim_start_matches("export "))
                || (format == ExportFormat::Json && wanted("import"));
            if !needed {
                continue;
            }
            let times = export_runs(&store, format, &out, runs, total).await;
            let d = digest(&out);
            if format != ExportFormat::Json {
                let _ = std::fs::remove_dir_all(&out);
            }
            report(label, total, &times, Some(d));
        }
        let json = dir.path().join("all.json");
        if !wanted("import") {
            store.close().await;
            return;
        }
        let mut times = Vec::new();
        for i in 0..runs {
            let path = dir.path().join(format!("import-{i}.db"));
            let target = Store::open(&path).await.unwrap();
            let t = Instant::now();
            let result = import_file(&target, &json, false).await.unwrap();
            times.push(t.elapsed());
            assert_eq!(result.report.added as usize, conversations);
            target.close().await;
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
        }
        report("import json", total, &times, None);
        store.close().await;
    });
}
