//! MCP server configuration end to end: the engine's import (skip vs replace, dry run), the
//! `switchboard servers …` commands as a process, and the IPC commands.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use switchboard_engine::mcp::TrustNote;
use switchboard_engine::mcp::{Conflict, ImportAction, ImportPreview, ImportReport, PreviewEntry};
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::vocab::server::{ServerConfig, Transport};
use switchboard_engine::{Engine, Paths, Redactor, Secrets};

use tauri::Manager;

use super::ipc::{harness, invoke};

const CLAUDE_DESKTOP: &str = r#"{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/username/Desktop"]
    },
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret_token_123" }
    },
    "remote": {
      "type": "http",
      "url": "https://example.com/mcp",
      "headers": { "Authorization": "Bearer remote-secret-456" },
      "approval": "allow"
    },
    "legacy": { "type": "sse", "url": "http://127.0.0.1:3001/sse", "disabled": true }
  }
}"#;

pub(super) async fn engine(dir: &Path) -> Engine {
    let redactor = Redactor::default();
    let store = std::sync::Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(store, std::sync::Arc::new(|_: &str| None), redactor.clone());
    Engine::open(Paths::under(dir), redactor, secrets)
        .await
        .unwrap()
}

fn names(engine_servers: &[switchboard_engine::store::ServerRecord]) -> Vec<&str> {
    engine_servers
        .iter()
        .map(|r| r.config.name.as_str())
        .collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn an_import_skips_existing_names_unless_asked_to_replace_them() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let fs = ServerConfig::new(
        "filesystem",
        Transport::Stdio {
            command: "my-fs".into(),
            args: vec![],
            env: Default::default(),
            cwd: None,
        },
    );
    let original = engine.mcp().add_server(fs.clone()).await.unwrap();

    let report = engine
        .mcp()
        .import_servers(CLAUDE_DESKTOP, Conflict::Skip)
        .await
        .unwrap();
    assert_eq!(
        report,
        ImportReport {
            added: strings(&["github", "remote", "legacy"]),
            skipped: strings(&["filesystem"]),
            replaced: vec![],
        }
    );
    let kept = engine.store().find_server("filesystem").await.unwrap();
    assert_eq!(kept, original);

    let report = engine
        .mcp()
        .import_servers(CLAUDE_DESKTOP, Conflict::Replace)
        .await
        .unwrap();
    assert_eq!(
        report,
        ImportReport {
            added: vec![],
            skipped: vec![],
            replaced: strings(&["filesystem", "github", "remote", "legacy"]),
        }
    );
    let replaced = engine.store().find_server("filesystem").await.unwrap();
    assert_eq!(replaced.id, original.id, "a replaced server keeps its id");
    assert_eq!(
        replaced.config.command_line(),
        "npx -y @modelcontextprotocol/server-filesystem /Users/username/Desktop"
    );
    let all = engine.mcp().list_servers().await.unwrap();
    assert_eq!(names(&all), ["filesystem", "github", "legacy", "remote"]);
}

#[tokio::test]
async fn a_dry_run_reports_what_an_import_would_do_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    engine
        .mcp()
        .import_servers(r#"{"github": {"command": "gh-mcp"}}"#, Conflict::Skip)
        .await
        .unwrap();
    let before = engine.mcp().list_servers().await.unwrap();
    let preview = engine
        .mcp()
        .preview_import(CLAUDE_DESKTOP, Conflict::Skip)
        .await
        .unwrap();
    let entry = |name: &str, action, enabled, line: &str, trust: &[(&str, &str, bool)]| {
        let trust = trust
            .iter()
            .map(|(field, value, widens)| TrustNote {
                field: (*field).into(),
                value: (*value).into(),
                widens: *widens,
            })
            .collect();
        PreviewEntry {
            name: name.into(),
            action,
            enabled,
            command_line: line.into(),
            trust,
        }
    };
    let auto = ("autoStart", "true", false);
    assert_eq!(
        preview,
        ImportPreview {
            report: ImportReport {
                added: strings(&["filesystem", "remote", "legacy"]),
                skipped: strings(&["github"]),
                replaced: vec![],
            },
            entries: vec![
                entry(
                    "filesystem",
                    ImportAction::Add,
                    true,
                    "npx -y @modelcontextprotocol/server-filesystem /Users/username/Desktop",
                    &[auto]
                ),
                entry(
                    "github",
                    ImportAction::Skip,
                    true,
                    "GITHUB_PERSONAL_ACCESS_TOKEN=•••• npx -y @modelcontextprotocol/server-github",
                    &[auto, ("env", "GITHUB_PERSONAL_ACCESS_TOKEN", false)]
                ),
                entry(
                    "remote",
                    ImportAction::Add,
                    true,
                    "https://example.com/mcp (streamable HTTP)",
                    &[
                        ("approval", "allow", true),
                        auto,
                        ("headers", "Authorization", false)
                    ]
                ),
                entry(
                    "legacy",
                    ImportAction::Add,
                    false,
                    "http://127.0.0.1:3001/sse (SSE)",
                    &[]
                ),
            ],
        }
    );
    let replace = engine
        .mcp()
        .preview_import(CLAUDE_DESKTOP, Conflict::Replace)
        .await
        .unwrap();
    assert_eq!(replace.report.replaced, strings(&["github"]));
    assert_eq!(engine.mcp().list_servers().await.unwrap(), before);
}

