//! Security, second pass: what the user approved is what is applied: plan and bundle digests, masked values after an identity change (issue 31, point 4).
//!
//! An update takes back the digest of the update the user saw and is refused when the
//! registry's answer changed between the preview and the apply (a registry on 127.0.0.1 whose
//! entry changes in between); a bundle takes back the digest of the bytes previewed and a file
//! swapped after the preview is refused, leaving nothing on disk; a masked header value sent
//! back after the server's URL moved to another origin is refused ("type the value again")
//! instead of sending the stored `Authorization` to the new host; and a zip whose end record
//! declares 1,000,000 entries is refused from that record, before the zip library parses its
//! central directory (fast, without reading the file whole).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use switchboard_engine::mcp::{BundleInstall, Conflict, InstallRequest};
use switchboard_engine::vocab::server::{SECRET_MASK, Transport};

use crate::suite::servers::engine;

const NAME: &str = "io.github.suite/moving";

/// The remote entry of version `version` at `url`.
fn remote(version: &str, url: &str) -> Value {
    json!({"server": {"name": NAME, "version": version,
        "remotes": [{"type": "streamable-http", "url": url}]}})
}

/// A registry on 127.0.0.1 whose one entry is whatever `latest` holds now.
async fn registry(latest: Arc<Mutex<Value>>) -> String {
    async fn one(
        State(latest): State<Arc<Mutex<Value>>>,
        UrlPath((name, _)): UrlPath<(String, String)>,
    ) -> Response {
        let item = latest.lock().unwrap().clone();
        match item["server"]["name"] == json!(name) {
            true => axum::Json(item).into_response(),
            false => (StatusCode::NOT_FOUND, "{}").into_response(),
        }
    }
    let app = Router::new()
        .route("/v0/servers/{name}/versions/{version}", get(one))
        .with_state(latest);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

fn url_of(t: &Transport) -> &str {
    match t {
        Transport::Http { url, .. } | Transport::Sse { url, .. } => url,
        _ => panic!("not remote"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_update_whose_upstream_changed_between_preview_and_apply_is_refused() {
    // Nothing listens on these; the server stays configured when it does not start.
    let (v1, v2, evil) = (
        "http://127.0.0.1:9/v1/mcp",
        "http://127.0.0.1:9/v2/mcp",
        "http://127.0.0.1:9/evil/mcp",
    );
    let latest = Arc::new(Mutex::new(remote("1.0.0", v1)));
    let base = registry(latest.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let installer = engine.installer();
    let entry = installer
        .registry_entry(NAME, None, Some(&base))
        .await
        .unwrap();
    let request = InstallRequest::default();
    let plan = installer
        .plan_registry_install(&entry, &request, Some(&base))
        .await
        .unwrap();
    let installed = installer
        .install_from_registry(&entry, &request, Some(&base), &plan.digest)
        .await
        .unwrap();
    let id = installed.record.id.clone();

    // The user is shown the update to 2.0.0 at v2 …
    *latest.lock().unwrap() = remote("2.0.0", v2);
    let shown = installer
        .check_update(&id)
        .await
        .unwrap()
        .expect("an update");
    assert!(shown.new_command_line.contains("/v2/"), "{shown:?}");
    // … and the registry answers otherwise by the time it is applied.
    *latest.lock().unwrap() = remote("2.0.0", evil);
    let error = installer
        .apply_update(&id, &shown.digest)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("nothing was installed: the update is not what was shown"),
        "{error}"
    );
    assert!(error.ends_with("; preview it again"), "{error}");
    let record = engine.store().find_server(&id).await.unwrap();
    assert_eq!(url_of(&record.config.transport), v1, "nothing applied");

    // A later version published in between is refused the same way.
    *latest.lock().unwrap() = remote("3.0.0", v2);
    let error = installer
        .apply_update(&id, &shown.digest)
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("is not what was shown"),
        "{error}"
    );

    // What is shown again is what is applied.
    *latest.lock().unwrap() = remote("2.0.0", v2);
    let again = installer.check_update(&id).await.unwrap().unwrap();
    assert_eq!(
        again.digest, shown.digest,
        "the same update, the same digest"
    );
    installer.apply_update(&id, &again.digest).await.unwrap();
    let record = engine.store().find_server(&id).await.unwrap();
    assert_eq!(url_of(&record.config.transport), v2);
}

/// A bundle named `swap` 1.0.0 whose server runs `command args`, written at `path`.
fn bundle(path: &Path, command: &str, args: &[&str]) {
    let manifest = json!({
        "manifest_version": "0.3", "name": "swap", "version": "1.0.0",
        "author": {"name": "suite"},
        "server": {"type": "node", "entry_point": "server/index.js",
            "mcp_config": {"command": command, "args": args}}
    });
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("manifest.json", options).unwrap();
    zip.write_all(manifest.to_string().as_bytes()).unwrap();
    zip.start_file("server/index.js", options).unwrap();
    zip.write_all(b"// the previewed server").unwrap();
    zip.finish().unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bundle_swapped_after_its_preview_is_refused_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let file = dir.path().join("swap.mcpb");
    bundle(&file, "node", &["${__dirname}/server/index.js"]);
    let preview = engine.installer().preview_bundle(&file).unwrap();
    assert_eq!(preview.command_line, "node ${__dirname}/server/index.js");
    assert!(preview.digest.starts_with("sha256:"), "{}", preview.digest);

    // Another file, same name and version, is put in its place after the preview.
    let marker = dir.path().join("ran");
    let evil = format!("touch {}", marker.display());
    bundle(&file, "sh", &["-c", &evil]);
    let error = engine
        .installer()
        .install_bundle(&file, &BundleInstall::default(), &preview.digest)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("nothing was installed: the bundle file is not what was shown"),
        "{error}"
    );
    assert!(engine.mcp().list_servers().await.unwrap().is_empty());
    let bundles = dir.path().join("bundles");
    let left: Vec<PathBuf> = std::fs::read_dir(&bundles)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left on disk: {left:?}");
    assert!(!marker.exists());
}

const DOC: &str = r#"{"mcpServers": {
    "remote": {"url": "https://mcp.suite.test/mcp",
               "headers": {"Authorization": "Bearer suite-kept-secret-77"}}
}}"#;

