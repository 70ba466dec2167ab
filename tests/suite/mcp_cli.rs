//! `switchboard servers tools|call|logs` end to end through the real binary, against
//! server-everything over stdio (`npm ci --prefix tests/fixtures/mcp-node`): each command
//! starts the server, uses it, stops it, and leaves no process behind.

use std::path::{Path, PathBuf};
use std::process::Output;

/// server-everything's entry point; panics with the fix when it is not installed.
fn everything_js() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything")
        .join("dist/index.js");
    assert!(
        path.exists(),
        "{} is missing: run `npm ci --prefix tests/fixtures/mcp-node`",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

fn switchboard(data_dir: &Path, args: &[&str]) -> Output {
    crate::suite::support_cli::switchboard(data_dir, args)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The pids of live processes whose working directory is `dir` (our servers run there).
fn processes_in(dir: &Path) -> Vec<(u32, String)> {
    let dir = dir.canonicalize().unwrap();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(Result::ok) {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cwd: Option<PathBuf> = std::fs::read_link(entry.path().join("cwd")).ok();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'));
        if cwd.as_deref() == Some(dir.as_path()) && !zombie {
            found.push((pid, stat));
        }
    }
    found
}

#[test]
fn servers_call_tools_and_logs_run_server_everything_end_to_end_and_leave_no_node_behind() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let js = everything_js();
    let cwd = work.path().to_string_lossy().into_owned();
    let add = [
        "servers",
        "add",
        "everything",
        "--command",
        "node",
        "--arg",
        &js,
        "--arg",
        "stdio",
        "--cwd",
        &cwd,
    ];
    let o = switchboard(data.path(), &add);
    assert!(o.status.success(), "{}", text(&o.stderr));

    let o = switchboard(
        data.path(),
        &[
            "servers",
            "call",
            "everything",
            "echo",
            r#"{"message":"hello from the CLI"}"#,
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "Echo: hello from the CLI\n");

    let o = switchboard(
        data.path(),
        &["servers", "call", "everything", "get-tiny-image"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let image = text(&o.stdout);
    assert!(
        image
            .lines()
            .any(|l| l.starts_with("[image image/png, ") && l.ends_with(" bytes]")),
        "{image}"
    );

    let args = r#"{"location":"Chicago"}"#;
    let o = switchboard(
        data.path(),
        &[
            "servers",
            "call",
            "everything",
            "get-structured-content",
            args,
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("\"temperature\": "),
        "{}",
        text(&o.stdout)
    );

    let o = switchboard(data.path(), &["servers", "tools", "everything"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let tools = text(&o.stdout);
    assert!(tools.lines().any(|l| l.starts_with("echo  ")), "{tools}");
    assert!(tools.lines().any(|l| l.starts_with("get-sum  ")), "{tools}");

    let o = switchboard(data.path(), &["servers", "logs", "everything"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "Starting default (STDIO) server...\n");

    let o = switchboard(data.path(), &["servers", "start", "everything"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let ready = text(&o.stdout);
    assert!(
        ready.starts_with("everything is ready: mcp-servers/everything ")
            && ready.contains("(protocol 2025-11-25)")
            && ready.ends_with(" tools\n"),
        "{ready}"
    );

    let elicit = [
        "servers",
        "call",
        "everything",
        "trigger-elicitation-request",
    ];
    let o = switchboard(data.path(), &elicit);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("User cancelled the elicitation dialog"),
        "{}",
        text(&o.stdout)
    );
    assert_eq!(
        text(&o.stderr),
        "everything asked for input from you; a terminal command cannot answer, so it was refused\n"
    );

    assert_eq!(
        processes_in(work.path()),
        Vec::new(),
        "a server process was left behind"
    );
}

#[test]
fn servers_call_fails_with_exit_1_and_the_violation_path_for_invalid_arguments() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let js = everything_js();
    let cwd = work.path().to_string_lossy().into_owned();
    let add = [
        "servers",
        "add",
        "everything",
        "--command",
        "node",
        "--arg",
        &js,
        "--arg",
        "stdio",
        "--cwd",
        &cwd,
    ];
    assert!(switchboard(data.path(), &add).status.success());

    let args = r#"{"a":"two","b":40}"#;
    let o = switchboard(
        data.path(),
        &["servers", "call", "everything", "get-sum", args],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("invalid arguments for `get-sum`: /a: "),
        "{err}"
    );

    let o = switchboard(
        data.path(),
        &["servers", "call", "everything", "nope", "{}"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("has no tool named `nope`"),
        "{}",
        text(&o.stderr)
    );

    let o = switchboard(data.path(), &["servers", "call", "nowhere", "echo", "{}"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        processes_in(work.path()),
        Vec::new(),
        "a server process was left behind"
    );
}
