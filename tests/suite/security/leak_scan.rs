//! The secret-leak scan: with a provider key, an MCP server's env and header values and an
//! OAuth token configured and used (a server started with its env, a remote server reached
//! with its token), every place a secret could end up is searched — the database file and its
//! WAL, the log file (debug level), every export format, the servers export, what the engine
//! hands the UI (server records, provider views) and a running server's environment. Each
//! secret must occur 0 times; the counts are printed (`--nocapture`) for the closing note.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use secrecy::SecretString;
use serde_json::json;
use switchboard_engine::export::{ExportFormat, ExportRequest, ExportScope, export};
use switchboard_engine::logging::subscriber;
use switchboard_engine::mcp::{Conflict, OAuth};
use switchboard_engine::providers::NewProvider;
use switchboard_engine::secrets::{KeyringSecrets, SecretStore};
use switchboard_engine::{Engine, Paths, Redactor, Secrets};

use crate::suite::agent::everything_js;

const PROVIDER_KEY: &str = "sk-leakscan-PROVIDER-61c0ffee";
const SERVER_ENV: &str = "ghp_leakscan_SERVER_ENV_77aa";
const SERVER_HEADER: &str = "leakscan-HEADER-bearer-3141";
const OAUTH_TOKEN: &str = "leakscan-OAUTH-access-2718";

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Where each place's text comes from, and the text.
struct Scan(Vec<(String, String)>);

impl Scan {
    fn file(&mut self, place: &str, path: &Path) {
        let bytes = std::fs::read(path).unwrap_or_default();
        self.0
            .push((place.into(), String::from_utf8_lossy(&bytes).into_owned()));
    }

    fn text(&mut self, place: &str, text: String) {
        self.0.push((place.into(), text));
    }

    /// Occurrences of `secret` per place.
    fn count(&self, secret: &str) -> Vec<(&str, usize)> {
        (self.0.iter())
            .map(|(place, text)| (place.as_str(), text.matches(secret).count()))
            .collect()
    }
}

#[tokio::test]
async fn no_secret_occurs_in_the_database_logs_exports_ipc_or_a_servers_environment() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    let redactor = Redactor::default();
    let (sub, log_guard) = subscriber(&logs, "off", Some("debug"), redactor.clone()).unwrap();
    let sub_guard = tracing::subscriber::set_default(sub);
    let keychain = Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(keychain.clone(), Arc::new(|_: &str| None), redactor.clone());
    let profile = dir.path().join("profile");
    let engine = Engine::open(Paths::under(&profile), redactor, secrets)
        .await
        .unwrap();

    engine
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
    let (url, seen) = super::trust::recorder().await;
    let servers = json!({"mcpServers": {
        "envy": {"command": "node", "args": [everything_js(), "stdio"],
                 "env": {"GITHUB_TOKEN": SERVER_ENV}},
        "remote": {"url": url, "headers": {"X-Api-Key": SERVER_HEADER}}
    }});
    engine
        .mcp()
        .import_servers(&servers.to_string(), Conflict::Skip)
        .await
        .unwrap();
    let token = json!({"client_id": "c", "token_response":
        {"access_token": OAUTH_TOKEN, "token_type": "bearer"}});
    let token = SecretString::from(token.to_string());
    let records = engine.mcp().list_servers().await.unwrap();
    let remote = records.iter().find(|r| r.config.name == "remote").unwrap();
    let key = switchboard_engine::vocab::server::credentials_key(&remote.id);
    keychain.set(&OAuth::account(&key, &url), &token).unwrap();

    // Use them: the stdio server starts with its env; the remote is reached with the token.
    engine.mcp().start_server("envy").await.unwrap();
    let cancel = tokio_util::sync::CancellationToken::new();
    let env = engine
        .mcp()
        .call_tool("envy", "get-env", json!({}), cancel)
        .await
        .unwrap();
    let env = serde_json::to_string(&env).unwrap();
    assert!(
        env.contains(SERVER_ENV),
        "the server did not get its own value"
    );
    let _ = engine.mcp().start_server("remote").await;
    let sent = seen.lock().unwrap().clone();
    assert!(sent.iter().any(|h| h.contains(OAUTH_TOKEN)), "{sent:?}");

    let mut scan = Scan(Vec::new());
    let records = engine.mcp().list_servers().await.unwrap();
    scan.text(
        "IPC: list_servers",
        serde_json::to_string(&records).unwrap(),
    );
    let views = engine.providers().list_providers().await.unwrap();
    scan.text(
        "IPC: list_providers",
        serde_json::to_string(&views).unwrap(),
    );
    scan.text(
        "servers export",
        engine.mcp().export_servers(false).await.unwrap(),
    );
    // Conversations to export: an imported history, and one on the configured provider.
    let history = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import/chatgpt-conversations.json");
    switchboard_engine::export::import_file(engine.store(), &history, false)
        .await
        .unwrap();
    let out = dir.path().join("exports");
    for (format, name) in [
        (ExportFormat::Json, "all.json"),
        (ExportFormat::Markdown, "md"),
        (ExportFormat::Html, "html"),
    ] {
        let out = out.join(name).display().to_string();
        let req = ExportRequest {
            format,
            scope: ExportScope::All,
            out,
            no_tool_results: false,
            no_reasoning: false,
        };
        export(engine.store(), &req, |_, _| {}).await.unwrap();
    }
    let mut files = Vec::new();
    files_under(&out, &mut files);
    for f in &files {
        scan.file("export", f);
    }
    engine.mcp().stop_server("envy").await;
    engine.shutdown().await;
    let database = engine.store().path().to_owned();
    engine.store().close().await;
    drop(sub_guard);
    drop(log_guard);
    scan.file("database", &database);
    scan.file("database WAL", &database.with_extension("db-wal"));
    let mut log_files = Vec::new();
    files_under(&logs, &mut log_files);
    assert!(!log_files.is_empty(), "no log was written");
    for f in &log_files {
        scan.file("log", f);
    }

    let mut total = 0;
    for secret in [PROVIDER_KEY, SERVER_ENV, SERVER_HEADER, OAUTH_TOKEN] {
        let counts = scan.count(secret);
        let n: usize = counts.iter().map(|(_, n)| n).sum();
        println!(
            "leak scan: {secret}: {n} occurrences in {} places",
            counts.len()
        );
        for (place, n) in counts.iter().filter(|(_, n)| *n > 0) {
            println!("  {place}: {n}");
        }
        total += n;
    }
    // A server's environment: its own value, never a provider key or another's token.
    for secret in [PROVIDER_KEY, SERVER_HEADER, OAUTH_TOKEN] {
        assert!(
            !env.contains(secret),
            "the server's environment has {secret}"
        );
    }
    assert_eq!(total, 0, "a secret leaked (see the lines above)");
}
