//! A package's newest wheel for this machine from a Python package index's JSON API
//! (`GET {index}/pypi/{package}/json`, which PyPI and its mirrors serve), and its download:
//! streamed to a file, bounded in size and time, and checked against the index's size and
//! SHA-256 before it is used.

use std::path::Path;
use std::time::Duration;

use futures::StreamExt;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use super::RuntimeError;

/// The largest wheel downloaded.
const MAX_WHEEL_BYTES: u64 = 256 * 1024 * 1024;
/// How long a connection may take to open, and a read to bring anything.
const CONNECT: Duration = Duration::from_secs(15);
const READ: Duration = Duration::from_secs(30);

/// One wheel of a package, as the index describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Wheel {
    pub version: String,
    pub url: String,
    pub sha256: String,
    pub size: u64,
}

#[derive(Deserialize)]
struct Release {
    info: Info,
    urls: Vec<File>,
}

#[derive(Deserialize)]
struct Info {
    version: String,
}

#[derive(Deserialize)]
struct File {
    filename: String,
    url: String,
    packagetype: String,
    #[serde(default)]
    size: u64,
    #[serde(default)]
    digests: Digests,
    #[serde(default)]
    yanked: bool,
}

#[derive(Default, Deserialize)]
struct Digests {
    #[serde(default)]
    sha256: String,
}

/// The wheel platform tags this machine runs (`manylinux`+`x86_64`, `macosx`+`arm64`, …): each
/// alternative is a set of parts a wheel's file name must all hold.
pub(super) fn platform() -> Vec<Vec<&'static str>> {
    platform_of(std::env::consts::OS, std::env::consts::ARCH)
}

fn platform_of(os: &str, arch: &str) -> Vec<Vec<&'static str>> {
    match (os, arch) {
        ("linux", "x86_64") => vec![vec!["manylinux", "x86_64"]],
        ("linux", "aarch64") => vec![vec!["manylinux", "aarch64"]],
        ("macos", "aarch64") => vec![vec!["macosx", "arm64"], vec!["macosx", "universal2"]],
        ("macos", "x86_64") => vec![vec!["macosx", "x86_64"], vec!["macosx", "universal2"]],
        ("windows", "x86_64") => vec![vec!["win_amd64"]],
        ("windows", "aarch64") => vec![vec!["win_arm64"]],
        _ => Vec::new(),
    }
}

fn client() -> Result<reqwest::Client, String> {
    let client = reqwest::Client::builder()
        .connect_timeout(CONNECT)
        .read_timeout(READ)
        .user_agent(concat!("Switchboard/", env!("CARGO_PKG_VERSION")));
    client.build().map_err(|e| e.to_string())
}

/// The newest release's wheel of `package` on `index` for `platform`.
pub(super) async fn newest_wheel(
    index: &str,
    package: &str,
    platform: &[Vec<&str>],
) -> Result<Wheel, RuntimeError> {
    let failed = |reason: String| RuntimeError::Index {
        package: package.to_owned(),
        index: index.to_owned(),
        reason,
    };
    let json = format!("{}/pypi/{package}/json", index.trim_end_matches('/'));
    let json = url::Url::parse(&json).map_err(|e| failed(format!("not a URL: {e}")))?;
    let answer = (client().map_err(failed)?.get(json.clone()).send().await)
        .and_then(reqwest::Response::error_for_status)
        .map_err(|e| failed(e.without_url().to_string()))?;
    let release: Release =
        (answer.json().await).map_err(|e| failed(e.without_url().to_string()))?;
    let wheel = release.urls.iter().find(|file| {
        let name = file.filename.to_ascii_lowercase();
        file.packagetype == "bdist_wheel"
            && !file.yanked
            && platform
                .iter()
                .any(|parts| parts.iter().all(|p| name.contains(p)))
    });
    let Some(wheel) = wheel else {
        let platform: Vec<String> = platform.iter().map(|p| p.join("+")).collect();
        return Err(RuntimeError::NoWheel {
            package: package.to_owned(),
            version: release.info.version,
            platform: if platform.is_empty() {
                "an unsupported platform".into()
            } else {
                platform.join(" or ")
            },
            index: index.to_owned(),
        });
    };
    if wheel.digests.sha256.len() != 64 {
        return Err(failed(format!(
            "{} has no SHA-256 to check it by",
            wheel.filename
        )));
    }
    // Mirrors answer with URLs relative to the JSON's own.
    let url = json
        .join(&wheel.url)
        .map_err(|e| failed(format!("{}: {e}", wheel.url)))?;
    Ok(Wheel {
        version: release.info.version,
        url: url.to_string(),
        sha256: wheel.digests.sha256.to_ascii_lowercase(),
        size: wheel.size,
    })
}

/// Downloads `wheel` to `path`, checking its size and SHA-256; on any failure the file is gone.
pub(super) async fn download(wheel: &Wheel, path: &Path) -> Result<(), RuntimeError> {
    let fetched = fetch(wheel, path).await;
    if fetched.is_err() {
        let _ = tokio::fs::remove_file(path).await;
    }
    fetched
}

async fn fetch(wheel: &Wheel, path: &Path) -> Result<(), RuntimeError> {
    let failed = |reason: String| RuntimeError::Download {
        url: wheel.url.clone(),
        reason,
    };
    if wheel.size > MAX_WHEEL_BYTES {
        return Err(failed(format!(
            "{} bytes is more than the {MAX_WHEEL_BYTES} fetched",
            wheel.size
        )));
    }
    let answer = (client().map_err(failed)?.get(&wheel.url).send().await)
        .and_then(reqwest::Response::error_for_status)
        .map_err(|e| failed(e.without_url().to_string()))?;
    let mut file = (tokio::fs::File::create(path).await).map_err(|e| failed(e.to_string()))?;
    let mut hash = Sha256::new();
    let mut written = 0u64;
    let mut body = answer.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| {
            failed(format!(
                "cut short after {written} bytes: {}",
                e.without_url()
            ))
        })?;
        written += chunk.len() as u64;
        if written > MAX_WHEEL_BYTES || (wheel.size > 0 && written > wheel.size) {
            return Err(failed(format!(
                "more than the {} bytes the index gives",
                wheel.size
            )));
        }
        hash.update(&chunk);
        file.write_all(&chunk)
            .await
            .map_err(|e| failed(e.to_string()))?;
    }
    file.flush().await.map_err(|e| failed(e.to_string()))?;
    if wheel.size > 0 && written != wheel.size {
        return Err(failed(format!(
            "cut short: {written} of {} bytes",
            wheel.size
        )));
    }
    let got = hex(&hash.finalize());
    if got != wheel.sha256 {
        return Err(RuntimeError::Hash {
            url: wheel.url.clone(),
            expected: wheel.sha256.clone(),
            got,
        });
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::platform_of;

    #[test]
    fn each_supported_machine_has_its_wheel_tags_and_others_none() {
        assert_eq!(
            platform_of("linux", "x86_64"),
            [vec!["manylinux", "x86_64"]]
        );
        assert_eq!(platform_of("macos", "aarch64").len(), 2);
        assert!(platform_of("freebsd", "x86_64").is_empty());
    }
}
