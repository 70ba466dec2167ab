//! Signed updates (issue 33, part 2) through Tauri's updater, as the app runs them
//! (`desktop::update::check` and `install`), against an update server on 127.0.0.1 serving a
//! manifest and an update signed in the test with a fresh minisign key (the format Tauri's
//! signer writes): a good update replaces the installed AppImage and reports its progress; a
//! bad signature, a signature for another version, a download cut short, a downgrade, a server
//! that never answers and a malformed manifest are each refused with their own sentence, and
//! the installed file is left as it was.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::response::Response;
use axum::routing::get;
use base64::Engine as _;
use serde_json::{Value, json};
use switchboard_app::desktop::update::{self, CheckOutcome, UpdateProgress, Updates};
use tauri::test::{MockRuntime, mock_builder, mock_context, noop_assets};

const INSTALLED: &[u8] = b"\x7fELF the installed AppImage";

/// A new AppImage: an ELF header, as the updater checks before writing it.
fn new_appimage() -> Vec<u8> {
    let mut bytes = b"\x7fELF Switchboard 0.2.0".to_vec();
    bytes.resize(4096, 7);
    bytes
}

/// A release key: its public half as `tauri.conf.json` holds it, and the pair.
fn release_key() -> (String, minisign::KeyPair) {
    let pair = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    let public = pair.pk.to_box().unwrap().to_string();
    (base64(&public), pair)
}

fn base64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// `bytes` signed for `version`, as the updater reads a signature.
fn signature(pair: &minisign::KeyPair, bytes: &[u8], version: &str) -> String {
    let trusted = format!("timestamp:1767225600\tfile:Switchboard.AppImage\tversion:{version}");
    let signed = minisign::sign(
        Some(&pair.pk),
        &pair.sk,
        Cursor::new(bytes),
        Some(&trusted),
        None,
    );
    base64(&signed.unwrap().to_string())
}

/// What the server answers.
#[derive(Clone)]
struct Served {
    manifest: String,
    download: Vec<u8>,
    /// Send only this many bytes of the download, then break the connection.
    cut_at: Option<usize>,
}

