//! Bounded imports: a file over the size cap is refused from its metadata, before a byte is
//! read or allocated (a sparse 2 GB file: the process's peak memory does not move), with an
//! error that names the cap and its setting; the cap is a setting.

use std::path::Path;
use std::time::{Duration, Instant};

use switchboard_engine::Store;
use switchboard_engine::export::limits::MAX_BYTES_SETTING;
use switchboard_engine::export::{ExportError, import_file};

/// The process's peak resident memory (`VmHWM`), in kB.
fn peak_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

async fn store(dir: &Path) -> Store {
    Store::open(&dir.join("switchboard.db")).await.unwrap()
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_sparse_two_gigabyte_import_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path()).await;
    let file = dir.path().join("conversations.json");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let (before, started) = (peak_kb(), Instant::now());
    let error = import_file(&store, &file, true).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(error, ExportError::TooLarge { bytes, .. } if bytes == 2 << 30),
        "{error}"
    );
    assert!(
        error.to_string().contains("import.max_file_bytes"),
        "{error}"
    );
    let grown_kb = peak_kb().saturating_sub(before);
    assert!(grown_kb < 100 * 1024, "the peak grew by {grown_kb} kB");
}

#[tokio::test]
async fn the_import_cap_is_a_setting() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path()).await;
    let file = dir.path().join("small.json");
    std::fs::write(&file, "[]").unwrap();
    store
        .set_setting(MAX_BYTES_SETTING, &serde_json::json!(1))
        .await
        .unwrap();
    let error = import_file(&store, &file, true).await.unwrap_err();
    assert!(
        matches!(
            error,
            ExportError::TooLarge {
                bytes: 2,
                limit: 1,
                ..
            }
        ),
        "{error}"
    );
}
