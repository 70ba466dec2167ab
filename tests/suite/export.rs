//! Export and import end to end: `switchboard export` / `switchboard import` as a process
//! (round trip through two profiles, dry run, truncated files), the IPC commands, and the
//! proof that no configured secret (a provider key in the secret store, an MCP server's env
//! value) ever reaches an export.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};
use switchboard_engine::export::{ExportFormat, ExportRequest, ExportScope, export, import_file};
use switchboard_engine::mcp::Conflict;
use switchboard_engine::providers::NewProvider;
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::{Engine, Paths, Redactor, Secrets};

use super::ipc::{harness, invoke};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
}

fn switchboard(data_dir: &Path, args: &[&str]) -> Output {
    crate::suite::support_cli::switchboard(data_dir, args)
}

fn ok(o: Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "stderr: {err}");
    String::from_utf8(o.stdout).unwrap()
}

fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn the_cli_exports_json_that_another_profile_imports_and_exports_byte_identically() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for f in ["chatgpt-conversations.json", "claude-conversations.json"] {
        let out = ok(switchboard(&a, &["import", arg(&fixture(f))]));
        assert!(
            out.contains(": 2 added, 0 merged, 0 skipped, 0 with conflicts"),
            "{out}"
        );
    }
    let first = dir.path().join("first.json");
    let out = ok(switchboard(
        &a,
        &["export", "--format", "json", "--all", "--out", arg(&first)],
    ));
    assert_eq!(
        out,
        format!(
            "exported 4 conversations (26 messages) to {} (1 files)\n",
            first.display()
        )
    );
    let dry = ok(switchboard(&b, &["import", arg(&first), "--dry-run"]));
    assert!(
        dry.contains("(dry run: nothing was changed): 4 to add"),
        "{dry}"
    );
    assert_eq!(
        ok(switchboard(&b, &["conversations", "list", "--json"])),
        "[]\n"
    );
    ok(switchboard(&b, &["import", arg(&first)]));
    let second = dir.path().join("second.json");
    ok(switchboard(
        &b,
        &["export", "--format", "json", "--all", "--out", arg(&second)],
    ));
    assert_eq!(
        std::fs::read(&first).unwrap(),
        std::fs::read(&second).unwrap()
    );
    let again = ok(switchboard(&b, &["import", arg(&first), "--json"]));
    let report: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(
        (
            report["source"].as_str(),
            report["report"]["skipped"].as_u64()
        ),
        (Some("switchboard"), Some(4))
    );
}

#[test]
fn the_cli_writes_markdown_and_html_folders_with_an_index_and_single_files() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    ok(switchboard(
        &data,
        &["import", arg(&fixture("chatgpt-conversations.json"))],
    ));
    let md = dir.path().join("md");
    ok(switchboard(
        &data,
        &[
            "export",
            "--format",
            "md",
            "--search",
            "晴天",
            "--out",
            arg(&md),
            "--no-reasoning",
        ],
    ));
    let mut names: Vec<String> = std::fs::read_dir(&md)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["Plotting 画图.md", "index.md"]);
    let text = std::fs::read_to_string(md.join("Plotting 画图.md")).unwrap();
    assert!(
        text.starts_with("# Plotting 画图\n")
            && text.contains("巴黎今天晴天")
            && !text.contains("Cubic is easy"),
        "{text}"
    );
    assert!(
        std::fs::read_to_string(md.join("index.md"))
            .unwrap()
            .contains("[Plotting 画图](Plotting%20%E7%94%BB%E5%9B%BE.md)")
    );
    let page = dir.path().join("one.html");
    let id = "67e1a2b3-0000-8000-9000-000000000001";
    ok(switchboard(
        &data,
        &[
            "export",
            "--format",
            "html",
            "--id",
            id,
            "--out",
            arg(&page),
            "--no-tool-results",
        ],
    ));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>")
            && html.contains("prefers-color-scheme")
            && !html.contains("Paris: sunny")
    );
    let o = switchboard(&data, &["export", "--format", "md", "--out", arg(&page)]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "switchboard: say which conversations to export: --all, --id ID…, --search QUERY or --project NAME\n"
    );
}

#[test]
fn a_truncated_import_is_one_line_naming_the_position_and_imports_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let text = std::fs::read_to_string(fixture("claude-conversations.json")).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let o = switchboard(&data, &["import", arg(&cut)]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    let line = text[..text.len() / 2].lines().count();
    assert!(
        err.starts_with(&format!(
            "switchboard: the file ends early (is it truncated?) at line {line}, column "
        )),
        "{err}"
    );
    assert!(
        err.ends_with("; nothing was imported\n") && err.lines().count() == 1,
        "{err}"
    );
    assert_eq!(
        ok(switchboard(&data, &["conversations", "list", "--json"])),
        "[]\n"
    );
}