#[tokio::test]
async fn a_broken_document_imports_nothing_and_names_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let doc = r#"{"mcpServers": {"ok": {"command": "npx"}, "bad": {"url": "nope"},
                 "worse": {"command": "npx", "url": "http://h/mcp"}}}"#;
    let err = engine
        .mcp()
        .import_servers(doc, Conflict::Skip)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), switchboard_engine::ErrorKind::InvalidInput);
    assert_eq!(
        err.to_string(),
        "server \"bad\": \"url\" is not an http(s) URL\n\
         server \"worse\": give either \"command\" or \"url\", not both"
    );
    assert_eq!(engine.mcp().list_servers().await.unwrap(), vec![]);
}

#[tokio::test]
async fn env_and_header_values_never_reach_the_database_rows() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    engine
        .mcp()
        .import_servers(CLAUDE_DESKTOP, Conflict::Skip)
        .await
        .unwrap();
    let pool = sqlx::SqlitePool::connect_with(
        sqlx::sqlite::SqliteConnectOptions::new().filename(engine.store().path()),
    )
    .await
    .unwrap();
    let rows: Vec<(String, String, String, i64)> =
        sqlx::query_as("SELECT name, transport, config, enabled FROM mcp_servers ORDER BY name")
            .fetch_all(&pool)
            .await
            .unwrap();
    let github: Value = serde_json::from_str(&rows[1].2).unwrap();
    assert_eq!(
        (&rows[1].0, &rows[1].1, rows[1].3),
        (&"github".to_owned(), &"stdio".to_owned(), 1)
    );
    assert_eq!(github.get("secrets"), None);
    assert_eq!(
        github["transport"]["env"],
        json!({"GITHUB_PERSONAL_ACCESS_TOKEN": ""})
    );
    let kinds: Vec<(&str, &str, i64)> = rows
        .iter()
        .map(|r| (r.0.as_str(), r.1.as_str(), r.3))
        .collect();
    assert_eq!(
        kinds,
        [
            ("filesystem", "stdio", 1),
            ("github", "stdio", 1),
            ("legacy", "sse", 0),
            ("remote", "http", 1)
        ]
    );
    for row in &rows {
        assert!(!row.2.contains("secret"), "{}", row.2);
    }
    let exported = engine.mcp().export_servers(true).await.unwrap();
    assert!(
        exported.contains("ghp_secret_token_123"),
        "kept in the keychain"
    );
    assert_eq!(
        engine.redactor().scrub("token=ghp_secret_token_123"),
        "token=[REDACTED]"
    );
}