#[tokio::test]
async fn a_masked_header_sent_back_after_the_url_moved_to_another_origin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let mcp = engine.mcp();
    mcp.import_servers(DOC, Conflict::Skip).await.unwrap();
    let record = mcp.list_servers().await.unwrap().remove(0);
    let moved = |url: &str| {
        let mut config = record.config.clone();
        config.transport = Transport::Http {
            url: url.to_owned(),
            headers: [("Authorization".to_owned(), SECRET_MASK.to_owned())].into(),
        };
        config
    };

    let error = mcp
        .update_server(&record.id, moved("https://collector.evil.example/mcp"))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "server \"remote\": the header value Authorization was kept for https://mcp.suite.test, \
         and the server is now https://collector.evil.example; type the value again"
    );
    let kept = engine.store().find_server(&record.id).await.unwrap();
    assert_eq!(url_of(&kept.config.transport), "https://mcp.suite.test/mcp");

    // The same origin keeps the value; a value typed again goes with the new origin.
    mcp.update_server(&record.id, moved("https://mcp.suite.test/v2/mcp"))
        .await
        .unwrap();
    let mut typed = moved("https://other.suite.test/mcp");
    if let Transport::Http { headers, .. } = &mut typed.transport {
        headers.insert("Authorization".into(), "Bearer typed-again".into());
    }
    mcp.update_server(&record.id, typed).await.unwrap();
}

/// A zip of `entries` central-directory headers (names `0000000`…, all pointing at one local
/// header) with ZIP64 end records: a real archive the zip library would parse whole.
fn declaring_entries(path: &Path, entries: u64) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    // One local header with an empty stored file named `0000000`.
    let mut local = vec![0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    local.extend_from_slice(&[0; 12]); // crc, sizes
    local.extend_from_slice(&7u16.to_le_bytes());
    local.extend_from_slice(&0u16.to_le_bytes());
    local.extend_from_slice(b"0000000");
    out.write_all(&local).unwrap();
    let cd_start = local.len() as u64;
    for i in 0..entries {
        let mut h = vec![0x50, 0x4b, 0x01, 0x02, 20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        h.extend_from_slice(&[0; 12]); // crc, sizes
        h.extend_from_slice(&7u16.to_le_bytes()); // name length
        h.extend_from_slice(&[0; 12]); // extra, comment, disk, attributes
        h.extend_from_slice(&0u32.to_le_bytes()); // local header offset
        h.extend_from_slice(format!("{i:07}").as_bytes());
        out.write_all(&h).unwrap();
    }
    let cd_size = entries * 53;
    let record_at = cd_start + cd_size;
    let mut end = vec![0x50, 0x4b, 0x06, 0x06];
    end.extend_from_slice(&44u64.to_le_bytes());
    end.extend_from_slice(&[45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    end.extend_from_slice(&entries.to_le_bytes());
    end.extend_from_slice(&entries.to_le_bytes());
    end.extend_from_slice(&cd_size.to_le_bytes());
    end.extend_from_slice(&cd_start.to_le_bytes());
    end.extend_from_slice(&[0x50, 0x4b, 0x06, 0x07, 0, 0, 0, 0]);
    end.extend_from_slice(&record_at.to_le_bytes());
    end.extend_from_slice(&1u32.to_le_bytes());
    end.extend_from_slice(&[0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
    end.extend_from_slice(&[0xFF; 8]);
    end.extend_from_slice(&[0, 0]);
    out.write_all(&end).unwrap();
    out.flush().unwrap();
}

#[tokio::test]
async fn a_zip_whose_end_record_declares_a_million_entries_is_refused_before_it_is_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let file = dir.path().join("million.mcpb");
    declaring_entries(&file, 1_000_000);
    assert!(std::fs::metadata(&file).unwrap().len() > 50_000_000);
    let started = Instant::now();
    let error = engine
        .installer()
        .preview_bundle(&file)
        .unwrap_err()
        .to_string();
    let took = started.elapsed();
    assert!(
        error.ends_with("was refused: it has 1000000 entries, more than 10000"),
        "{error}"
    );
    // Parsing a million headers (what the zip library does first) takes seconds in a debug
    // build and hundreds of MB; reading the end record takes a few milliseconds.
    assert!(took < Duration::from_millis(500), "took {took:?}");
}
