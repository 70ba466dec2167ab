//! Security, second pass: remote transports, OAuth, downloads and provider answers: no
//! cross-origin redirects, bounded reads (issue 31, points 3 and 6). Real servers on 127.0.0.1
//! (a second port is another origin, which records whatever reaches it), a real stdio child, a
//! real profile database. Also: an assistants import never replaces an assistant (point 6).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use serde_json::json;
use switchboard_engine::mcp::{Headless, IgnoreNotifications, McpClient, OAuth};
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::vocab::server::{ServerSpec, Transport};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What reached the other origin: method, path and every header, per request.
type Seen = Arc<Mutex<Vec<(String, String, HeaderMap)>>>;

/// Serves `app` on a fresh 127.0.0.1 port; its origin.
async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    origin
}

/// Another origin that records every request and answers 200 with an empty JSON object.
async fn recorder() -> (String, Seen) {
    let seen = Seen::default();
    let app = Router::new()
        .fallback(any(
            |State(seen): State<Seen>, method: Method, uri: Uri, headers: HeaderMap| async move {
                let entry = (method.to_string(), uri.path().to_owned(), headers);
                seen.lock().unwrap().push(entry);
                (StatusCode::OK, axum::Json(json!({})))
            },
        ))
        .with_state(seen.clone());
    (serve(app).await, seen)
}

/// An origin whose every request is answered `307` to the same path at `elsewhere`.
async fn redirector(elsewhere: String) -> String {
    let app = Router::new().fallback(any(move |uri: Uri| async move {
        let to = format!("{elsewhere}{}", uri.path());
        (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, to)])
    }));
    serve(app).await
}

/// The configured header every remote spec here carries.
fn secret_header() -> BTreeMap<String, String> {
    BTreeMap::from([("X-API-Key".to_owned(), "sk-configured-secret".to_owned())])
}

fn spec(transport: Transport) -> ServerSpec {
    let mut spec = ServerSpec::new("remote", transport);
    spec.startup_timeout = Duration::from_secs(10);
    spec
}

/// OAuth with a mock keychain and a headless "browser" (never reached here).
fn oauth() -> OAuth {
    let secrets = Arc::new(KeyringSecrets::mock().unwrap());
    OAuth::new(secrets, Arc::new(Headless::new(|_| {}))).with_wait(Duration::from_secs(2))
}

fn assert_nothing_reached(seen: &Seen) {
    let seen = seen.lock().unwrap();
    let leaked: Vec<_> = seen
        .iter()
        .map(|(m, p, h)| (m, p, h.get("x-api-key").cloned()))
        .collect();
    assert!(leaked.is_empty(), "the other origin received {leaked:?}");
}

#[tokio::test]
async fn a_streamable_http_307_to_another_origin_gets_no_configured_header_and_fails_clearly() {
    let (elsewhere, seen) = recorder().await;
    let origin = redirector(elsewhere).await;
    let transport = Transport::Http {
        url: format!("{origin}/mcp"),
        headers: secret_header(),
    };
    let spec = spec(transport);
    // As the app connects (with OAuth at hand), and without.
    let with_oauth = McpClient::connect_with_oauth(&spec, IgnoreNotifications, Some(&oauth()))
        .await
        .map(|_| ())
        .expect_err("the redirected server connected");
    let without = McpClient::connect(&spec, IgnoreNotifications)
        .await
        .map(|_| ())
        .expect_err("the redirected server connected");
    assert_nothing_reached(&seen);
    for error in [with_oauth.to_string(), without.to_string()] {
        assert!(error.contains("another origin"), "{error}");
        assert!(!error.contains('\n'), "{error}");
    }
}

#[tokio::test]
async fn an_sse_307_to_another_origin_gets_no_configured_header_and_fails_clearly() {
    let (elsewhere, seen) = recorder().await;
    let origin = redirector(elsewhere).await;
    let transport = Transport::Sse {
        url: format!("{origin}/sse"),
        headers: secret_header(),
    };
    let error = McpClient::connect(&spec(transport), IgnoreNotifications)
        .await
        .map(|_| ())
        .expect_err("the redirected SSE server connected")
        .to_string();
    assert_nothing_reached(&seen);
    assert!(error.contains("another origin"), "{error}");
}

