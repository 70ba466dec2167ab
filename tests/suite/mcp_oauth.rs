//! Remote OAuth end to end through the engine: a tiny authorization server and protected MCP
//! endpoint on 127.0.0.1 (dynamic registration, PKCE S256 checked at the token endpoint, a
//! 401 challenge naming the resource metadata), the engine publishing the authorize URL as a
//! supervisor event, a headless "browser" following it to the engine's loopback listener,
//! tokens landing in the (mock) keychain and reused on the next start. The official
//! conformance suite's auth scenarios (`make test-conformance`) cover the flow's variants.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::Router;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use switchboard_engine::mcp::{ServerState, SupervisorEvent};
use switchboard_engine::secrets::{KeyringSecrets, SecretStore};
use switchboard_engine::vocab::server::{OAuthClient, OAuthGrant, ServerConfig, Transport};
use switchboard_engine::{Engine, Paths, Redactor, Secrets};

/// What the fake authorization server saw and issued.
#[derive(Default)]
struct Seen {
    registrations: u32,
    authorizations: u32,
    /// code → (PKCE challenge, redirect URI)
    codes: HashMap<String, (String, String)>,
    tokens: Vec<String>,
    /// Redirect with `error=access_denied` instead of a code.
    refuse: bool,
    /// A machine client (id, secret): the server offers the client-credentials grant with
    /// `client_secret_basic` and no browser flow.
    machine: Option<(String, String)>,
    /// Client-credentials token requests seen.
    machine_requests: u32,
}

type Shared = Arc<Mutex<Seen>>;

/// Starts the authorization server + MCP endpoint; returns its origin.
async fn start_server(seen: Shared) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let origin = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(server_metadata),
        )
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .route(
            "/mcp",
            post(mcp).get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
        )
        .with_state((seen, origin.clone()));
    tokio::spawn(async move { axum::serve(listener, app).await });
    origin
}

type App = State<(Shared, String)>;

async fn resource_metadata(State((_, origin)): App) -> Json<Value> {
    Json(
        json!({"resource": format!("{origin}/mcp"), "authorization_servers": [origin],
        "scopes_supported": ["mcp"]}),
    )
}

async fn server_metadata(State((seen, origin)): App) -> Json<Value> {
    if seen.lock().unwrap().machine.is_some() {
        return Json(json!({
            "issuer": origin,
            "authorization_endpoint": format!("{origin}/authorize"),
            "token_endpoint": format!("{origin}/token"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        }));
    }
    Json(json!({
        "issuer": origin,
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/token"),
        "registration_endpoint": format!("{origin}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    }))
}

async fn register(State((seen, _)): App, Json(body): Json<Value>) -> Response {
    seen.lock().unwrap().registrations += 1;
    let answer = json!({"client_id": "switchboard-test", "redirect_uris": body["redirect_uris"],
        "client_name": body["client_name"], "token_endpoint_auth_method": "none"});
    (StatusCode::CREATED, Json(answer)).into_response()
}

async fn authorize(State((seen, _)): App, Query(q): Query<HashMap<String, String>>) -> Response {
    let mut seen = seen.lock().unwrap();
    seen.authorizations += 1;
    let redirect = q["redirect_uri"].clone();
    assert!(redirect.starts_with("http://127.0.0.1:"), "{redirect}");
    assert_eq!(q["code_challenge_method"], "S256");
    let state = &q["state"];
    if seen.refuse {
        return Redirect::to(&format!("{redirect}?error=access_denied&state={state}"))
            .into_response();
    }
    let code = format!("code-{}", seen.authorizations);
    let pkce = (q["code_challenge"].clone(), redirect.clone());
    seen.codes.insert(code.clone(), pkce);
    Redirect::to(&format!("{redirect}?code={code}&state={state}")).into_response()
}

async fn token(
    State((seen, _)): App,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let mut seen = seen.lock().unwrap();
    if form.get("grant_type").map(String::as_str) == Some("client_credentials") {
        return machine_token(&mut seen, &headers, &form);
    }
    let Some((challenge, redirect)) = seen.codes.remove(&form["code"]) else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant"})),
        )
            .into_response();
    };
    let digest = Sha256::digest(form["code_verifier"].as_bytes());
    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest);
    if computed != challenge || form["redirect_uri"] != redirect {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant"})),
        )
            .into_response();
    }
    let access = format!("token-{}", seen.tokens.len() + 1);
    seen.tokens.push(access.clone());
    Json(json!({"access_token": access, "token_type": "Bearer", "expires_in": 3600}))
        .into_response()
}

/// The client-credentials grant: HTTP Basic with the machine client's id and secret.
fn machine_token(seen: &mut Seen, headers: &HeaderMap, form: &HashMap<String, String>) -> Response {
    seen.machine_requests += 1;
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let expected = seen
        .machine
        .as_ref()
        .map(|(id, secret)| format!("{id}:{secret}"));
    if basic.is_none() || basic != expected || !form.contains_key("resource") {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": "invalid_client"})),
        )
            .into_response();
    }
    let access = format!("machine-{}", seen.tokens.len() + 1);
    seen.tokens.push(access.clone());
    Json(json!({"access_token": access, "token_type": "Bearer", "expires_in": 3600}))
        .into_response()
}

