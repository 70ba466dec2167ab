//! Downloading a model into the models folder: from an http(s) URL (a Hugging Face `resolve/`
//! link, say) into a hidden `.NAME.URLHASH.part` file (keyed by the URL, so a part left by
//! another URL of the same file name is never continued), resumed with an HTTP `Range` request
//! when the connection drops (or a later download from the same URL starts) — only when the
//! server's `Content-Range` starts where the part ends, else the part is started over — checked
//! against a SHA-256 when one is given, and moved into place only when complete. A cancel, a
//! wrong checksum or a refused URL leaves nothing behind; a disk without room for the file is
//! refused first.

use std::path::{Path, PathBuf};

use futures::StreamExt;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use super::LocalError;
use super::models::{LocalModel, ModelsDir};

/// How many times a dropped connection is resumed before the download gives up.
const ATTEMPTS: u32 = 5;

/// How far a download has come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Bytes on disk.
    pub received: u64,
    /// The file's size, when the server said.
    pub total: Option<u64>,
}

/// One model to download.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DownloadRequest {
    /// The file's URL.
    pub url: String,
    /// Its SHA-256 (hex), when known.
    pub sha256: Option<String>,
}

fn failed(url: &str, reason: impl std::fmt::Display) -> LocalError {
    LocalError::Download {
        url: url.to_owned(),
        reason: reason.to_string(),
    }
}

/// The file name a URL gives (its last path segment), if it is a `.gguf`.
pub fn file_name(url: &str) -> Result<String, LocalError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| failed(url, e))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(failed(url, "only http and https URLs are downloaded"));
    }
    let name = parsed
        .path_segments()
        .and_then(|mut s| s.next_back())
        .unwrap_or_default()
        .to_owned();
    if !name.to_ascii_lowercase().ends_with(".gguf") || name.starts_with('.') {
        return Err(failed(url, "the URL does not name a .gguf file"));
    }
    Ok(name)
}

/// The hidden part file of a download of `name` from `url`: `.NAME.HASH.part`, HASH the first
/// 16 hex digits of the URL's SHA-256.
fn part_name(name: &str, url: &str) -> String {
    let digest = Sha256::digest(url.as_bytes());
    let hash: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!(".{name}.{hash}.part")
}

/// Downloads `req` into `dir`, resuming a part left by an earlier try; `progress` is told as
/// bytes arrive. The model is listed only once complete (and verified).
pub async fn download(
    client: &reqwest::Client,
    dir: &ModelsDir,
    req: &DownloadRequest,
    cancel: &CancellationToken,
    mut progress: impl FnMut(Progress) + Send,
) -> Result<LocalModel, LocalError> {
    let name = file_name(&req.url)?;
    tokio::fs::create_dir_all(dir.path())
        .await
        .map_err(|e| LocalError::io("cannot create", dir.path(), &e))?;
    let part = dir.path().join(part_name(&name, &req.url));
    // A part from before parts were keyed by URL: whose bytes it holds is unknown.
    let _ = tokio::fs::remove_file(dir.path().join(format!(".{name}.part"))).await;
    let result = tokio::select! {
        r = fetch(client, &req.url, &part, &mut progress) => r,
        () = cancel.cancelled() => Err(LocalError::Cancelled),
    };
    let outcome = match result {
        Ok(size) => verify(&part, req.sha256.as_deref()).await.map(|()| size),
        Err(e) => Err(e),
    };
    match outcome {
        Ok(size) => {
            let target = dir.path().join(&name);
            tokio::fs::rename(&part, &target)
                .await
                .map_err(|e| LocalError::io("cannot move into place", &target, &e))?;
            let info = super::gguf::read_info(&target).ok();
            Ok(LocalModel { name, size, info })
        }
        Err(e) => {
            // A connection that kept dropping leaves its part for a later download to resume;
            // anything else (a cancel, a wrong checksum, a refusal) leaves nothing behind.
            if !matches!(e, LocalError::Interrupted { .. }) {
                let _ = tokio::fs::remove_file(&part).await;
            }
            Err(e)
        }
    }
}

/// Fetches `url` into `part`, resuming after dropped connections; returns the size.
async fn fetch(
    client: &reqwest::Client,
    url: &str,
    part: &Path,
    progress: &mut (impl FnMut(Progress) + Send),
) -> Result<u64, LocalError> {
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(200 * u64::from(attempt))).await;
        }
        if let Some(size) = fetch_once(client, url, part, progress).await? {
            return Ok(size);
        }
    }
    Err(LocalError::Interrupted {
        url: url.to_owned(),
        attempts: ATTEMPTS,
    })
}

