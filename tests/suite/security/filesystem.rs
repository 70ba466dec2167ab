//! The filesystem built-in against a hostile folder: a thread swapping a directory for a
//! symlink to a secret outside the root while reads run never gets the secret out, a FIFO
//! fails a read at once instead of hanging it, and search stops at its bounds.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use switchboard_engine::mcp::BuiltinServer;
use switchboard_engine::mcp::{IgnoreNotifications, McpClient};
use switchboard_engine::vocab::mcp::{ResultPart, ToolResult};
use tokio_util::sync::CancellationToken;

const SECRET: &str = "the-secret-outside-the-root";

async fn client(root: &Path) -> McpClient {
    let server = BuiltinServer::Filesystem {
        roots: vec![root.to_path_buf()],
    };
    McpClient::connect(&server.spec(), IgnoreNotifications)
        .await
        .unwrap()
}

async fn call(client: &McpClient, tool: &str, args: Value) -> ToolResult {
    let Value::Object(args) = args else {
        unreachable!()
    };
    let cancel = CancellationToken::new();
    client
        .call_tool(tool, args, Duration::from_secs(20), cancel)
        .await
        .unwrap()
}

fn text(result: &ToolResult) -> String {
    result
        .content
        .iter()
        .map(|part| match part {
            ResultPart::Text { text } => text.clone(),
            _ => String::new(),
        })
        .collect()
}

/// Swaps `root/cur` (a real folder) with `root/alt` (a symlink to the outside folder) again
/// and again, atomically (`renameat2(RENAME_EXCHANGE)`), until `stop`.
fn swapper(root: &Path, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let (cur, alt) = (root.join("cur"), root.join("alt"));
    std::thread::spawn(move || {
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) {
            let flags = rustix::fs::RenameFlags::EXCHANGE;
            let cwd = rustix::fs::CWD;
            if rustix::fs::renameat_with(cwd, &cur, cwd, &alt, flags).is_err() {
                break;
            }
            swaps += 1;
        }
        swaps
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_swapped_in_while_reads_run_never_leaks_a_file_outside_the_root() {
    let base = tempfile::tempdir().unwrap();
    let (root, outside) = (base.path().join("root"), base.path().join("outside"));
    std::fs::create_dir_all(root.join("cur")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("cur/file.txt"), "inside").unwrap();
    std::fs::write(outside.join("file.txt"), SECRET).unwrap();
    std::fs::write(outside.join("only-outside.txt"), SECRET).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("alt")).unwrap();
    let client = client(&root).await;

    let stop = Arc::new(AtomicBool::new(false));
    let swapping = swapper(&root, stop.clone());
    let (mut inside, mut refused) = (0, 0);
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        let read = call(&client, "read_text_file", json!({"path": "cur/file.txt"})).await;
        let listed = call(&client, "list_directory", json!({"path": "cur"})).await;
        let got = text(&read);
        assert!(!got.contains(SECRET), "read outside the root: {got}");
        let listing = text(&listed);
        assert!(
            !listing.contains("only-outside"),
            "listed outside: {listing}"
        );
        if read.is_error {
            refused += 1;
        } else {
            inside += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapping.join().unwrap();
    assert!(swaps > 100, "the swapper only swapped {swaps} times");
    assert!(
        inside > 0 && refused > 0,
        "inside {inside}, refused {refused}"
    );
    client.shutdown().await;
}

#[tokio::test]
async fn reading_a_fifo_fails_within_a_second_instead_of_hanging() {
    let root = tempfile::tempdir().unwrap();
    let fifo = root.path().join("pipe");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let client = client(root.path()).await;
    let started = Instant::now();
    let read = tokio::time::timeout(
        Duration::from_secs(5),
        call(&client, "read_text_file", json!({"path": "pipe"})),
    )
    .await
    .expect("the read of a FIFO hung");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(read.is_error, "{}", text(&read));
    assert!(
        text(&read).contains("not a regular file"),
        "{}",
        text(&read)
    );
    let write = call(
        &client,
        "write_file",
        json!({"path": "pipe", "content": "x"}),
    )
    .await;
    assert!(write.is_error, "{}", text(&write));
    client.shutdown().await;
}

#[tokio::test]
async fn search_stops_after_its_entry_bound_and_says_so() {
    let root = tempfile::tempdir().unwrap();
    let many = switchboard_engine::mcp::SEARCH_MAX_ENTRIES + 10;
    for i in 0..many {
        std::fs::write(root.path().join(format!("f{i}")), "").unwrap();
    }
    let client = client(root.path()).await;
    let found = call(&client, "search_files", json!({"pattern": "no-such-name"})).await;
    assert!(!found.is_error, "{}", text(&found));
    assert!(text(&found).contains("search stopped"), "{}", text(&found));
    client.shutdown().await;
}
