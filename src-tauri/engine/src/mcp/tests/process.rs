//! Child-process plumbing: the stderr ring buffer, login-shell PATH parsing, spawn errors.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::Path;

use crate::mcp::client::process::{
    Launch, STDERR_LINES, ServerProcess, StderrLog, extract_path, login_path, merge_paths,
    with_runtimes,
};

#[test]
fn the_stderr_buffer_keeps_only_the_last_thousand_lines() {
    let log = StderrLog::default();
    let reader = log.clone();
    for i in 0..STDERR_LINES + 5 {
        log.push(format!("line {i}"));
    }
    let lines = reader.lines();
    assert_eq!(lines.len(), STDERR_LINES);
    assert_eq!(lines[0], "line 5");
    assert_eq!(
        lines[STDERR_LINES - 1],
        format!("line {}", STDERR_LINES + 4)
    );
}

#[test]
fn the_path_is_read_between_the_markers_ignoring_rc_file_chatter() {
    let output = "Welcome!\n__SWITCHBOARD_PATH_START__/a/bin:/usr/bin__SWITCHBOARD_PATH_END__";
    assert_eq!(extract_path(output), Some("/a/bin:/usr/bin"));
    assert_eq!(extract_path("no markers"), None);
    assert_eq!(
        extract_path("__SWITCHBOARD_PATH_START____SWITCHBOARD_PATH_END__"),
        None
    );
}

#[test]
fn the_login_path_comes_first_and_our_own_entries_follow_without_duplicates() {
    let merged = merge_paths(
        OsStr::new("/home/u/.nvm/bin:/usr/bin"),
        OsStr::new("/usr/bin:/sbin"),
    );
    assert_eq!(merged, "/home/u/.nvm/bin:/usr/bin:/sbin");
}

#[test]
fn servers_get_each_brought_runtimes_bin_after_the_users_own_path() {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["uv/bin", "node/bin", ".uv.staged/bin", "empty"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    let path = with_runtimes(OsStr::new("/usr/local/bin:/usr/bin"), Some(dir.path()));
    let parts: Vec<_> = std::env::split_paths(&path).collect();
    assert_eq!(
        parts,
        [
            Path::new("/usr/local/bin").to_path_buf(),
            Path::new("/usr/bin").to_path_buf(),
            dir.path().join("node/bin"),
            dir.path().join("uv/bin"),
        ]
    );
    let none = with_runtimes(OsStr::new("/usr/bin"), Some(&dir.path().join("missing")));
    assert_eq!(none, OsStr::new("/usr/bin"));
    assert_eq!(
        with_runtimes(OsStr::new("/usr/bin"), None),
        OsStr::new("/usr/bin")
    );
}

#[tokio::test]
async fn the_resolved_path_finds_node() {
    let path = login_path().await;
    let found = std::env::split_paths(path).any(|dir| dir.join("node").is_file());
    assert!(found, "node not on {path:?}");
}

#[tokio::test]
async fn a_missing_working_directory_is_named_in_the_spawn_error() {
    let launch = Launch {
        command: "node",
        args: &[],
        env: &BTreeMap::new(),
        cwd: Some(Path::new("/nonexistent/switchboard-dir")),
        inherit_env: &[],
    };
    let error = ServerProcess::spawn(launch)
        .await
        .expect_err("no such directory");
    assert!(
        error
            .reason
            .contains("/nonexistent/switchboard-dir does not exist"),
        "{}",
        error.reason
    );
}

#[tokio::test]
async fn env_and_cwd_from_the_spec_reach_the_server() {
    let env = BTreeMap::from([("SWITCHBOARD_TEST_VAR".to_owned(), "sesame".to_owned())]);
    let args = [
        "-c".to_owned(),
        "echo \"$SWITCHBOARD_TEST_VAR $(pwd)\" >&2".to_owned(),
    ];
    let launch = Launch {
        command: "sh",
        args: &args,
        env: &env,
        cwd: Some(Path::new("/tmp")),
        inherit_env: &[],
    };
    let (process, _stdout, _stdin) = ServerProcess::spawn(launch).await.expect("spawn");
    let log = process.stderr();
    process.shutdown(std::time::Duration::from_secs(2)).await;
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert_eq!(log.lines(), vec!["sesame /tmp".to_owned()]);
}