/// An MCP endpoint demanding OAuth whose authorization server (same origin) sends the dynamic
/// registration on to `elsewhere` with a 307.
async fn oauth_server(elsewhere: String) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let o = origin.clone();
    let resource = json!({"resource": format!("{o}/mcp"), "authorization_servers": [o]});
    let metadata = json!({
        "issuer": o,
        "authorization_endpoint": format!("{o}/authorize"),
        "token_endpoint": format!("{o}/token"),
        "registration_endpoint": format!("{o}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    });
    let challenge =
        format!("Bearer resource_metadata=\"{o}/.well-known/oauth-protected-resource/mcp\"");
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(move || async move { axum::Json(resource) }),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(move || async move { axum::Json(metadata) }),
        )
        .route(
            "/register",
            any(move || async move {
                let to = format!("{elsewhere}/register");
                (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, to)])
            }),
        )
        .route(
            "/mcp",
            any(move || async move {
                (
                    StatusCode::UNAUTHORIZED,
                    [(header::WWW_AUTHENTICATE, challenge)],
                )
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    origin
}

#[tokio::test]
async fn the_oauth_client_does_not_follow_a_registration_redirect_to_another_origin() {
    let (elsewhere, seen) = recorder().await;
    let origin = oauth_server(elsewhere).await;
    let transport = Transport::Http {
        url: format!("{origin}/mcp"),
        headers: BTreeMap::new(),
    };
    let error =
        McpClient::connect_with_oauth(&spec(transport), IgnoreNotifications, Some(&oauth()))
            .await
            .map(|_| ())
            .expect_err("the server connected without authorization")
            .to_string();
    assert!(
        seen.lock().unwrap().is_empty(),
        "the registration reached the other origin: {error}"
    );
    assert!(error.contains("another origin"), "{error}");
}

// --- Model downloads ---------------------------------------------------------------------

#[cfg(feature = "local")]
mod downloads {
    use switchboard_engine::local::download::{DownloadRequest, download};
    use switchboard_engine::local::{LocalError, ModelsDir};
    use tokio_util::sync::CancellationToken;

    use super::*;

    /// A GGUF-shaped payload of 1 MB whose bytes depend on `seed`.
    fn payload(seed: u32) -> Vec<u8> {
        let mut data = b"GGUF\x03\0\0\0".to_vec();
        data.extend(
            (0..1_000_000u32)
                .map(|i| (i.wrapping_add(seed).wrapping_mul(2_654_435_761) >> 13) as u8),
        );
        data
    }

    /// How a server answers one request for its file.
    #[derive(Clone, Copy)]
    enum Mode {
        /// Honours `Range`; never cuts.
        Honest,
        /// Sends half the file (200, full length announced), then breaks the connection.
        AlwaysCut,
        /// The first request is cut halfway; a `Range` request is answered 206 from byte 0
        /// (its `Content-Range` says so); a plain one whole.
        WrongRange,
    }

    #[derive(Clone)]
    struct File {
        data: Arc<Vec<u8>>,
        mode: Mode,
        requests: Arc<AtomicUsize>,
        ranges: Arc<Mutex<Vec<Option<String>>>>,
    }

    async fn answer(State(f): State<File>, headers: HeaderMap) -> Response {
        let range = headers
            .get(header::RANGE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        f.ranges.lock().unwrap().push(range.clone());
        let first = f.requests.fetch_add(1, Ordering::SeqCst) == 0;
        let len = f.data.len();
        let asked: usize = range
            .as_deref()
            .and_then(|r| r.strip_prefix("bytes="))
            .and_then(|r| r.strip_suffix('-'))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let cut =
            matches!(f.mode, Mode::AlwaysCut) || (matches!(f.mode, Mode::WrongRange) && first);
        if cut {
            let half = Bytes::copy_from_slice(&f.data[..len / 2]);
            let items: Vec<Result<Bytes, std::io::Error>> =
                vec![Ok(half), Err(std::io::Error::other("cut off"))];
            let body = Body::from_stream(futures::stream::iter(items));
            return ([(header::CONTENT_LENGTH, len.to_string())], body).into_response();
        }
        let start = match f.mode {
            Mode::WrongRange => 0,
            _ => asked,
        };
        let body = Body::from(f.data[start..].to_vec());
        let mut response =
            ([(header::CONTENT_LENGTH, (len - start).to_string())], body).into_response();
        if range.is_some() {
            *response.status_mut() = StatusCode::PARTIAL_CONTENT;
            let value = format!("bytes {start}-{}/{len}", len - 1);
            response
                .headers_mut()
                .insert(header::CONTENT_RANGE, value.parse().unwrap());
        }
        response
    }

    /// Serves `data` at `/<dir>/model.gguf` as `mode` says; its URL and the file's state.
    async fn file_server(dir: &str, data: Vec<u8>, mode: Mode) -> (String, File) {
        let file = File {
            data: Arc::new(data),
            mode,
            requests: Arc::default(),
            ranges: Arc::default(),
        };
        let app = Router::new()
            .route(&format!("/{dir}/model.gguf"), get(answer))
            .with_state(file.clone());
        (format!("{}/{dir}/model.gguf", serve(app).await), file)
    }

    async fn fetch(dir: &ModelsDir, url: &str) -> Result<u64, LocalError> {
        let request = DownloadRequest {
            url: url.to_owned(),
            sha256: None,
        };
        let client = reqwest::Client::new();
        let cancel = CancellationToken::new();
        download(&client, dir, &request, &cancel, |_| {})
            .await
            .map(|m| m.size)
    }

    #[tokio::test]
    async fn a_resumed_download_whose_url_changed_does_not_splice() {
        let folder = tempfile::tempdir().unwrap();
        let dir = ModelsDir::new(folder.path().to_path_buf());
        let (first_url, _) = file_server("a", payload(1), Mode::AlwaysCut).await;
        let error = fetch(&dir, &first_url).await.unwrap_err();
        assert!(matches!(error, LocalError::Interrupted { .. }), "{error}");

        let wanted = payload(2);
        let (second_url, second) = file_server("b", wanted.clone(), Mode::Honest).await;
        let size = fetch(&dir, &second_url).await.unwrap();
        assert_eq!(size, wanted.len() as u64);
        assert_eq!(
            std::fs::read(folder.path().join("model.gguf")).unwrap(),
            wanted
        );
        assert_eq!(
            *second.ranges.lock().unwrap(),
            [None],
            "the first URL's part was resumed"
        );
    }

    #[tokio::test]
    async fn a_206_with_a_wrong_content_range_start_is_not_appended() {
        let folder = tempfile::tempdir().unwrap();
        let dir = ModelsDir::new(folder.path().to_path_buf());
        let wanted = payload(3);
        let (url, file) = file_server("c", wanted.clone(), Mode::WrongRange).await;
        let size = fetch(&dir, &url).await.unwrap();
        assert_eq!(
            std::fs::read(folder.path().join("model.gguf")).unwrap(),
            wanted
        );
        assert_eq!(size, wanted.len() as u64);
        let half = wanted.len() / 2;
        assert_eq!(
            *file.ranges.lock().unwrap(),
            [None, Some(format!("bytes={half}-")), None],
            "the part was not started over"
        );
    }
}

// --- Provider answers ----------------------------------------------------------------------

/// A server answering every connection with a chunked JSON body of `total` bytes; the count of
/// bytes it managed to send (the reader stopping early breaks the connection).
async fn endless_json(total: usize) -> (String, tokio::task::JoinHandle<usize>) {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let sender = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut request = [0u8; 4096];
        let _ = stream.read(&mut request).await;
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                    Transfer-Encoding: chunked\r\n\r\n";
        stream.write_all(head.as_bytes()).await.unwrap();
        let model = br#"{"id":"gpt-padding-model-name","object":"model"},"#;
        let chunk: Vec<u8> = model.iter().copied().cycle().take(64 * 1024).collect();
        let mut sent = 0;
        let opening = br#"{"object":"list","data":["#;
        let _ = stream
            .write_all(format!("{:x}\r\n", opening.len()).as_bytes())
            .await;
        let _ = stream.write_all(opening).await;
        let _ = stream.write_all(b"\r\n").await;
        while sent < total {
            let framed = [
                format!("{:x}\r\n", chunk.len()).into_bytes(),
                chunk.clone(),
                b"\r\n".to_vec(),
            ]
            .concat();
            if stream.write_all(&framed).await.is_err() {
                break;
            }
            sent += chunk.len();
        }
        sent
    });
    (url, sender)
}

#[tokio::test]
async fn a_provider_model_list_of_50_mb_is_refused_without_reading_it_all() {
    use switchboard_engine::provider::{
        Endpoint, HttpOptions, HttpProvider, Provider, ProviderKind,
    };
    let total = 50 * 1024 * 1024;
    let (url, sender) = endless_json(total).await;
    let endpoint = Endpoint {
        kind: ProviderKind::Openai,
        base_url: url,
        headers: Default::default(),
        strict_tools: false,
    };
    let provider = HttpProvider::new(endpoint, None, HttpOptions::default()).unwrap();
    let error = provider.list_models().await.unwrap_err().to_string();
    assert!(error.contains("larger than 8 MiB"), "{error}");
    let sent = tokio::time::timeout(Duration::from_secs(20), sender)
        .await
        .expect("the server is still sending")
        .unwrap();
    assert!(sent < total / 2, "{sent} of {total} bytes were read");
}

// --- Stdio servers' stderr -------------------------------------------------------------------

/// A stdio MCP server (Python, standard library only) that answers `initialize`, refuses any
/// other request, and once initialized writes 10 MB to stderr without a newline, then waits.
const LOUD_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "notifications/initialized":
        sys.stderr.write("x" * (10 * 1024 * 1024))
        sys.stderr.flush()
        continue
    if "id" not in message:
        continue
    if message.get("method") == "initialize":
        answer = {"result": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "serverInfo": {"name": "loud", "version": "1.0.0"}}}
    else:
        answer = {"error": {"code": -32601, "message": "method not found"}}
    answer.update({"jsonrpc": "2.0", "id": message["id"]})
    print(json.dumps(answer), flush=True)
