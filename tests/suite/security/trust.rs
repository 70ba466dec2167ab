//! Trust follows a server's identity: when its URL (or command, args, transport) changes, or
//! an import replaces it, its tool policies are cleared and its OAuth tokens are deleted, so
//! the new endpoint gets neither the old "always allow" nor the old bearer token; a rename
//! deletes the tokens stored under the old name (a new server may take it).

use std::path::Path;
use std::sync::Arc;

use secrecy::SecretString;
use switchboard_engine::mcp::{Conflict, OAuth};
use switchboard_engine::secrets::{KeyringSecrets, SecretStore};
use switchboard_engine::vocab::server::credentials_key;
use switchboard_engine::vocab::server::{Approval, ServerConfig, Transport};
use switchboard_engine::{Engine, Paths, Redactor, Secrets};

async fn engine(dir: &Path) -> (Engine, Arc<KeyringSecrets>) {
    let redactor = Redactor::default();
    let store = Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(store.clone(), Arc::new(|_: &str| None), redactor.clone());
    let engine = Engine::open(Paths::under(dir), redactor, secrets)
        .await
        .unwrap();
    (engine, store)
}

fn remote(name: &str, url: &str) -> ServerConfig {
    let transport = Transport::Http {
        url: url.to_owned(),
        headers: Default::default(),
    };
    ServerConfig::new(name, transport)
}

/// Adds `remote` at server A, trusts one of its tools and stores a token for it; its id.
async fn trusted(engine: &Engine, keychain: &KeyringSecrets) -> String {
    let id = engine
        .mcp()
        .add_server(remote("remote", "https://a.example/mcp"))
        .await
        .unwrap()
        .id;
    engine
        .mcp()
        .set_tool_policy("remote", "delete_everything", Some(Approval::Allow))
        .await
        .unwrap();
    let token = SecretString::from("{\"access_token\":\"token-for-a\"}");
    keychain
        .set(&account(&id, "https://a.example/mcp"), &token)
        .unwrap();
    id
}

/// Where server `id`'s token for `url` is kept.
fn account(id: &str, url: &str) -> String {
    OAuth::account(&credentials_key(id), url)
}

/// Whether server `id`'s token for server A is still kept.
fn token(keychain: &KeyringSecrets, id: &str) -> bool {
    keychain
        .get(&account(id, "https://a.example/mcp"))
        .unwrap()
        .is_some()
}

#[tokio::test]
async fn a_new_url_clears_the_servers_policies_and_deletes_its_oauth_token() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, keychain) = engine(dir.path()).await;
    let id = trusted(&engine, &keychain).await;
    engine
        .mcp()
        .update_server("remote", remote("remote", "https://b.example/mcp"))
        .await
        .unwrap();
    assert!(
        engine
            .mcp()
            .tool_policies("remote")
            .await
            .unwrap()
            .is_empty()
    );
    assert!(!token(&keychain, &id), "server B would receive A's token");
}

#[tokio::test]
async fn an_edit_that_keeps_the_endpoint_keeps_the_trust() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, keychain) = engine(dir.path()).await;
    let id = trusted(&engine, &keychain).await;
    let mut same = remote("remote", "https://A.example:443/mcp");
    same.call_timeout = std::time::Duration::from_secs(5);
    engine.mcp().update_server("remote", same).await.unwrap();
    assert_eq!(engine.mcp().tool_policies("remote").await.unwrap().len(), 1);
    assert!(token(&keychain, &id));
}

#[tokio::test]
async fn a_rename_deletes_the_tokens_stored_under_the_old_name() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, keychain) = engine(dir.path()).await;
    let id = trusted(&engine, &keychain).await;
    engine
        .mcp()
        .update_server("remote", remote("renamed", "https://a.example/mcp"))
        .await
        .unwrap();
    assert!(
        !token(&keychain, &id),
        "a new server named `remote` would get the token"
    );
}

#[tokio::test]
async fn an_import_replace_clears_the_policies_and_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, keychain) = engine(dir.path()).await;
    let id = trusted(&engine, &keychain).await;
    let doc = r#"{"mcpServers": {"remote": {"url": "https://evil.example/mcp"}}}"#;
    engine
        .mcp()
        .import_servers(doc, Conflict::Replace)
        .await
        .unwrap();
    assert!(
        engine
            .mcp()
            .tool_policies("remote")
            .await
            .unwrap()
            .is_empty()
    );
    assert!(!token(&keychain, &id));
}

/// A previewed server's trust notes as (field, value, widens).
type Notes = Vec<(String, String, bool)>;