fn switchboard(dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_config_file_is_imported_listed_and_exported_from_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("claude_desktop_config.json");
    std::fs::write(&file, CLAUDE_DESKTOP).unwrap();
    let data = dir.path().join("data");
    let path = file.to_str().unwrap();

    let o = switchboard(&data, &["servers", "import", path, "--dry-run"], "");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "would add filesystem: npx -y @modelcontextprotocol/server-filesystem /Users/username/Desktop\n\
         would add github: GITHUB_PERSONAL_ACCESS_TOKEN=•••• npx -y @modelcontextprotocol/server-github\n\
         would add remote: https://example.com/mcp (streamable HTTP)\n\
         \x20 ! approval: allow\n\
         would add legacy [disabled]: http://127.0.0.1:3001/sse (SSE)\n\
         dry run: nothing was changed\n"
    );
    let o = switchboard(&data, &["servers", "list"], "");
    assert_eq!(
        text(&o.stdout),
        "no servers; add one with `switchboard servers add NAME --command CMD` or `switchboard servers import FILE`\n"
    );

    let o = switchboard(&data, &["--secrets-file", "servers", "import", path], "");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "added filesystem\nadded github\nadded remote\nadded legacy\n"
    );
    let o = switchboard(
        &data,
        &["--secrets-file", "servers", "import", "-"],
        CLAUDE_DESKTOP,
    );
    assert_eq!(
        text(&o.stdout),
        "skipped filesystem (it already exists; --replace overwrites it)\n\
         skipped github (it already exists; --replace overwrites it)\n\
         skipped remote (it already exists; --replace overwrites it)\n\
         skipped legacy (it already exists; --replace overwrites it)\n"
    );

    let o = switchboard(&data, &["servers", "list"], "");
    assert_eq!(
        text(&o.stdout),
        "filesystem  enabled  npx -y @modelcontextprotocol/server-filesystem /Users/username/Desktop\n\
         github  enabled  GITHUB_PERSONAL_ACCESS_TOKEN=•••• npx -y @modelcontextprotocol/server-github\n\
         legacy  disabled  http://127.0.0.1:3001/sse (SSE)\n\
         remote  enabled  https://example.com/mcp (streamable HTTP)\n"
    );
    let o = switchboard(&data, &["--secrets-file", "servers", "export"], "");
    let exported: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut input: Value = serde_json::from_str(CLAUDE_DESKTOP).unwrap();
    input["mcpServers"]["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"] = json!("");
    input["mcpServers"]["remote"]["headers"]["Authorization"] = json!("");
    assert_eq!(exported, input, "values stay blank unless asked for");
    let o = switchboard(
        &data,
        &["--secrets-file", "servers", "export", "--with-secrets"],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("--yes"), "{}", text(&o.stderr));
    let o = switchboard(
        &data,
        &[
            "--secrets-file",
            "servers",
            "export",
            "--with-secrets",
            "--yes",
        ],
        "",
    );
    let exported: Value = serde_json::from_slice(&o.stdout).unwrap();
    let input: Value = serde_json::from_str(CLAUDE_DESKTOP).unwrap();
    assert_eq!(exported, input);

    let logs = data.join("logs");
    for entry in std::fs::read_dir(&logs).into_iter().flatten() {
        let log = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
        assert!(!log.contains("ghp_secret_token_123") && !log.contains("remote-secret-456"));
    }
}

#[test]
fn servers_are_added_enabled_disabled_and_removed_from_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = switchboard(
        d,
        &[
            "--secrets-file",
            "servers",
            "add",
            "time",
            "--command",
            "uvx",
            "--arg",
            "mcp-server-time",
            "--arg",
            "--local-timezone=Asia/Shanghai",
            "--env",
            "TZ=UTC",
            "--cwd",
            "/tmp",
        ],
        "",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "added time  enabled  TZ=•••• uvx mcp-server-time --local-timezone=Asia/Shanghai\n"
    );
    let o = switchboard(
        d,
        &[
            "--secrets-file",
            "servers",
            "add",
            "events",
            "--url",
            "http://127.0.0.1:3001/events",
            "--sse",
            "--header",
            "X-Api-Key: abc",
        ],
        "",
    );
    assert_eq!(
        text(&o.stdout),
        "added events  enabled  http://127.0.0.1:3001/events (SSE)\n"
    );
    assert_eq!(
        text(&switchboard(d, &["servers", "disable", "time"], "").stdout),
        "disabled time\n"
    );
    let o = switchboard(d, &["--secrets-file", "servers", "export"], "");
    let exported: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(exported["mcpServers"]["time"]["env"], json!({"TZ": ""}));
    let o = switchboard(
        d,
        &[
            "--secrets-file",
            "servers",
            "export",
            "--with-secrets",
            "--yes",
        ],
        "",
    );
    let exported: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        exported,
        json!({"mcpServers": {
            "events": {"type": "sse", "url": "http://127.0.0.1:3001/events",
                       "headers": {"X-Api-Key": "abc"}},
            "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone=Asia/Shanghai"],
                     "env": {"TZ": "UTC"}, "cwd": "/tmp", "disabled": true}
        }})
    );
    assert_eq!(
        text(&switchboard(d, &["servers", "enable", "time"], "").stdout),
        "enabled time\n"
    );
    assert_eq!(
        text(&switchboard(d, &["servers", "remove", "events"], "").stdout),
        "removed events\n"
    );
    let o = switchboard(d, &["servers", "list", "--json"], "");
    let listed: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(listed[0]["config"]["name"], "time");
    assert_eq!(listed[0]["config"]["enabled"], true);
    assert_eq!(listed.as_array().unwrap().len(), 1);

    let o = switchboard(d, &["servers", "add", "time", "--command", "x"], "");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "switchboard: a server named \"time\" already exists\n"
    );
    let o = switchboard(d, &["servers", "remove", "nope"], "");
    assert_eq!(text(&o.stderr), "switchboard: server nope does not exist\n");
}

