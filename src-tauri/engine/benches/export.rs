//! Export and import at scale: 1,000 conversations × 50 messages (English and Chinese text,
//! code, a tool call and its result every ten messages) in a real SQLite file. Reports the
//! median of several runs for exporting every conversation as JSON, Markdown and HTML, and
//! for importing the JSON back into an empty database, with messages per second, and the
//! process's peak memory in each phase (the writers stream one conversation at a time; the
//! importer reads the whole file).
//!
//! `make bench-export` (or `cargo bench -p switchboard-engine --bench export`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_engine::Store;
use switchboard_engine::content::ContentPart;
use switchboard_engine::export::{ExportFormat, ExportRequest, ExportScope, export, import_file};
use switchboard_engine::store::{Conversation, ImportItem, Message, MessageStatus, Role};

const CONVERSATIONS: usize = 1_000;
const MESSAGES: usize = 50;
const RUNS: usize = 5;

const TEXTS: &[&str] = &[
    "What is the weather in California this week? I am planning a trip.",
    "加州这周的天气怎么样？我打算去旅行，需要带雨伞吗？",
    "Here is a small script:\n\n```python\nimport requests\nprint(requests.get('https://example.com').status_code)\n```\n\nIt prints the **status code**.",
    "| day | forecast |\n|---|---|\n| Mon | rain |\n| Tue | sun |\n\nThat is the forecast for the next two days.",
];

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

fn conversation(n: usize) -> ImportItem {
    let c = format!("conv-{n:04}");
    let mut messages: Vec<Message> = Vec::with_capacity(MESSAGES);
    for i in 0..MESSAGES {
        let parent = messages.last().map(|m| m.id.clone());
        messages.push(message(&c, i, parent));
    }
    ImportItem {
        conversation: Conversation {
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
        },
        messages,
    }
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

fn report(label: &str, runs: Vec<Duration>) {
    let total = (CONVERSATIONS * MESSAGES) as f64;
    let m = median(runs);
    println!(
        "{label:<14} median {:>8.1} ms  {:>10.0} messages/s  peak memory {}",
        m.as_secs_f64() * 1000.0,
        total / m.as_secs_f64(),
        peak_rss_mib()
    );
    reset_peak();
}

async fn export_runs(store: &Store, format: ExportFormat, out: &Path) -> Vec<Duration> {
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        let _ = std::fs::remove_dir_all(out);
        let _ = std::fs::remove_file(out);
        let req = ExportRequest {
            format,
            scope: ExportScope::All,
            out: out.display().to_string(),
            no_tool_results: false,
            no_reasoning: false,
        };
        let t = Instant::now();
        let summary = export(store, &req, |_, _| {}).await.unwrap();
        runs.push(t.elapsed());
        assert_eq!(summary.messages as usize, CONVERSATIONS * MESSAGES);
    }
    runs
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("bench.db")).await.unwrap();
        let items: Vec<ImportItem> = (0..CONVERSATIONS).map(conversation).collect();
        let report_seed = store.import_conversations(&items, false).await.unwrap();
        assert_eq!(report_seed.added as usize, CONVERSATIONS);
        drop(items);
        reset_peak();
        println!("export/import of {CONVERSATIONS} conversations × {MESSAGES} messages, median of {RUNS} runs");
        let json = dir.path().join("all.json");
        report("export json", export_runs(&store, ExportFormat::Json, &json).await);
        report("export md", export_runs(&store, ExportFormat::Markdown, &dir.path().join("md")).await);
        report("export html", export_runs(&store, ExportFormat::Html, &dir.path().join("html")).await);
        let req = ExportRequest { format: ExportFormat::Json, scope: ExportScope::All, out: json.display().to_string(), no_tool_results: false, no_reasoning: false };
        export(&store, &req, |_, _| {}).await.unwrap();
        let mut runs = Vec::new();
        for i in 0..RUNS {
            let target = Store::open(&dir.path().join(format!("import-{i}.db"))).await.unwrap();
            let t = Instant::now();
            let result = import_file(&target, &json, false).await.unwrap();
            runs.push(t.elapsed());
            assert_eq!(result.report.added as usize, CONVERSATIONS);
            target.close().await;
        }
        report("import json", runs);
        store.close().await;
    });
}
