//! A runtime's files out of its wheel: the entries under each of the layout's prefixes, written
//! under the matching folder of the staging directory with their Unix modes (executables stay
//! executable). A name that would leave the folder (`..`, absolute) or a link is refused;
//! the wheel is read through a buffer, never whole into memory.

use std::fs::File;
use std::io::BufReader;
use std::path::{Component, Path, PathBuf};

use super::RuntimeError;

/// The most bytes a runtime may unpack to.
const MAX_UNPACKED: u64 = 1024 * 1024 * 1024;

/// Unpacks from `wheel` each entry under a `(prefix, folder)` of `layout` into `dest/folder`.
pub(super) fn wheel(
    wheel: &Path,
    layout: &[(String, &str)],
    dest: &Path,
) -> Result<(), RuntimeError> {
    let failed = |reason: String| RuntimeError::Unpack {
        file: wheel.display().to_string(),
        reason,
    };
    let _ = std::fs::remove_dir_all(dest);
    let file = File::open(wheel).map_err(|e| failed(e.to_string()))?;
    let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| failed(e.to_string()))?;
    let mut total = 0u64;
    let mut found = 0usize;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| failed(e.to_string()))?;
        let name = entry
            .name()
            .map_err(|e| failed(format!("entry {i}: {e}")))?
            .into_owned();
        let Some((rest, folder)) = layout
            .iter()
            .find_map(|(p, f)| name.strip_prefix(p.as_str()).map(|r| (r.to_owned(), *f)))
        else {
            continue;
        };
        if rest.is_empty() {
            continue;
        }
        let relative =
            safe(&rest).ok_or_else(|| failed(format!("the entry {name:?} leaves its folder")))?;
        if entry.is_symlink() {
            return Err(failed(format!("the entry {name:?} is a link")));
        }
        let target = dest.join(folder).join(relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| failed(e.to_string()))?;
            continue;
        }
        total += entry.size();
        if total > MAX_UNPACKED {
            return Err(failed(format!(
                "it unpacks to more than {MAX_UNPACKED} bytes"
            )));
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| failed(e.to_string()))?;
        }
        let mut out = File::create(&target).map_err(|e| failed(e.to_string()))?;
        std::io::copy(&mut entry, &mut out).map_err(|e| failed(format!("{name}: {e}")))?;
        #[cfg(unix)]
        if let Some(mode) = entry.unix_mode() {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::Permissions::from_mode(mode & 0o755);
            std::fs::set_permissions(&target, mode).map_err(|e| failed(e.to_string()))?;
        }
        found += 1;
    }
    if found == 0 {
        return Err(failed("it holds none of the runtime's files".to_owned()));
    }
    Ok(())
}

/// `name` as a relative path of normal parts only.
fn safe(name: &str) -> Option<PathBuf> {
    if name.starts_with('/') || name.contains('\\') {
        return None;
    }
    let mut out = PathBuf::new();
    for part in Path::new(name).components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out)
}