#[test]
fn ipc_previews_imports_and_exports_conversations() {
    let h = harness();
    let dir = tempfile::tempdir().unwrap();
    let file = fixture("claude-conversations.json").display().to_string();
    let preview = invoke(&h, "preview_import", json!({"path": file})).unwrap();
    assert_eq!(
        (
            preview["source"].as_str(),
            preview["report"]["dryRun"].as_bool()
        ),
        (Some("claude"), Some(true))
    );
    assert_eq!(preview["report"]["entries"][0]["action"], "add");
    assert_eq!(
        invoke(&h, "list_conversations", json!({"page": {}})).unwrap()["items"],
        json!([])
    );
    let done = invoke(&h, "import_conversations", json!({"path": file})).unwrap();
    assert_eq!(
        (
            done["report"]["added"].as_u64(),
            done["report"]["messagesAdded"].as_u64()
        ),
        (Some(2), Some(13))
    );
    let out = dir.path().join("all.html");
    let request = json!({"format": "html", "scope": {"kind": "ids", "ids": ["c1a2b3c4-0000-4000-8000-000000000001"]}, "out": out.display().to_string()});
    let summary = invoke(
        &h,
        "export_conversations",
        json!({"request": request, "onProgress": "__CHANNEL__:9"}),
    )
    .unwrap();
    assert_eq!(
        (
            summary["conversations"].as_u64(),
            summary["messages"].as_u64(),
            summary["files"].as_u64()
        ),
        (Some(1), Some(8), Some(1))
    );
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("raining in Paris, 12°C")
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "[{\"chat_messages\": [}]").unwrap();
    let err = invoke(
        &h,
        "import_conversations",
        json!({"path": bad.display().to_string()}),
    )
    .unwrap_err();
    assert_eq!(err["kind"], "invalid_input");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("at line 1, column 21"),
        "{err}"
    );
    let missing = invoke(
        &h,
        "preview_import",
        json!({"path": dir.path().join("nope.json").display().to_string()}),
    )
    .unwrap_err();
    assert_eq!(missing["kind"], "io");
}

const PROVIDER_KEY: &str = "sk-leaktest-PROVIDER-7f3a9c1e5b";
const SERVER_SECRET: &str = "ghp_leaktest_SERVER_ENV_42d8e6";

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[tokio::test]
async fn no_export_in_any_format_contains_a_provider_key_or_a_server_env_secret() {
    let dir = tempfile::tempdir().unwrap();
    let redactor = Redactor::default();
    let keychain = std::sync::Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(
        keychain,
        std::sync::Arc::new(|_: &str| None),
        redactor.clone(),
    );
    let engine = Engine::open(Paths::under(dir.path().join("profile")), redactor, secrets)
        .await
        .unwrap();
    let provider = engine
        .providers()
        .add_provider(NewProvider {
            name: "OpenAI".into(),
            preset: "openai".into(),
            base_url: Some("http://127.0.0.1:9".into()),
            api_key: Some(PROVIDER_KEY.into()),
            headers: Default::default(),
        })
        .await
        .unwrap();
    let servers = json!({"mcpServers": {"github": {"command": "npx", "args": ["-y", "server-github"], "env": {"GITHUB_TOKEN": SERVER_SECRET}}}});
    engine
        .mcp()
        .import_servers(&servers.to_string(), Conflict::Skip)
        .await
        .unwrap();
    // Both secrets are really configured and reachable from this engine.
    let account = format!("provider:{}", provider.provider.id);
    let (key, _) = engine.secrets().key(&account, None).unwrap().unwrap();
    assert_eq!(secrecy::ExposeSecret::expose_secret(&key), PROVIDER_KEY);
    let servers = engine.mcp().export_servers(true).await.unwrap();
    assert!(servers.contains(SERVER_SECRET), "{servers}");
    // Conversations that use that provider and that server.
    for f in ["chatgpt-conversations.json", "claude-conversations.json"] {
        import_file(engine.store(), &fixture(f), false)
            .await
            .unwrap();
    }
    let c = engine
        .store()
        .create_conversation(switchboard_engine::store::NewConversation {
            title: Some("uses the configured provider".into()),
            provider_id: Some(provider.provider.id.clone()),
            model: Some("gpt-4o".into()),
            system_prompt: None,
            project_id: None,
        })
        .await
        .unwrap();
    assert!(!c.id.is_empty());
    let out = dir.path().join("exports");
    for (format, name) in [
        (ExportFormat::Json, "all.json"),
        (ExportFormat::Markdown, "md"),
        (ExportFormat::Html, "html"),
    ] {
        let req = ExportRequest {
            format,
            scope: ExportScope::All,
            out: out.join(name).display().to_string(),
            no_tool_results: false,
            no_reasoning: false,
        };
        let summary = export(engine.store(), &req, |_, _| {}).await.unwrap();
        assert_eq!(summary.conversations, 5);
    }
    let mut files = Vec::new();
    files_under(&out, &mut files);
    assert!(files.len() >= 13, "{files:?}");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(PROVIDER_KEY),
            "{} has the provider key",
            f.display()
        );
        assert!(
            !text.contains(SERVER_SECRET),
            "{} has the server secret",
            f.display()
        );
    }
    engine.shutdown().await;
}