/// One request from where the part ends: `Some(size)` when the file is complete, `None` when
/// the connection dropped (try again).
async fn fetch_once(
    client: &reqwest::Client,
    url: &str,
    part: &Path,
    progress: &mut (impl FnMut(Progress) + Send),
) -> Result<Option<u64>, LocalError> {
    let have = tokio::fs::metadata(part).await.map_or(0, |m| m.len());
    let mut request = client.get(url);
    if have > 0 {
        request = request.header(reqwest::header::RANGE, format!("bytes={have}-"));
    }
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) if e.is_connect() || e.is_builder() => return Err(failed(url, e)),
        Err(_) => return Ok(None),
    };
    let status = response.status();
    let (mut received, total) = match status.as_u16() {
        206 => match start_of_range(&response) {
            Some(start) if start == have => (have, total_of_range(&response)),
            start if have > 0 => {
                // Not where the part ends: its bytes cannot be continued; start over.
                tracing::warn!(url, have, ?start, "the resumed answer starts elsewhere");
                drop(response);
                tokio::fs::remove_file(part)
                    .await
                    .map_err(|e| LocalError::io("cannot remove", part, &e))?;
                return Ok(None);
            }
            Some(start) => {
                let reason = format!("the server answered a part starting at byte {start}, not 0");
                return Err(failed(url, reason));
            }
            None => {
                return Err(failed(
                    url,
                    "the server answered a part without a Content-Range",
                ));
            }
        },
        200 => (0, response.content_length()),
        416 if have > 0 => return Ok(Some(have)),
        code => return Err(failed(url, format!("the server answered HTTP {code}"))),
    };
    if received == 0 {
        let needed = total.unwrap_or(0);
        check_space(part, needed)?;
    }
    let mut file = open_part(part, received > 0).await?;
    progress(Progress { received, total });
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let Ok(chunk) = chunk else {
            flush(&mut file, part).await?;
            return Ok(None);
        };
        file.write_all(&chunk)
            .await
            .map_err(|e| LocalError::io("cannot write", part, &e))?;
        received += chunk.len() as u64;
        progress(Progress { received, total });
    }
    flush(&mut file, part).await?;
    match total {
        Some(t) if received < t => Ok(None),
        _ => Ok(Some(received)),
    }
}

async fn open_part(part: &Path, append: bool) -> Result<tokio::fs::File, LocalError> {
    let mut options = tokio::fs::OpenOptions::new();
    options.create(true).write(true);
    if append {
        options.append(true);
    } else {
        options.truncate(true);
    }
    options
        .open(part)
        .await
        .map_err(|e| LocalError::io("cannot write", part, &e))
}

async fn flush(file: &mut tokio::fs::File, part: &Path) -> Result<(), LocalError> {
    file.flush()
        .await
        .map_err(|e| LocalError::io("cannot write", part, &e))
}

/// The first byte of a 206's `Content-Range: bytes a-b/total`.
fn start_of_range(response: &reqwest::Response) -> Option<u64> {
    let range = response.headers().get(reqwest::header::CONTENT_RANGE)?;
    let range = range.to_str().ok()?.trim().strip_prefix("bytes ")?;
    range.split_once('-')?.0.trim().parse().ok()
}

/// The full size from a 206's `Content-Range: bytes a-b/total`.
fn total_of_range(response: &reqwest::Response) -> Option<u64> {
    let range = response.headers().get(reqwest::header::CONTENT_RANGE)?;
    range.to_str().ok()?.rsplit_once('/')?.1.parse().ok()
}

/// Refuses to start when the folder's disk has less room than the file needs.
fn check_space(part: &Path, needed: u64) -> Result<(), LocalError> {
    let Some(dir) = part.parent() else {
        return Ok(());
    };
    let Some(available) = available_space(dir) else {
        return Ok(());
    };
    if needed > available {
        return Err(LocalError::NoSpace {
            dir: dir.to_path_buf(),
            needed,
            available,
        });
    }
    Ok(())
}

#[cfg(unix)]
fn available_space(dir: &Path) -> Option<u64> {
    let stat = rustix::fs::statvfs(dir).ok()?;
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

#[cfg(not(unix))]
fn available_space(_dir: &Path) -> Option<u64> {
    None
}

/// Checks the part's SHA-256 when one was given.
async fn verify(part: &Path, expected: Option<&str>) -> Result<(), LocalError> {
    let Some(expected) = expected else {
        return Ok(());
    };
    let path: PathBuf = part.to_path_buf();
    let actual = tokio::task::spawn_blocking(move || sha256_of(&path))
        .await
        .map_err(|e| LocalError::Backend(e.to_string()))??;
    if actual.eq_ignore_ascii_case(expected.trim()) {
        Ok(())
    } else {
        Err(LocalError::Checksum {
            expected: expected.trim().to_ascii_lowercase(),
            actual,
        })
    }
}

/// The SHA-256 of a file, hex.
pub fn sha256_of(path: &Path) -> Result<String, LocalError> {
    let mut file =
        std::fs::File::open(path).map_err(|e| LocalError::io("cannot read", path, &e))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(|e| LocalError::io("cannot read", path, &e))?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_name_comes_from_the_urls_last_segment() {
        let url = "https://huggingface.co/x/y/resolve/main/Model-Q4_K_M.gguf?download=true";
        assert_eq!(file_name(url).ok().as_deref(), Some("Model-Q4_K_M.gguf"));
        for bad in ["ftp://host/a.gguf", "https://host/readme.md", "not a url"] {
            assert!(
                matches!(file_name(bad), Err(LocalError::Download { .. })),
                "{bad}"
            );
        }
    }
}