/// A minimal MCP endpoint answering JSON: `initialize`, `tools/list`, notifications.
async fn mcp(State((seen, origin)): App, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let valid = bearer.is_some_and(|t| seen.lock().unwrap().tokens.iter().any(|k| k == t));
    if !valid {
        let challenge = format!(
            "Bearer resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\""
        );
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
        )
            .into_response();
    }
    let Some(id) = body.get("id").cloned() else {
        return StatusCode::ACCEPTED.into_response();
    };
    let result = match body["method"].as_str() {
        Some("initialize") => {
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "protected", "version": "1.0.0"}})
        }
        Some("tools/list") => json!({"tools": [{"name": "whoami",
            "inputSchema": {"type": "object", "properties": {}}}]}),
        _ => json!({}),
    };
    Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
}

/// An engine on a temp profile with a mock keychain (returned too).
async fn engine(dir: &Path) -> (Engine, Arc<KeyringSecrets>) {
    let redactor = Redactor::default();
    let store = Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(store.clone(), Arc::new(|_: &str| None), redactor.clone());
    let engine = Engine::open(Paths::under(dir), redactor, secrets)
        .await
        .unwrap();
    (engine, store)
}

/// Plays the user's browser: follows each published authorize URL (down to the loopback).
fn browser(engine: &Engine) -> tokio::task::JoinHandle<Vec<String>> {
    let mut events = engine.mcp().subscribe();
    tokio::spawn(async move {
        let mut opened = Vec::new();
        while let Ok(event) = events.recv().await {
            if let SupervisorEvent::AuthorizationNeeded { server, url } = event {
                assert_eq!(server, "remote");
                opened.push(url.clone());
                let _ = reqwest::get(&url).await;
            }
        }
        opened
    })
}

/// Where server `id`'s tokens for the server at `origin` are kept.
fn account(id: &str, origin: &str) -> String {
    let key = switchboard_engine::vocab::server::credentials_key(id);
    switchboard_engine::mcp::OAuth::account(&key, &format!("{origin}/mcp"))
}

/// Adds `remote` at `origin`; its id.
async fn add_remote(engine: &Engine, origin: &str) -> String {
    let url = format!("{origin}/mcp");
    let transport = Transport::Http {
        url,
        headers: Default::default(),
    };
    engine
        .mcp()
        .add_server(ServerConfig::new("remote", transport))
        .await
        .unwrap()
        .id
}

