//! The size cap on imported files: a file larger than the setting [`MAX_BYTES_SETTING`]
//! (default [`DEFAULT_MAX_BYTES`]) is refused from its metadata, before a byte of it is read,
//! and the read itself stops at the cap (a file that grows, or a device that reports no size,
//! cannot make the import allocate past it).

use std::io::Read;
use std::path::Path;

use super::ExportError;
use crate::store::Store;

/// The setting holding the largest file an import reads, in bytes.
pub const MAX_BYTES_SETTING: &str = "import.max_file_bytes";
/// The largest file an import reads by default: 1 GiB (a ChatGPT export of several years is
/// a few hundred MB).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// The cap in force: the setting when it is a positive number, else the default.
pub async fn max_bytes(store: &Store) -> Result<u64, ExportError> {
    let value = store.setting(MAX_BYTES_SETTING).await?;
    Ok(value
        .and_then(|v| v.as_u64())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_MAX_BYTES))
}

/// Opens the file at `path` for an import, refusing it (before reading) when it is over
/// `cap`; reading past `cap` (a file that grows, or a device that reports no size) fails.
pub fn open_capped(path: &Path, cap: u64) -> Result<Capped, ExportError> {
    let io = |e| ExportError::io(path, e);
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.len() > cap {
        return Err(too_large(path, meta.len(), cap));
    }
    Ok(Capped {
        file,
        left: cap,
        cap,
    })
}

/// A file that may be read up to its cap, and no further.
pub struct Capped {
    file: std::fs::File,
    left: u64,
    cap: u64,
}

impl Read for Capped {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = buf
            .len()
            .min(usize::try_from(self.left.saturating_add(1)).unwrap_or(usize::MAX));
        let n = self.file.read(&mut buf[..want])?;
        let n64 = u64::try_from(n).unwrap_or(u64::MAX);
        if n64 > self.left {
            return Err(std::io::Error::other(format!(
                "the file grew past the import limit of {} bytes (the setting import.max_file_bytes)",
                self.cap
            )));
        }
        self.left -= n64;
        Ok(n)
    }
}

fn too_large(path: &Path, bytes: u64, cap: u64) -> ExportError {
    ExportError::TooLarge {
        path: path.to_path_buf(),
        bytes,
        limit: cap,
    }
}