/// The update server: `/latest.json`, `/Switchboard.AppImage`, and `/hang`, which never
/// answers. Stops with the test's runtime.
async fn serve(served: Arc<Mutex<Served>>) -> String {
    let manifest = served.clone();
    let download = served.clone();
    let router = Router::new()
        .route(
            "/latest.json",
            get(move || async move { manifest.lock().unwrap().manifest.clone() }),
        )
        .route(
            "/Switchboard.AppImage",
            get(move || async move { appimage(&download.lock().unwrap()) }),
        )
        .route(
            "/hang",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                ""
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

fn appimage(served: &Served) -> Response {
    let full = served.download.clone();
    let length = full.len();
    let body = match served.cut_at {
        None => Body::from(full),
        Some(cut) => {
            let first: Result<Vec<u8>, std::io::Error> = Ok(full[..cut].to_vec());
            let broken = Err(std::io::Error::other("connection cut"));
            Body::from_stream(futures::stream::iter([first, broken]))
        }
    };
    Response::builder()
        .header("content-length", length)
        .body(body)
        .unwrap()
}

fn manifest(url: &str, version: &str, signature: &str) -> String {
    json!({
        "version": version,
        "notes": "Faster start-up.\nThe quick window remembers its size.",
        "pub_date": "2026-12-01T10:00:00Z",
        "platforms": { "linux-x86_64": { "url": format!("{url}/Switchboard.AppImage"), "signature": signature } }
    })
    .to_string()
}

/// The app (Tauri's mock runtime) with the updater configured as `tauri.conf.json` does, but
/// with the test's key and feed (plain HTTP is allowed only here, for 127.0.0.1).
fn app(pubkey: &str, feed: &str) -> tauri::App<MockRuntime> {
    let mut context = mock_context(noop_assets());
    let updater: Value = json!({
        "pubkey": pubkey,
        "endpoints": [feed],
        "requireSignedVersion": true,
        "dangerousInsecureTransportProtocol": true
    });
    context
        .config_mut()
        .plugins
        .0
        .insert("updater".into(), updater);
    mock_builder()
        .plugin(tauri_plugin_updater::Builder::new().build())
        .manage(Updates::default())
        .build(context)
        .unwrap()
}

/// An installed AppImage in a fresh folder.
fn installed() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Switchboard.AppImage");
    std::fs::write(&path, INSTALLED).unwrap();
    (dir, path)
}

/// Checks, then installs what was found; the outcome of the install (or of the check).
async fn check_and_install(
    app: &tauri::App<MockRuntime>,
    target: &Path,
    timeout: Duration,
) -> (Result<String, String>, Vec<UpdateProgress>) {
    let steps = Arc::new(Mutex::new(Vec::new()));
    let heard = steps.clone();
    let handle = app.handle();
    let outcome = match update::check(handle, timeout, Some(target)).await {
        Ok(CheckOutcome::Available { .. }) => {
            let progress = move |step| heard.lock().unwrap().push(step);
            update::install(handle, timeout, progress).await
        }
        Ok(other) => Ok(format!("{other:?}")),
        Err(failure) => Err(failure),
    };
    let steps = steps.lock().unwrap().clone();
    (outcome.map_err(|f| f.to_string()), steps)
}

#[tokio::test]
async fn a_signed_newer_update_is_offered_with_its_notes_downloaded_with_progress_and_installed() {
    let (pubkey, pair) = release_key();
    let bytes = new_appimage();
    let served = Arc::new(Mutex::new(Served {
        manifest: String::new(),
        download: bytes.clone(),
        cut_at: None,
    }));
    let url = serve(served.clone()).await;
    served.lock().unwrap().manifest = manifest(&url, "0.2.0", &signature(&pair, &bytes, "0.2.0"));
    let app = app(&pubkey, &format!("{url}/latest.json"));
    let (_dir, target) = installed();

    let found = update::check(app.handle(), Duration::from_secs(10), Some(&target))
        .await
        .unwrap();
    let CheckOutcome::Available { update: offered } = &found else {
        panic!("{found:?}");
    };
    assert_eq!(offered.version, "0.2.0");
    assert!(
        offered
            .notes
            .as_deref()
            .unwrap()
            .starts_with("Faster start-up.")
    );

    let (outcome, steps) = check_and_install(&app, &target, Duration::from_secs(10)).await;
    assert_eq!(outcome.unwrap(), "0.2.0");
    assert_eq!(std::fs::read(&target).unwrap(), bytes);
    let received: Vec<u64> = (steps.iter())
        .filter_map(|s| match s {
            UpdateProgress::Downloading { received, total } => {
                assert_eq!(*total, Some(bytes.len() as u64));
                Some(*received)
            }
            _ => None,
        })
        .collect();
    assert_eq!(received.last(), Some(&(bytes.len() as u64)), "{steps:?}");
    assert!(
        matches!(steps.last(), Some(UpdateProgress::Installed { version }) if version == "0.2.0")
    );
}

/// Serves `manifest_for(url)` and `download` (cut at `cut_at`), checks and installs, and
/// returns the failure after asserting the installed file was not touched.
async fn refused(
    pubkey: &str,
    manifest_for: impl Fn(&str) -> String,
    download: Vec<u8>,
    cut_at: Option<usize>,
    feed_path: &str,
    timeout: Duration,
) -> String {
    let served = Arc::new(Mutex::new(Served {
        manifest: String::new(),
        download,
        cut_at,
    }));
    let url = serve(served.clone()).await;
    served.lock().unwrap().manifest = manifest_for(&url);
    let app = app(pubkey, &format!("{url}{feed_path}"));
    let (_dir, target) = installed();
    let (outcome, steps) = check_and_install(&app, &target, timeout).await;
    assert_eq!(std::fs::read(&target).unwrap(), INSTALLED, "{outcome:?}");
    assert!(
        !steps
            .iter()
            .any(|s| matches!(s, UpdateProgress::Installed { .. })),
        "{steps:?}"
    );
    outcome.expect_err("refused")
}

#[tokio::test]
async fn an_update_signed_by_another_key_is_refused_and_nothing_changes() {
    let (pubkey, _) = release_key();
    let (_, stranger) = release_key();
    let bytes = new_appimage();
    let signed = signature(&stranger, &bytes, "0.2.0");
    let said = refused(
        &pubkey,
        |url| manifest(url, "0.2.0", &signed),
        bytes,
        None,
        "/latest.json",
        Duration::from_secs(10),
    )
    .await;
    assert!(said.contains("signature does not match"), "{said}");
}

#[tokio::test]
async fn a_genuine_older_release_announced_as_a_newer_version_is_refused() {
    let (pubkey, trusted) = release_key();
    let bytes = new_appimage();
    let signed = signature(&trusted, &bytes, "0.0.9");
    let said = refused(
        &pubkey,
        |url| manifest(url, "9.0.0", &signed),
        bytes,
        None,
        "/latest.json",
        Duration::from_secs(10),
    )
    .await;
    assert!(said.contains("signature does not match"), "{said}");
    assert!(said.contains("0.0.9"), "{said}");
}

#[tokio::test]
async fn a_download_cut_short_is_refused_and_nothing_changes() {
    let (pubkey, trusted) = release_key();
    let bytes = new_appimage();
    let signed = signature(&trusted, &bytes, "0.2.0");
    let said = refused(
        &pubkey,
        |url| manifest(url, "0.2.0", &signed),
        bytes,
        Some(1000),
        "/latest.json",
        Duration::from_secs(10),
    )
    .await;
    assert!(said.contains("could not be fetched"), "{said}");
}

#[tokio::test]
async fn a_feed_offering_an_older_version_installs_nothing_and_says_which_it_offered() {
    let (pubkey, trusted) = release_key();
    let bytes = new_appimage();
    let signed = signature(&trusted, &bytes, "0.0.9");
    let served = Arc::new(Mutex::new(Served {
        manifest: String::new(),
        download: bytes,
        cut_at: None,
    }));
    let url = serve(served.clone()).await;
    served.lock().unwrap().manifest = manifest(&url, "0.0.9", &signed);
    let app = app(&pubkey, &format!("{url}/latest.json"));
    let (_dir, target) = installed();
    let found = update::check(app.handle(), Duration::from_secs(10), Some(&target))
        .await
        .unwrap();
    let CheckOutcome::UpToDate { current, offered } = found else {
        panic!("{found:?}");
    };
    assert_eq!(
        (current.as_str(), offered.as_deref()),
        ("0.1.0", Some("0.0.9"))
    );
    let nothing = update::install(app.handle(), Duration::from_secs(10), |_| {}).await;
    assert!(
        nothing
            .unwrap_err()
            .to_string()
            .contains("check for updates first")
    );
    assert_eq!(std::fs::read(&target).unwrap(), INSTALLED);
}

#[tokio::test]
async fn a_feed_that_never_answers_is_given_up_on_with_the_time_waited() {
    let (pubkey, _) = release_key();
    let said = refused(
        &pubkey,
        |_| String::new(),
        new_appimage(),
        None,
        "/hang",
        Duration::from_secs(2),
    )
    .await;
    assert!(said.contains("did not answer within 2 s"), "{said}");
}

#[tokio::test]
async fn a_malformed_manifest_is_named_as_such() {
    let (pubkey, _) = release_key();
    let said = refused(
        &pubkey,
        |_| r#"{"version": "0.2.0", "platforms": "#.into(),
        new_appimage(),
        None,
        "/latest.json",
        Duration::from_secs(10),
    )
    .await;
    assert!(said.contains("not a valid update manifest"), "{said}");
}