#[test]
fn a_broken_config_file_gives_one_line_per_problem_and_imports_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.json");
    std::fs::write(
        &file,
        r#"{"mcpServers": {
  "fs": {"command": ""},
  "remote": {"url": "ftp://example.com/mcp"},
  "py": {"command": "uv", "env": {"PORT": 3000}},
  "ok": {"command": "npx"}
}}"#,
    )
    .unwrap();
    let data = dir.path().join("data");
    let o = switchboard(&data, &["servers", "import", file.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "switchboard: server \"fs\": \"command\" must be a non-empty string\n\
         switchboard: server \"remote\": \"url\" is not an http(s) URL\n\
         switchboard: server \"py\": \"env\" value of \"PORT\" must be a string\n"
    );
    assert_eq!(text(&o.stdout), "");

    std::fs::write(
        &file,
        "{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"npx\"\n}",
    )
    .unwrap();
    let o = switchboard(&data, &["servers", "import", file.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "switchboard: invalid JSON at line 4, column 1: EOF while parsing an object\n"
    );
    let o = switchboard(&data, &["servers", "list", "--json"], "");
    assert_eq!(text(&o.stdout), "[]\n");
}

#[test]
fn servers_are_previewed_imported_added_toggled_exported_and_removed_over_ipc() {
    let h = harness();
    let preview = invoke(
        &h,
        "preview_import_servers",
        json!({ "json": CLAUDE_DESKTOP }),
    )
    .unwrap();
    assert_eq!(
        preview["report"],
        json!({"added": ["filesystem", "github", "remote", "legacy"], "skipped": [], "replaced": []})
    );
    assert_eq!(invoke(&h, "list_servers", json!({})).unwrap(), json!([]));
    let report = invoke(
        &h,
        "import_servers",
        json!({ "json": CLAUDE_DESKTOP, "replace": false }),
    )
    .unwrap();
    assert_eq!(report["added"].as_array().unwrap().len(), 4);
    let report = invoke(
        &h,
        "import_servers",
        json!({ "json": r#"{"github": {"command": "gh"}}"#, "replace": true }),
    )
    .unwrap();
    assert_eq!(
        report,
        json!({"added": [], "skipped": [], "replaced": ["github"]})
    );

    let input = json!({ "input": {
        "name": "time",
        "transport": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]},
    }});
    let added = invoke(&h, "add_server", input).unwrap();
    assert_eq!(
        added["config"],
        json!({
            "name": "time",
            "transport": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"], "env": {},
                          "cwd": null},
            "enabled": true, "startupTimeoutMs": 60000, "callTimeoutMs": 60000,
            "autoStart": true, "approval": "ask"
        })
    );
    let off = invoke(
        &h,
        "set_server_enabled",
        json!({ "id": added["id"], "enabled": false }),
    )
    .unwrap();
    assert_eq!(off["config"]["enabled"], false);
    let exported = invoke(&h, "export_servers", json!({ "withSecrets": false })).unwrap();
    let exported: Value = serde_json::from_str(exported.as_str().unwrap()).unwrap();
    assert_eq!(
        exported["mcpServers"]["time"],
        json!({"command": "uvx", "args": ["mcp-server-time"], "disabled": true})
    );
    assert_eq!(
        invoke(&h, "remove_server", json!({ "id": "time" })).unwrap(),
        Value::Null
    );
    let listed = invoke(&h, "list_servers", json!({})).unwrap();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["config"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["filesystem", "github", "legacy", "remote"]);

    let bad = json!({ "input": {
        "name": "x", "transport": {"type": "http", "url": "not a url"},
    }});
    assert_eq!(
        invoke(&h, "add_server", bad).unwrap_err(),
        json!({"kind": "invalid_input", "message": "server \"x\": \"url\" is not an http(s) URL"})
    );
    assert_eq!(
        invoke(
            &h,
            "import_servers",
            json!({ "json": "{", "replace": false })
        )
        .unwrap_err(),
        json!({"kind": "invalid_input",
               "message": "invalid JSON at line 1, column 1: EOF while parsing an object"})
    ); // The window's saves started the enabled servers; stop them (the runtime outlives the test).
    let engine = h.window.state::<Engine>().inner().clone();
    tauri::async_runtime::block_on(engine.shutdown());
}

