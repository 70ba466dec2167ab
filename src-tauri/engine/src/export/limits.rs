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

/// Reads the file at `path` as text, refusing it (before reading) when it is over `cap`.
pub fn read_capped(path: &Path, cap: u64) -> Result<String, ExportError> {
    let io = |e| ExportError::io(path, e);
    let file = std::fs::File::open(path).map_err(io)?;
    let bytes = file.metadata().map_err(io)?.len();
    if bytes > cap {
        return Err(too_large(path, bytes, cap));
    }
    let mut text = String::new();
    let read = file.take(cap.saturating_add(1)).read_to_string(&mut text);
    let read = read.map_err(io)?;
    if u64::try_from(read).unwrap_or(u64::MAX) > cap {
        return Err(too_large(path, cap.saturating_add(1), cap));
    }
    Ok(text)
}

fn too_large(path: &Path, bytes: u64, cap: u64) -> ExportError {
    ExportError::TooLarge {
        path: path.to_path_buf(),
        bytes,
        limit: cap,
    }
}
