//! History at scale: 100,000 conversations and 2,000,000 messages (English and Chinese,
//! indexed for search) in a real SQLite file. Measures, as medians and 95th percentiles over
//! many runs: the first page of the conversation list (all, in no project, and in a project of
//! 1,000 conversations), searches, and opening a 5,000-message
//! conversation (its first 100 messages). Targets: list p95 < 5 ms, search p95 < 30 ms,
//! open < 100 ms.
//!
//! `cargo bench -p switchboard-engine --bench history` (the database is built once, a few
//! minutes, and kept at `$SWITCHBOARD_BENCH_DB` or the target directory).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use sqlx::{Connection, SqliteConnection};
use switchboard_engine::Store;
use switchboard_engine::store::{ListScope, PageRequest, ProjectDraft};

const CONVERSATIONS: usize = 100_000;
const MESSAGES: usize = 2_000_000;
const LONG: usize = 5_000;

const EN: &[&str] = &[
    "weather",
    "forecast",
    "rain",
    "California",
    "server",
    "tool",
    "result",
    "model",
    "stream",
    "token",
    "window",
    "branch",
    "search",
    "export",
    "import",
    "approval",
    "policy",
    "cache",
    "latency",
    "network",
    "function",
    "argument",
    "schema",
    "database",
    "message",
];
const ZH: &[&str] = &[
    "天气",
    "预报",
    "北京",
    "上海",
    "服务器",
    "工具",
    "结果",
    "模型",
    "流式",
    "窗口",
    "分支",
    "搜索",
    "导出",
    "导入",
    "审批",
    "策略",
    "缓存",
    "延迟",
    "网络",
    "函数",
    "参数",
    "数据库",
];

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 1_000_003) as usize
    }
    fn sentence(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| {
                if self.next().is_multiple_of(3) {
                    ZH[self.next() % ZH.len()].to_owned()
                } else {
                    EN[self.next() % EN.len()].to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn db_path() -> PathBuf {
    std::env::var_os("SWITCHBOARD_BENCH_DB").map_or_else(
        || {
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| PathBuf::from("target"), PathBuf::from);
            target.join("bench-history.db")
        },
        PathBuf::from,
    )
}

async fn build(path: &std::path::Path) {
    let store = Store::open(path).await.expect("open");
    store.close().await;
    let url = format!("sqlite://{}", path.display());
    let mut db = SqliteConnection::connect(&url).await.expect("connect");
    sqlx::query("PRAGMA journal_mode = WAL")
        .execute(&mut db)
        .await
        .ok();
    sqlx::query("PRAGMA synchronous = OFF")
        .execute(&mut db)
        .await
        .ok();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let per = (MESSAGES - LONG) / (CONVERSATIONS - 1);
    let started = Instant::now();
    let mut tx = db.begin().await.expect("begin");
    for c in 0..CONVERSATIONS {
        let id = format!("c{c:07}");
        let n = if c == 0 { LONG } else { per };
        let t = 1_600_000_000_000i64 + c as i64 * 1000;
        sqlx::query(
            "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(rng.sentence(4))
        .bind(t)
        .bind(t)
        .execute(&mut *tx)
        .await
        .expect("conversation");
        let mut parent: Option<String> = None;
        for m in 0..n {
            let mid = format!("{id}m{m:05}");
            let role = if m % 2 == 0 { "user" } else { "assistant" };
            let words = 8 + rng.next() % 30;
            let text = rng.sentence(words);
            let content = serde_json::json!([{"type": "text", "text": text}]).to_string();
            sqlx::query(
                "INSERT INTO messages (id, conversation_id, parent_id, role, content, status, created_at, updated_at) \
                 VALUES (?, ?, ?, ?, ?, 'complete', ?, ?)",
            )
            .bind(&mid)
            .bind(&id)
            .bind(&parent)
            .bind(role)
            .bind(content)
            .bind(t + m as i64)
            .bind(t + m as i64)
            .execute(&mut *tx)
            .await
            .expect("message");
            parent = Some(mid);
        }
        sqlx::query("UPDATE conversations SET head_id = ? WHERE id = ?")
            .bind(&parent)
            .bind(&id)
            .execute(&mut *tx)
            .await
            .expect("head");
        if c % 5_000 == 4_999 {
            tx.commit().await.expect("commit");
            eprintln!("built {} conversations in {:.0?}", c + 1, started.elapsed());
            tx = db.begin().await.expect("begin");
        }
    }
    tx.commit().await.expect("commit");
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(&mut db)
        .await
        .ok();
    eprintln!("built {} in {:.0?}", path.display(), started.elapsed());
}

/// Runs `f` `n` times; prints and returns (median, p95).
async fn measure<F, Fut>(name: &str, n: usize, mut f: F) -> (Duration, Duration)
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = usize>,
{
    let mut times = Vec::with_capacity(n);
    let mut found = 0;
    for i in 0..n {
        let t = Instant::now();
        found = f(i).await;
        times.push(t.elapsed());
    }
    times.sort_unstable();
    let (p50, p95) = (times[n / 2], times[n * 95 / 100]);
    println!("{name:<48} median {p50:>10.2?}   p95 {p95:>10.2?}   ({found} rows, {n} runs)");
    (p50, p95)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let path = db_path();
        if !path.exists() {
            build(&path).await;
        }
        let opening = Instant::now();
        let store = Store::open(&path).await.expect("open");
        // An older database is backed up and migrated here (the cost a user's upgrade pays).
        println!(
            "open (backup and migrations, if any): {:.2?}",
            opening.elapsed()
        );
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        println!(
            "database: {} ({:.0} MiB)",
            path.display(),
            size as f64 / 1_048_576.0
        );
        measure("list: first page of 50", 300, |_| {
            let s = store.clone();
            async move {
                s.list_conversations(&PageRequest::first(50), &ListScope::All)
                    .await
                    .expect("list")
                    .items
                    .len()
            }
        })
        .await;
        // A project holding 1,000 of the 100,000 conversations (made once, kept in the file).
        let project = match store.find_project("Bench project").await {
            Ok(p) => p,
            Err(_) => {
                let p = store
                    .insert_project(&ProjectDraft {
                        name: "Bench project".into(),
                        ..Default::default()
                    })
                    .await
                    .expect("project");
                let ids: Vec<String> = (0..100_000)
                    .step_by(100)
                    .map(|i| format!("c{i:07}"))
                    .collect();
                store
                    .move_conversations(&ids, Some(&p.id))
                    .await
                    .expect("move");
                p
            }
        };
        let scope = ListScope::Project(project.id.clone());
        measure("list: first page of 50 in a project of 1,000", 300, |_| {
            let (s, scope) = (store.clone(), scope.clone());
            async move {
                s.list_conversations(&PageRequest::first(50), &scope)
                    .await
                    .expect("list")
                    .items
                    .len()
            }
        })
        .await;
        measure("list: first page of 50 in no project", 300, |_| {
            let s = store.clone();
            async move {
                s.list_conversations(&PageRequest::first(50), &ListScope::Unfiled)
                    .await
                    .expect("list")
                    .items
                    .len()
            }
        })
        .await;
        for q in [
            "forecast",
            "California approval",
            "服务器",
            "数据库 schema",
            "天气",
        ] {
            measure(&format!("search {q:?}: first page of 20"), 100, |_| {
                let s = store.clone();
                async move {
                    s.search_messages(q, &PageRequest::first(20))
                        .await
                        .expect("search")
                        .items
                        .len()
                }
            })
            .await;
        }
        let head = store
            .get_conversation("c0000000")
            .await
            .expect("long")
            .head_id
            .expect("head");
        measure("open the 5,000-message conversation: last 100", 100, |_| {
            let (s, h) = (store.clone(), head.clone());
            async move { s.branch_tail(&h, 100).await.expect("branch").len() }
        })
        .await;
        store.close().await;
    });
}
