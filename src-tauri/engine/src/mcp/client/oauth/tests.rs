//! The OAuth plumbing on its own: the loopback listener and the keychain credential store.
//! The whole flow against real authorization servers is the conformance suite's auth
//! scenarios (`make test-conformance`) and `tests/suite/mcp_oauth.rs`.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::auth::{CredentialStore, StoredCredentials};
use secrecy::ExposeSecret;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;
use crate::secrets::{KeyringSecrets, SecretError};

/// Sends `GET target` to the listener at `redirect_uri`'s port; returns the raw response.
async fn get(redirect_uri: &str, target: &str) -> String {
    let port = url::Url::parse(redirect_uri).unwrap().port().unwrap();
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let request = format!("GET {target} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response
}

#[tokio::test]
async fn the_loopback_listener_returns_the_callback_url_and_ignores_other_paths() {
    let listener = Loopback::bind().await.unwrap();
    let redirect = listener.redirect_uri();
    assert!(redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"));
    let wait = tokio::spawn(listener.callback(Duration::from_secs(30)));
    let favicon = get(&redirect, "/favicon.ico").await;
    assert!(favicon.starts_with("HTTP/1.1 404"), "{favicon}");
    let page = get(&redirect, "/callback?code=abc&state=xyz").await;
    assert!(page.starts_with("HTTP/1.1 200") && page.contains("authorized"));
    let origin = redirect.trim_end_matches("/callback");
    let expected = format!("{origin}/callback?code=abc&state=xyz");
    assert_eq!(wait.await.unwrap().unwrap(), expected);
}

#[tokio::test]
async fn a_refused_authorization_is_reported_with_the_servers_reason() {
    let listener = Loopback::bind().await.unwrap();
    let redirect = listener.redirect_uri();
    let wait = tokio::spawn(listener.callback(Duration::from_secs(30)));
    get(
        &redirect,
        "/callback?error=access_denied&error_description=no+thanks",
    )
    .await;
    let error = wait.await.unwrap().unwrap_err();
    assert_eq!(
        error.to_string(),
        "the authorization server refused: access_denied: no thanks"
    );
}

#[tokio::test]
async fn the_loopback_listener_gives_up_after_its_wait() {
    let listener = Loopback::bind().await.unwrap();
    let error = listener
        .callback(Duration::from_millis(50))
        .await
        .unwrap_err();
    assert!(matches!(error, OAuthError::NoCallback(_)), "{error}");
}

#[tokio::test]
async fn tokens_are_kept_in_the_secret_store_under_the_servers_account() {
    let secrets: Arc<dyn SecretStore> = Arc::new(KeyringSecrets::mock().unwrap());
    let redactor = crate::logging::Redactor::default();
    let store = KeychainCredentials {
        secrets: secrets.clone(),
        account: OAuth::account("remote", "https://mcp.example/mcp"),
        redactor: redactor.clone(),
    };
    assert!(store.load().await.unwrap().is_none());
    let credentials = StoredCredentials::new("client-1".into(), None, vec!["mcp".into()], Some(7));
    store.save(credentials).await.unwrap();
    let raw = secrets
        .get("mcp-oauth:remote@https://mcp.example/mcp")
        .unwrap()
        .unwrap();
    assert!(raw.expose_secret().contains("\"client_id\":\"client-1\""));
    let loaded = store.load().await.unwrap().unwrap();
    assert_eq!(
        (loaded.client_id, loaded.granted_scopes),
        ("client-1".into(), vec!["mcp".into()])
    );
    store.clear().await.unwrap();
    assert!(
        secrets
            .get("mcp-oauth:remote@https://mcp.example/mcp")
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn stored_tokens_are_scrubbed_from_the_logs() {
    let secrets: Arc<dyn SecretStore> = Arc::new(KeyringSecrets::mock().unwrap());
    let redactor = crate::logging::Redactor::default();
    let store = KeychainCredentials {
        secrets: secrets.clone(),
        account: OAuth::account("remote", "https://mcp.example/mcp"),
        redactor: redactor.clone(),
    };
    let json = r#"{"client_id":"c","token_response":{"access_token":"at-secret-1",
        "token_type":"bearer","refresh_token":"rt-secret-2"}}"#;
    secrets
        .set(
            &OAuth::account("remote", "https://mcp.example/mcp"),
            &json.to_owned().into(),
        )
        .unwrap();
    store.load().await.unwrap().unwrap();
    assert_eq!(
        redactor.scrub("sent at-secret-1, kept rt-secret-2"),
        "sent [REDACTED], kept [REDACTED]"
    );
}

/// A keychain that fails every call (a locked or crashed Secret Service).
struct Broken;

impl SecretStore for Broken {
    fn get(&self, _: &str) -> Result<Option<secrecy::SecretString>, SecretError> {
        Err(self.error())
    }
    fn set(&self, _: &str, _: &secrecy::SecretString) -> Result<(), SecretError> {
        Err(self.error())
    }
    fn delete(&self, _: &str) -> Result<(), SecretError> {
        Err(self.error())
    }
    fn describe(&self) -> String {
        "broken keychain".into()
    }
}

impl Broken {
    fn error(&self) -> SecretError {
        SecretError::Store {
            store: self.describe(),
            reason: "locked".into(),
        }
    }
}

#[tokio::test]
async fn an_unreadable_keychain_means_no_tokens_and_saving_reports_the_store() {
    let store = KeychainCredentials {
        secrets: Arc::new(Broken),
        account: OAuth::account("remote", "https://mcp.example/mcp"),
        redactor: crate::logging::Redactor::default(),
    };
    assert!(store.load().await.unwrap().is_none());
    let credentials = StoredCredentials::new("client-1".into(), None, vec![], None);
    let error = store.save(credentials).await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the broken keychain failed: locked"),
        "{error}"
    );
}

#[test]
fn the_scopes_of_a_challenge_are_read_quoted_or_bare_and_never_from_the_error_name() {
    let step_up = r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://x/.well-known/oauth-protected-resource""#;
    assert_eq!(
        challenge_scopes(step_up).unwrap(),
        ["files:read", "files:write"]
    );
    assert_eq!(
        challenge_scopes("Bearer scope=mcp, realm=\"x\"").unwrap(),
        ["mcp"]
    );
    assert_eq!(
        challenge_scopes(r#"Bearer error="insufficient_scope""#),
        None
    );
    assert_eq!(challenge_scopes(r#"Bearer scope="""#), None);
}

#[tokio::test]
async fn a_step_up_asks_for_the_granted_scopes_and_the_challenged_ones() {
    let secrets: Arc<dyn SecretStore> = Arc::new(KeyringSecrets::mock().unwrap());
    let oauth = OAuth::new(secrets, Arc::new(Headless::new(|_| {})));
    let challenge = r#"Bearer error="insufficient_scope", scope="write read""#;
    assert_eq!(
        oauth
            .step_up_scopes("s", "https://s.example/mcp", challenge)
            .await,
        None,
        "no grant yet"
    );
    let token: rmcp::transport::auth::OAuthTokenResponse =
        serde_json::from_value(serde_json::json!({"access_token": "t", "token_type": "Bearer"}))
            .unwrap();
    let granted = StoredCredentials::new("c".into(), Some(token), vec!["read".into()], None);
    oauth
        .store("s", "https://s.example/mcp")
        .save(granted)
        .await
        .unwrap();
    assert_eq!(
        oauth
            .step_up_scopes("s", "https://s.example/mcp", challenge)
            .await
            .unwrap(),
        ["read", "write"]
    );
}
