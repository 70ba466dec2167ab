//! Downloading a model from a server on 127.0.0.1 that serves a GGUF-shaped file with `Range`
//! support: a connection dropped midway is resumed with a range request and the file verified;
//! a wrong SHA-256 is refused and the part removed; a cancel leaves nothing behind; a bad URL
//! or a 404 says so.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::stream;
use sha2::{Digest, Sha256};
use switchboard_engine::local::download::{DownloadRequest, Progress, download};
use switchboard_engine::local::{LocalError, ModelsDir};
use tokio_util::sync::CancellationToken;

/// The served file: GGUF magic, then 3 MB of varied bytes.
fn payload() -> Vec<u8> {
    let mut data = b"GGUF\x03\0\0\0".to_vec();
    data.extend((0..3_000_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    data
}

fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Clone)]
struct Served {
    data: Arc<Vec<u8>>,
    /// Cut the next response off halfway.
    drop_next: Arc<AtomicBool>,
    /// The Range header of each request.
    ranges: Arc<Mutex<Vec<Option<String>>>>,
}

async fn serve_file(State(s): State<Served>, headers: HeaderMap, slow: bool) -> Response {
    let range = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    s.ranges.lock().unwrap().push(range.clone());
    let start: usize = range
        .as_deref()
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let len = s.data.len();
    let rest = Bytes::copy_from_slice(&s.data[start..]);
    let body = if s.drop_next.swap(false, Ordering::SeqCst) {
        let half = rest.slice(..rest.len() / 2);
        let items: Vec<Result<Bytes, std::io::Error>> =
            vec![Ok(half), Err(std::io::Error::other("cut off"))];
        Body::from_stream(stream::iter(items))
    } else if slow {
        let chunks: Vec<Bytes> = rest.chunks(64 * 1024).map(Bytes::copy_from_slice).collect();
        Body::from_stream(futures::StreamExt::then(
            stream::iter(chunks),
            |c| async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                Ok::<_, std::io::Error>(c)
            },
        ))
    } else {
        Body::from(rest.clone())
    };
    let mut response =
        ([(header::CONTENT_LENGTH, (len - start).to_string())], body).into_response();
    if start > 0 {
        *response.status_mut() = StatusCode::PARTIAL_CONTENT;
        let value = format!("bytes {start}-{}/{len}", len - 1);
        response
            .headers_mut()
            .insert(header::CONTENT_RANGE, value.parse().unwrap());
    }
    response
}

/// The server, its base URL and its state.
async fn server() -> (String, Served) {
    let served = Served {
        data: Arc::new(payload()),
        drop_next: Arc::default(),
        ranges: Arc::default(),
    };
    let app = Router::new()
        .route(
            "/m/model.gguf",
            get(|s: State<Served>, h: HeaderMap| serve_file(s, h, false)),
        )
        .route(
            "/slow/model.gguf",
            get(|s: State<Served>, h: HeaderMap| serve_file(s, h, true)),
        )
        .with_state(served.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, served)
}

/// Every file in the folder, hidden parts included.
fn files(dir: &ModelsDir) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn request(url: String, sha256: Option<String>) -> DownloadRequest {
    DownloadRequest { url, sha256 }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_connection_dropped_midway_resumes_with_a_range_request_and_is_verified() {
    let (base, served) = server().await;
    served.drop_next.store(true, Ordering::SeqCst);
    let tmp = tempfile::tempdir().unwrap();
    let dir = ModelsDir::new(tmp.path().join("models"));
    let expected = payload();
    let req = request(format!("{base}/m/model.gguf"), Some(sha256_hex(&expected)));
    let mut last = Progress::default();
    let client = reqwest::Client::new();
    let model = download(&client, &dir, &req, &CancellationToken::new(), |p| last = p)
        .await
        .unwrap();
    assert_eq!(
        (model.name.as_str(), model.size),
        ("model.gguf", expected.len() as u64)
    );
    assert_eq!(
        std::fs::read(dir.path().join("model.gguf")).unwrap(),
        expected
    );
    let ranges = served.ranges.lock().unwrap().clone();
    let half = (expected.len() / 2) as u64;
    assert_eq!(ranges, vec![None, Some(format!("bytes={half}-"))]);
    assert_eq!(last.received, expected.len() as u64);
    assert_eq!(last.total, Some(expected.len() as u64));
    assert_eq!(files(&dir), ["model.gguf"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_sha256_is_refused_and_the_partial_file_removed() {
    let (base, _) = server().await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = ModelsDir::new(tmp.path().join("models"));
    let req = request(format!("{base}/m/model.gguf"), Some("ab".repeat(32)));
    let err = download(
        &reqwest::Client::new(),
        &dir,
        &req,
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, LocalError::Checksum { expected, actual }
            if *expected == "ab".repeat(32) && *actual == sha256_hex(&payload())),
        "{err}"
    );
    assert_eq!(files(&dir), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancel_leaves_nothing_behind() {
    let (base, _) = server().await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = ModelsDir::new(tmp.path().join("models"));
    let cancel = CancellationToken::new();
    let req = request(format!("{base}/slow/model.gguf"), None);
    let on_progress = {
        let cancel = cancel.clone();
        move |p: Progress| {
            if p.received > 0 {
                cancel.cancel();
            }
        }
    };
    let result = tokio::time::timeout(
        super::HANG_GUARD,
        download(&reqwest::Client::new(), &dir, &req, &cancel, on_progress),
    )
    .await
    .expect("the cancel was not honoured");
    assert_eq!(result.unwrap_err(), LocalError::Cancelled);
    assert_eq!(files(&dir), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_url_a_404_or_a_refused_connection_says_so() {
    let (base, _) = server().await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = ModelsDir::new(tmp.path().join("models"));
    let client = reqwest::Client::new();
    let cases = [
        (format!("{base}/m/missing.gguf"), "HTTP 404"),
        (format!("{base}/m/readme.txt"), "does not name a .gguf file"),
        ("not a url".to_owned(), "cannot download not a url"),
        (
            "http://127.0.0.1:9/model.gguf".to_owned(),
            "cannot download http://127.0.0.1:9/model.gguf",
        ),
    ];
    for (url, says) in cases {
        let req = request(url.clone(), None);
        let err = download(&client, &dir, &req, &CancellationToken::new(), |_| {})
            .await
            .unwrap_err();
        assert!(matches!(err, LocalError::Download { .. }), "{url}: {err:?}");
        assert!(err.to_string().contains(says), "{url}: {err}");
    }
    assert_eq!(files(&dir), Vec::<String>::new());
}