#[tokio::test]
async fn the_import_preview_shows_what_widens_trust() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _) = engine(dir.path()).await;
    let doc = r#"{"fetch":{"builtin":"fetch","allowPrivate":true,"approval":"allow"},
        "files":{"builtin":"filesystem","folders":["/srv/notes"],"autoStart":false},
        "local":{"command":"node","cwd":"/opt/x","env":{"TOKEN":"s3cret-value"},
                 "inheritEnv":["LANG"]}}"#;
    let preview = engine
        .mcp()
        .preview_import(doc, Conflict::Replace)
        .await
        .unwrap();
    let shown: Vec<(String, Notes)> = preview
        .entries
        .into_iter()
        .map(|e| {
            let notes = e.trust.into_iter();
            let notes = notes.map(|n| (n.field, n.value, n.widens)).collect();
            (e.name, notes)
        })
        .collect();
    let s = |f: &str, v: &str, w: bool| (f.to_owned(), v.to_owned(), w);
    assert_eq!(
        shown,
        vec![
            (
                "fetch".to_owned(),
                vec![
                    s("approval", "allow", true),
                    s("allowPrivate", "true", true),
                    s("autoStart", "true", false),
                ]
            ),
            ("files".to_owned(), vec![s("folders", "/srv/notes", true)]),
            (
                "local".to_owned(),
                vec![
                    s("autoStart", "true", false),
                    s("cwd", "/opt/x", false),
                    s("env", "TOKEN", false),
                    s("inheritEnv", "LANG", true),
                ]
            ),
        ]
    );
}

/// A fake MCP endpoint that records the `Authorization` header of every request and refuses
/// them all (401 without a challenge); returns its URL and the headers seen.
pub(super) async fn recorder() -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
    use axum::http::{HeaderMap, StatusCode, header};
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let record = seen.clone();
    let app = axum::Router::new().fallback(move |headers: HeaderMap| {
        let record = record.clone();
        async move {
            let auth = headers.get(header::AUTHORIZATION);
            let auth = auth.and_then(|v| v.to_str().ok()).unwrap_or("(none)");
            record.lock().unwrap().push(auth.to_owned());
            StatusCode::UNAUTHORIZED
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, seen)
}

#[tokio::test]
async fn after_a_url_change_the_new_endpoint_receives_no_authorization() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, keychain) = engine(dir.path()).await;
    let ((a, seen_a), (b, seen_b)) = (recorder().await, recorder().await);
    let id = engine
        .mcp()
        .add_server(remote("remote", &a))
        .await
        .unwrap()
        .id;
    let json = r#"{"client_id":"c","token_response":{"access_token":"token-for-a",
        "token_type":"bearer"}}"#;
    keychain
        .set(&account(&id, &a), &SecretString::from(json))
        .unwrap();
    let _ = engine.mcp().start_server("remote").await;
    engine.mcp().stop_server("remote").await;
    let sent_to_a = seen_a.lock().unwrap().clone();
    assert!(
        sent_to_a.iter().any(|h| h == "Bearer token-for-a"),
        "the stored token was not used at A: {sent_to_a:?}"
    );

    engine
        .mcp()
        .update_server("remote", remote("remote", &b))
        .await
        .unwrap();
    let _ = engine.mcp().start_server("remote").await;
    engine.mcp().stop_server("remote").await;
    let sent_to_b = seen_b.lock().unwrap().clone();
    assert!(!sent_to_b.is_empty(), "B was never contacted");
    assert!(
        sent_to_b.iter().all(|h| h == "(none)"),
        "B received {sent_to_b:?}"
    );
}

#[tokio::test]
async fn a_token_kept_for_one_endpoint_is_never_sent_to_another_even_if_it_was_not_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, keychain) = engine(dir.path()).await;
    let ((a, _), (b, seen_b)) = (recorder().await, recorder().await);
    let id = engine
        .mcp()
        .add_server(remote("remote", &a))
        .await
        .unwrap()
        .id;
    engine
        .mcp()
        .update_server("remote", remote("remote", &b))
        .await
        .unwrap();
    // As if deleting A's token had failed: it is still in the keychain, under A.
    let json = r#"{"client_id":"c","token_response":{"access_token":"token-for-a",
        "token_type":"bearer"}}"#;
    keychain
        .set(&account(&id, &a), &SecretString::from(json))
        .unwrap();
    let _ = engine.mcp().start_server("remote").await;
    engine.mcp().stop_server("remote").await;
    let sent_to_b = seen_b.lock().unwrap().clone();
    assert!(!sent_to_b.is_empty(), "B was never contacted");
    assert!(
        sent_to_b.iter().all(|h| h == "(none)"),
        "B received {sent_to_b:?}"
    );
}