#[tokio::test]
async fn a_servers_oauth_client_settings_round_trip_and_its_secret_stays_in_the_keychain() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let doc = r#"{"mcpServers": {"corp": {
        "url": "https://mcp.corp.test/mcp",
        "oauth": {"clientId": "svc-42", "grant": "client_credentials", "scopes": ["read"],
                  "signingAlgorithm": "ES256"}
    }}}"#;
    engine
        .mcp()
        .import_servers(doc, Conflict::Skip)
        .await
        .unwrap();
    let corp = &engine.mcp().list_servers().await.unwrap()[0].config;
    assert_eq!(corp.oauth.client_id.as_deref(), Some("svc-42"));
    assert_eq!(corp.spec().oauth, corp.oauth);
    assert!(!engine.mcp().server_client_secret_set("corp").await.unwrap());
    let pem =
        "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49-very-secret\n-----END PRIVATE KEY-----";
    engine
        .mcp()
        .set_server_client_secret("corp", Some(pem.into()))
        .await
        .unwrap();
    assert!(engine.mcp().server_client_secret_set("corp").await.unwrap());
    let exported = engine.mcp().export_servers(false).await.unwrap();
    let reread = switchboard_engine::mcp::parse_config(&exported).unwrap();
    assert_eq!(reread[0].oauth, corp.oauth, "{exported}");
    // The database file and its write-ahead log, as bytes.
    let mut database = std::fs::read(engine.store().path()).unwrap();
    let wal = engine.store().path().with_extension("db-wal");
    database.extend(std::fs::read(wal).unwrap_or_default());
    let haystack = String::from_utf8_lossy(&database);
    assert!(haystack.contains("svc-42"));
    assert!(!haystack.contains("very-secret") && !exported.contains("very-secret"));
    engine.mcp().remove_server("corp").await.unwrap();
    let again = "{\"mcpServers\": {\"corp\": {\"url\": \"https://mcp.corp.test/mcp\"}}}";
    engine
        .mcp()
        .import_servers(again, Conflict::Skip)
        .await
        .unwrap();
    assert!(
        !engine.mcp().server_client_secret_set("corp").await.unwrap(),
        "removing a server forgets its secret"
    );
}

#[tokio::test]
async fn a_secret_in_the_oauth_object_is_refused_with_a_pointer_to_the_keychain() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let doc = r#"{"mcpServers": {"corp": {"url": "https://mcp.corp.test/mcp",
        "oauth": {"clientId": "svc", "clientSecret": "hunter2-hunter2"}},
        "local": {"command": "node", "oauth": {}}}}"#;
    let err = engine
        .mcp()
        .import_servers(doc, Conflict::Skip)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("server \"corp\": \"oauth.clientSecret\" is a secret"),
        "{err}"
    );
    assert!(
        err.contains("server \"local\": \"oauth\" applies only to remote"),
        "{err}"
    );
    assert!(!err.contains("hunter2"));
    assert_eq!(engine.mcp().list_servers().await.unwrap(), vec![]);
}
