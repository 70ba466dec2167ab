//! `switchboard servers search|install|update` as a process against the test registry,
//! installing the registry entry of npm's `@modelcontextprotocol/server-everything`.
//!
//! The entry's command is `npx -y @modelcontextprotocol/server-everything@VERSION`. The
//! test runs it offline through a stand-in `npx` first on the PATH (the CLI gets no login
//! shell, so that PATH is the servers' PATH): it accepts exactly that package spec and runs
//! the copy `npm ci --prefix tests/fixtures/mcp-node` installed, so the install path, the
//! runtime check and the saved command are the real ones while nothing is downloaded. (npm's
//! own offline cache cannot stand in: `npm ci` keeps the tarballs but not the registry
//! metadata `npx` asks for first.)

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use super::registry;

fn everything_js() -> String {
    crate::suite::agent::everything_js()
}

/// A folder holding only the stand-in `npx`.
fn npx_shim(dir: &Path) -> String {
    let node = which("node");
    let script = format!(
        "#!/bin/sh\n\
         # Stand-in for npx in tests: runs the locally installed server-everything.\n\
         [ \"$1\" = \"-y\" ] && shift\n\
         case \"$1\" in\n\
           @modelcontextprotocol/server-everything@2026.8.3[01]) shift; exec {node} {js} \"$@\" ;;\n\
         esac\n\
         echo \"npx stand-in: unexpected package $1\" >&2; exit 1\n",
        js = everything_js()
    );
    let path = dir.join("npx");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir.to_string_lossy().into_owned()
}

fn which(program: &str) -> String {
    let path = std::env::var_os("PATH").unwrap();
    let found = std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file());
    found.unwrap().to_string_lossy().into_owned()
}

pub(super) async fn switchboard(data: &Path, path_env: &str, args: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("--data-dir")
        .arg(data)
        .arg("--secrets-file")
        .args(args)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("RUST_LOG")
        .env_remove("SHELL")
        .env("PATH", path_env)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The whole of a run, for failure messages.
fn all(o: &Output) -> String {
    format!("{:?}\n{}\n{}", o.status, text(&o.stdout), text(&o.stderr))
}

const EVERYTHING: &str = "io.github.modelcontextprotocol/server-everything";

#[tokio::test(flavor = "multi_thread")]
async fn installing_server_everything_from_the_registry_gives_a_running_server_whose_echo_answers()
{
    let data = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let path = npx_shim(bin.path());
    let ok = format!("{}/ok", registry().await);
    let run = |args: Vec<&str>| {
        let (data, path) = (data.path().to_path_buf(), path.clone());
        let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            switchboard(&data, &path, &args).await
        }
    };

    let o = run(vec!["servers", "search", "everything", "--registry", &ok]).await;
    assert!(o.status.success(), "{}", all(&o));
    assert!(
        text(&o.stdout).starts_with(&format!("{EVERYTHING}  2026.8.31  [stdio]\n")),
        "{}",
        text(&o.stdout)
    );

    // Without a terminal and without --yes nothing is installed, after showing what would run.
    let o = run(vec!["servers", "install", EVERYTHING, "--registry", &ok]).await;
    assert!(!o.status.success(), "{}", all(&o));
    let shown = text(&o.stdout);
    assert!(
        shown.contains(
            "  command: npx\n  arg: -y\n  arg: @modelcontextprotocol/server-everything@2026.8.31\n"
        ),
        "{shown}"
    );
    assert!(
        text(&o.stderr).contains("confirm with --yes"),
        "{}",
        text(&o.stderr)
    );
    let o = run(vec!["servers", "list"]).await;
    assert!(
        text(&o.stdout).starts_with("no servers"),
        "{}",
        text(&o.stdout)
    );

    let o = run(vec![
        "servers",
        "install",
        EVERYTHING,
        "--registry",
        &ok,
        "--yes",
    ])
    .await;
    assert!(
        o.status.success(),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    let out = text(&o.stdout);
    assert!(
        out.contains("installed server-everything\n") && out.contains("  tool echo\n"),
        "{out}"
    );

    let o = run(vec![
        "servers",
        "call",
        "server-everything",
        "echo",
        r#"{"message":"hi from the registry"}"#,
    ])
    .await;
    assert!(o.status.success(), "{}", all(&o));
    assert!(
        text(&o.stdout).contains("hi from the registry"),
        "{}",
        text(&o.stdout)
    );

    let o = run(vec!["servers", "update", "server-everything"]).await;
    assert_eq!(
        text(&o.stdout),
        "server-everything is up to date\n",
        "{}",
        text(&o.stderr)
    );

    // An older version, then its update: the change is shown, then applied.
    let older = [
        "servers",
        "install",
        EVERYTHING,
        "--version",
        "2026.8.30",
        "--name",
        "old",
        "--registry",
        &ok,
        "--yes",
    ];
    let o = run(older.to_vec()).await;
    assert!(o.status.success(), "{}", all(&o));
    let o = run(vec!["servers", "update", "old"]).await;
    let shown = text(&o.stdout);
    assert!(
        shown.starts_with(&format!("old ({EVERYTHING}): 2026.8.30 → 2026.8.31\n")),
        "{shown}"
    );
    assert!(
        shown.contains("  now:   npx -y @modelcontextprotocol/server-everything@2026.8.30\n"),
        "{shown}"
    );
    assert!(
        shown.contains("  after: npx -y @modelcontextprotocol/server-everything@2026.8.31\n"),
        "{shown}"
    );
    assert!(!o.status.success(), "no terminal, no --yes: not applied");
    let o = run(vec!["servers", "update", "old", "--yes"]).await;
    assert!(o.status.success(), "{}", all(&o));
    let o = run(vec!["servers", "list", "--json"]).await;
    let list: Value = serde_json::from_slice(&o.stdout).unwrap();
    let old = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["config"]["name"] == "old")
        .unwrap();
    assert_eq!(old["config"]["source"]["version"], "2026.8.31");
    assert_eq!(
        old["config"]["transport"]["args"][1],
        "@modelcontextprotocol/server-everything@2026.8.31"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_runtime_is_named_with_what_to_install_and_nothing_is_saved() {
    let data = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let path = npx_shim(bin.path());
    let ok = format!("{}/ok", registry().await);
    let args = [
        "servers",
        "install",
        "io.github.example/weather-mcp",
        "--env",
        "WEATHER_API_KEY=k-1234567",
        "--registry",
        &ok,
        "--yes",
    ];
    let o = switchboard(data.path(), &path, &args).await;
    assert!(!o.status.success());
    assert!(
        text(&o.stdout).contains("  runtime: uvx (NOT FOUND)\n"),
        "{}",
        all(&o)
    );
    let err = text(&o.stderr);
    assert!(
        err.contains("uvx is not installed (not found on the PATH); install uv (which brings uvx)"),
        "{err}"
    );
    let o = switchboard(data.path(), &path, &["servers", "list"]).await;
    assert!(
        text(&o.stdout).starts_with("no servers"),
        "{}",
        text(&o.stdout)
    );
}
