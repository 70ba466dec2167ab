//! The built-in `web` server configured as a user configures it (an `mcpServers` entry, or the
//! form): its search key is kept in the keychain — never in the database file, its WAL or a
//! plain export — and leaves the engine masked, while its provider and URL stay readable; when
//! the server starts it is given the key, which reaches the provider (a local server replaying
//! Brave's recorded answer) in Brave's header.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::json;
use switchboard_engine::Engine;
use switchboard_engine::logging::Redactor;
use switchboard_engine::mcp::Conflict;
use switchboard_engine::paths::Paths;
use switchboard_engine::secrets::{KeyringSecrets, Secrets};
use switchboard_engine::vocab::mcp::ResultPart;
use switchboard_engine::vocab::server::{SECRET_MASK, Transport};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const KEY: &str = "BSA-suite-secret-0123456789";
const BRAVE: &str = include_str!("../fixtures/web-search/brave.json");

async fn open(dir: &Path) -> Engine {
    let redactor = Redactor::default();
    let keychain = Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(keychain, Arc::new(|_: &str| None), redactor.clone());
    Engine::open(Paths::under(dir), redactor, secrets)
        .await
        .unwrap()
}

/// A loopback server answering Brave's recorded answer; returns its port and the request heads.
async fn brave_replay() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut head = vec![0u8; 8192];
            let n = socket.read(&mut head).await.unwrap_or(0);
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&head[..n]).into_owned());
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{BRAVE}",
                BRAVE.len()
            );
            let _ = socket.write_all(reply.as_bytes()).await;
        }
    });
    (port, seen)
}

#[tokio::test]
async fn the_web_servers_key_stays_in_the_keychain_and_reaches_only_the_provider() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path()).await;
    let (port, seen) = brave_replay().await;
    let doc = json!({"mcpServers": {"search": {
        "builtin": "web",
        "env": {"BRAVE_API_KEY": KEY},
        "settings": {"SEARCH_PROVIDER": "brave", "SEARCH_ENDPOINT": format!("http://127.0.0.1:{port}/res/v1/web/search")},
        "approval": "allow"
    }}});
    engine
        .mcp()
        .import_servers(&doc.to_string(), Conflict::Skip)
        .await
        .unwrap();

    let listed = engine.mcp().list_servers().await.unwrap();
    let Transport::Builtin { env, settings, .. } = &listed[0].config.transport else {
        panic!("not built-in: {listed:?}");
    };
    assert_eq!(
        env.get("BRAVE_API_KEY").map(String::as_str),
        Some(SECRET_MASK)
    );
    assert_eq!(
        settings.get("SEARCH_PROVIDER").map(String::as_str),
        Some("brave")
    );
    let mut stored = std::fs::read(engine.store().path()).unwrap();
    stored
        .extend(std::fs::read(engine.store().path().with_extension("db-wal")).unwrap_or_default());
    let stored = String::from_utf8_lossy(&stored);
    assert!(stored.contains("BRAVE_API_KEY") && stored.contains("SEARCH_PROVIDER"));
    assert!(!stored.contains(KEY), "the key is in the database file");
    let export = engine.mcp().export_servers(false).await.unwrap();
    assert!(
        export.contains("\"SEARCH_PROVIDER\": \"brave\"") && !export.contains(KEY),
        "{export}"
    );

    engine.mcp().start_server("search").await.unwrap();
    let result = engine
        .mcp()
        .call_tool(
            "search",
            "search",
            json!({"query": "python", "count": 2}),
            Default::default(),
        )
        .await
        .unwrap();
    let [ResultPart::Text { text }] = result.content.as_slice() else {
        panic!("{result:?}");
    };
    assert!(
        text.starts_with("Results for \"python\" (Brave Search):\n\n[1] Welcome to Python.org\n"),
        "{text}"
    );
    let heads = seen.lock().unwrap().clone();
    assert_eq!(heads.len(), 1, "{heads:?}");
    assert!(
        heads[0].starts_with("GET /res/v1/web/search?q=python&count=2 "),
        "{}",
        heads[0]
    );
    assert!(
        heads[0]
            .to_lowercase()
            .contains(&format!("x-subscription-token: {}", KEY.to_lowercase())),
        "{}",
        heads[0]
    );
}