#[tokio::test]
async fn a_server_that_demands_oauth_is_authorized_once_and_its_token_kept_in_the_keychain() {
    let seen = Shared::default();
    let origin = start_server(seen.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (engine, keychain) = engine(dir.path()).await;
    let id = add_remote(&engine, &origin).await;
    let browser = browser(&engine);

    engine.mcp().start_server("remote").await.unwrap();
    let tools = engine.mcp().server_tools("remote").unwrap();
    assert_eq!(
        tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["whoami"]
    );
    let stored = keychain.get(&account(&id, &origin)).unwrap().unwrap();
    let stored: Value =
        serde_json::from_str(secrecy::ExposeSecret::expose_secret(&stored)).unwrap();
    assert_eq!(stored["client_id"], "switchboard-test");
    assert_eq!(stored["token_response"]["access_token"], "token-1");

    // A restart uses the stored token: no second registration or authorization.
    engine.mcp().stop_server("remote").await;
    engine.mcp().start_server("remote").await.unwrap();
    engine.mcp().stop_server("remote").await;
    {
        let seen = seen.lock().unwrap();
        assert_eq!(
            (seen.registrations, seen.authorizations, seen.tokens.len()),
            (1, 1, 1)
        );
    }
    engine.shutdown().await;
    browser.abort();
    let _ = browser.await;
}

#[tokio::test]
async fn a_refused_authorization_fails_the_server_with_the_authorization_servers_reason() {
    let seen = Shared::default();
    seen.lock().unwrap().refuse = true;
    let origin = start_server(seen.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (engine, keychain) = engine(dir.path()).await;
    let id = add_remote(&engine, &origin).await;
    let browser = browser(&engine);

    let error = engine.mcp().start_server("remote").await.unwrap_err();
    assert!(error.to_string().contains("access_denied"), "{error}");
    assert!(matches!(
        engine.mcp().server_state("remote"),
        Some(ServerState::Failed { .. } | ServerState::Restarting { .. })
    ));
    assert!(
        keychain
            .get(&account(&id, &origin))
            .unwrap()
            .is_none_or(|s| {
                !secrecy::ExposeSecret::expose_secret(&s).contains("access_token\":\"")
            })
    );
    engine.shutdown().await;
    browser.abort();
    let _ = browser.await;
}

#[tokio::test]
async fn a_machine_client_signs_in_with_its_keychain_secret_and_no_browser() {
    let seen = Shared::default();
    seen.lock().unwrap().machine = Some(("svc-7".into(), "machine-secret-7".into()));
    let origin = start_server(seen.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (engine, keychain) = engine(dir.path()).await;
    let mut config = ServerConfig::new(
        "remote",
        Transport::Http {
            url: format!("{origin}/mcp"),
            headers: Default::default(),
        },
    );
    config.oauth = OAuthClient {
        client_id: Some("svc-7".into()),
        grant: OAuthGrant::ClientCredentials,
        ..OAuthClient::default()
    };
    let id = engine.mcp().add_server(config).await.unwrap().id;
    let browser = browser(&engine);

    let error = engine.mcp().start_server("remote").await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("no client secret or private key is set"),
        "{error}"
    );
    engine
        .mcp()
        .set_server_client_secret("remote", Some("machine-secret-7".into()))
        .await
        .unwrap();
    engine.mcp().start_server("remote").await.unwrap();
    assert_eq!(
        engine.mcp().server_tools("remote").unwrap()[0].name,
        "whoami"
    );
    engine.mcp().stop_server("remote").await;
    engine.shutdown().await;
    browser.abort();
    let _ = browser.await;
    // The "browser" follows every published authorize URL, so none was published.
    let seen = seen.lock().unwrap();
    assert_eq!((seen.machine_requests, seen.authorizations), (1, 0));
    let stored = keychain.get(&account(&id, &origin)).unwrap().unwrap();
    assert!(secrecy::ExposeSecret::expose_secret(&stored).contains("machine-1"));
}
