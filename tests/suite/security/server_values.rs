//! A server's env and header values (finding 6): they live in the keychain, never in the
//! database file or its WAL; they leave the engine masked, and an export writes them only when
//! asked; a masked value sent back keeps the stored one; a removal forgets them; values a
//! database of an older version holds move to the keychain at start.

use std::path::Path;
use std::sync::Arc;

use secrecy::ExposeSecret;
use switchboard_engine::Engine;
use switchboard_engine::logging::Redactor;
use switchboard_engine::mcp::Conflict;
use switchboard_engine::mcp::server_values_account as account;
use switchboard_engine::paths::Paths;
use switchboard_engine::secrets::{KeyringSecrets, SecretStore, Secrets};
use switchboard_engine::vocab::server::{SECRET_MASK, secrets_of};

const TOKEN: &str = "ghp_suite_secret_0123456789";
const HEADER: &str = "Bearer suite-header-secret-42";

async fn open(dir: &Path, keychain: &Arc<KeyringSecrets>) -> Engine {
    let redactor = Redactor::default();
    let secrets = Secrets::new(keychain.clone(), Arc::new(|_: &str| None), redactor.clone());
    Engine::open(Paths::under(dir), redactor, secrets)
        .await
        .unwrap()
}

/// The database file and its write-ahead log, as text.
fn database_bytes(engine: &Engine) -> String {
    let mut bytes = std::fs::read(engine.store().path()).unwrap();
    let wal = engine.store().path().with_extension("db-wal");
    bytes.extend(std::fs::read(wal).unwrap_or_default());
    String::from_utf8_lossy(&bytes).into_owned()
}

const DOC: &str = r#"{"mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
               "env": {"GITHUB_TOKEN": "ghp_suite_secret_0123456789", "LOG_LEVEL": "info"}},
    "remote": {"url": "https://mcp.suite.test/mcp",
               "headers": {"Authorization": "Bearer suite-header-secret-42"}}
}}"#;

#[tokio::test]
async fn env_and_header_values_stay_out_of_the_database_and_leave_the_engine_masked() {
    let dir = tempfile::tempdir().unwrap();
    let keychain = Arc::new(KeyringSecrets::mock().unwrap());
    let engine = open(dir.path(), &keychain).await;
    engine
        .mcp()
        .import_servers(DOC, Conflict::Skip)
        .await
        .unwrap();

    let listed = engine.mcp().list_servers().await.unwrap();
    for record in &listed {
        let values = secrets_of(&record.config.transport);
        assert!(!values.is_empty() && values.values().all(|v| v == SECRET_MASK));
    }
    let stored = database_bytes(&engine);
    assert!(
        stored.contains("GITHUB_TOKEN"),
        "the names stay in the database"
    );
    assert!(!stored.contains(TOKEN) && !stored.contains(HEADER));

    let plain = engine.mcp().export_servers(false).await.unwrap();
    assert!(plain.contains("GITHUB_TOKEN") && !plain.contains(TOKEN) && !plain.contains(HEADER));
    let full = engine.mcp().export_servers(true).await.unwrap();
    assert!(full.contains(TOKEN) && full.contains(HEADER), "{full}");
}

#[tokio::test]
async fn a_masked_value_sent_back_keeps_the_stored_one_and_a_removal_forgets_them() {
    let dir = tempfile::tempdir().unwrap();
    let keychain = Arc::new(KeyringSecrets::mock().unwrap());
    let engine = open(dir.path(), &keychain).await;
    engine
        .mcp()
        .import_servers(DOC, Conflict::Skip)
        .await
        .unwrap();
    let github = engine.mcp().list_servers().await.unwrap()[0].clone();
    assert_eq!(github.config.name, "github");

    // The form sends the record back as it got it, with one value typed anew.
    let mut edited = github.config.clone();
    switchboard_engine::vocab::server::secrets_of_mut(&mut edited.transport)
        .insert("LOG_LEVEL".into(), "debug".into());
    engine
        .mcp()
        .update_server(&github.id, edited)
        .await
        .unwrap();
    let full = engine.mcp().export_servers(true).await.unwrap();
    assert!(full.contains(TOKEN), "the masked token is kept: {full}");
    assert!(full.contains("debug") && !full.contains("\"info\""));
    assert!(!database_bytes(&engine).contains(TOKEN));

    let stored = keychain.get(&account(&github.id)).unwrap().unwrap();
    assert!(stored.expose_secret().contains(TOKEN));
    engine.mcp().remove_server("github").await.unwrap();
    assert!(keychain.get(&account(&github.id)).unwrap().is_none());
}

#[tokio::test]
async fn values_an_older_version_left_in_the_database_move_to_the_keychain_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let keychain = Arc::new(KeyringSecrets::mock().unwrap());
    let engine = open(dir.path(), &keychain).await;
    let doc = r#"{"mcpServers": {"old": {"command": "srv", "env": {"TOKEN": ""}}}}"#;
    engine
        .mcp()
        .import_servers(doc, Conflict::Skip)
        .await
        .unwrap();
    let path = engine.store().path().to_owned();
    engine.store().close().await;
    drop(engine);

    // What an older version wrote: the value under the config column's "secrets" key.
    let legacy = "legacy-secret-value-77";
    let url = format!("sqlite://{}", path.display());
    let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    let sql = "UPDATE mcp_servers SET config = json_set(config, '$.secrets', json(?))";
    sqlx::query(sql)
        .bind(format!("{{\"TOKEN\": \"{legacy}\"}}"))
        .execute(&mut conn)
        .await
        .unwrap();
    sqlx::Connection::close(conn).await.unwrap();
    assert!(String::from_utf8_lossy(&std::fs::read(&path).unwrap()).contains(legacy));

    let engine = open(dir.path(), &keychain).await;
    let full = engine.mcp().export_servers(true).await.unwrap();
    assert!(
        full.contains(legacy),
        "the value still reaches the server: {full}"
    );
    assert!(
        !database_bytes(&engine).contains(legacy),
        "zeroed in the file and WAL"
    );
    let listed = engine.mcp().list_servers().await.unwrap();
    assert_eq!(
        secrets_of(&listed[0].config.transport)["TOKEN"],
        SECRET_MASK
    );
}