"#;

#[tokio::test]
async fn a_10_mb_stderr_line_without_newline_stays_bounded() {
    let folder = tempfile::tempdir().unwrap();
    let script = folder.path().join("loud.py");
    std::fs::write(&script, LOUD_SERVER).unwrap();
    let transport = Transport::Stdio {
        command: "python3".into(),
        args: vec![script.to_string_lossy().into_owned()],
        env: BTreeMap::new(),
        cwd: None,
    };
    let client = McpClient::connect(&spec(transport), IgnoreNotifications)
        .await
        .unwrap();
    let log = client.stderr().unwrap();
    let started = Instant::now();
    // The line has no end yet: what is kept of it must show (cut) while it is still coming.
    while log.lines().is_empty() && started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let lines = log.lines();
    assert_eq!(
        lines.len(),
        1,
        "no stderr line shown while the 10 MB line is read"
    );
    assert!(
        lines[0].len() <= 8 * 1024 + 4,
        "{} bytes kept",
        lines[0].len()
    );
    assert!(lines[0].ends_with('…'), "the cut is not marked");
    client.shutdown().await;
}

// --- Assistants import ------------------------------------------------------------------------

#[tokio::test]
async fn an_assistants_import_keeps_the_assistant_here_and_adds_the_imported_one_as_a_copy() {
    use switchboard_engine::export::assistants::{export_assistants, import_assistants};
    use switchboard_engine::store::AssistantDraft;
    let folder = tempfile::tempdir().unwrap();
    let store = switchboard_engine::Store::open(&folder.path().join("profile.db"))
        .await
        .unwrap();
    let draft = AssistantDraft {
        name: "Writer".into(),
        system_prompt: "Mine.".into(),
        ..Default::default()
    };
    let mine = store.insert_assistant(&draft).await.unwrap();
    // A file carrying an assistant with the same id and other contents.
    let file = folder.path().join("assistants.json");
    export_assistants(&store, &[], &file).await.unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("Mine.", "Someone else's.")).unwrap();

    let done = import_assistants(&store, &file).await.unwrap();
    assert_eq!((done.added, done.copied, done.unchanged), (0, 1, 0));
    assert_eq!(store.find_assistant(&mine.id).await.unwrap(), mine);
    let copy = store.find_assistant("Writer (2)").await.unwrap();
    assert_ne!(copy.id, mine.id);
    assert_eq!(copy.system_prompt, "Someone else's.");
    let again = import_assistants(&store, &file).await.unwrap();
    assert_eq!((again.added, again.copied, again.unchanged), (0, 0, 1));
    assert_eq!(store.list_assistants().await.unwrap().len(), 2);
}
