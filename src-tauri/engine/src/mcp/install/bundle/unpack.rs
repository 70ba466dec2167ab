//! Reading a bundle's zip safely. [`open`] checks the file's size and the entry count its
//! end-of-central-directory record declares ([`super::eocd`]) before the zip library parses
//! the central directory; [`check`] then walks every entry before anything is written:
//! a path that escapes the folder (`..`, absolute), a symlink, more than [`MAX_ENTRIES`]
//! entries or more than [`MAX_TOTAL_BYTES`] unpacked, a manifest that does not validate or an
//! entry point that is not a file of the bundle is refused. [`unpack`] writes into a
//! temporary folder beside the target (counting the bytes really written) and renames it
//! into place; on any failure the temporary folder is removed, so nothing is left. The file is
//! read through a buffer, never whole into memory.

use std::fs::File;
use std::io::{BufReader, Read, Seek, Write};
use std::path::{Component, Path, PathBuf};

use zip::ZipArchive;

use super::{Manifest, eocd, refused};
use crate::vocab::error::InstallError;

/// The most entries a bundle may have.
pub(crate) const MAX_ENTRIES: usize = 10_000;
/// The most bytes a bundle may unpack to.
pub(crate) const MAX_TOTAL_BYTES: u64 = 512 * 1024 * 1024;
/// The largest bundle file read.
pub(crate) const MAX_FILE_BYTES: u64 = 512 * 1024 * 1024;
/// The largest `manifest.json` read.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// A bundle's zip, read through a buffer.
pub(crate) type BundleZip = ZipArchive<BufReader<File>>;

/// How much a bundle may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// The most entries.
    pub entries: usize,
    /// The most bytes unpacked.
    pub bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            entries: MAX_ENTRIES,
            bytes: MAX_TOTAL_BYTES,
        }
    }
}

/// A checked bundle.
pub(super) struct Listing {
    pub manifest: Manifest,
    pub files: usize,
    pub total: u64,
}

/// `name` as a relative path of normal parts, or why not.
fn safe_path(name: &str) -> Result<PathBuf, String> {
    let path = Path::new(name);
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => {
                return Err(format!(
                    "the entry {name:?} points outside the bundle's folder"
                ));
            }
        }
    }
    if name.contains('\\') || name.starts_with('/') {
        return Err(format!(
            "the entry {name:?} points outside the bundle's folder"
        ));
    }
    Ok(out)
}

/// Checks the bundle `file` (open as `handle`) before anything else reads it: its size, and
/// the entry count and central directory size its end records declare ([`eocd::check_end`]).
pub(crate) fn precheck(file: &Path, handle: &mut File, limits: Limits) -> Result<(), InstallError> {
    let no = |why: &str| refused(file, why);
    let len = handle.metadata().map_err(|e| no(&e.to_string()))?.len();
    if len > MAX_FILE_BYTES {
        return Err(no(&format!("it is larger than {MAX_FILE_BYTES} bytes")));
    }
    eocd::check_end(handle, len, limits.entries).map_err(|why| no(&why))?;
    Ok(())
}

/// Opens the bundle `file` (open as `handle`) as a zip: [`precheck`] first, then the zip
/// library reads the central directory.
pub(crate) fn open_zip(
    file: &Path,
    mut handle: File,
    limits: Limits,
) -> Result<BundleZip, InstallError> {
    precheck(file, &mut handle, limits)?;
    handle.rewind().map_err(|e| refused(file, &e.to_string()))?;
    ZipArchive::new(BufReader::new(handle))
        .map_err(|e| refused(file, &format!("it is not a zip file: {e}")))
}

/// Checks every entry and the manifest of `zip` (read from `file`).
pub(super) fn check<R: Read + Seek>(
    file: &Path,
    zip: &mut ZipArchive<R>,
    limits: Limits,
) -> Result<Listing, InstallError> {
    let no = |why: &str| refused(file, why);
    if zip.len() > limits.entries {
        let (n, max) = (zip.len(), limits.entries);
        return Err(no(&format!("it has {n} entries, more than {max}")));
    }
    let (mut total, mut files, mut paths) = (0u64, 0usize, Vec::new());
    for i in 0..zip.len() {
        let entry = zip
            .by_index_raw(i)
            .map_err(|e| no(&format!("entry {i} is unreadable: {e}")))?;
        let name =
            (entry.name()).map_err(|e| no(&format!("entry {i} has no readable name: {e}")))?;
        let path = safe_path(&name).map_err(|why| no(&why))?;
        if entry.is_symlink() {
            return Err(no(&format!("the entry {name:?} is a symbolic link")));
        }
        total = total.saturating_add(entry.size());
        if total > limits.bytes {
            let max = limits.bytes;
            return Err(no(&format!("it unpacks to more than {max} bytes")));
        }
        if entry.is_file() {
            files += 1;
            paths.push(path);
        }
    }
    let mut json = Vec::new();
    let manifest = zip
        .by_name("manifest.json")
        .map_err(|_| no("it has no manifest.json"))?
        .take(MAX_MANIFEST_BYTES)
        .read_to_end(&mut json)
        .map_err(|e| no(&format!("its manifest.json is unreadable: {e}")));
    manifest?;
    let manifest = Manifest::parse(&json).map_err(|why| no(&why))?;
    let entry = safe_path(&manifest.server.entry_point).map_err(|_| {
        no(&format!(
            "its entry point {:?} is outside the bundle",
            manifest.server.entry_point
        ))
    })?;
    if !paths.contains(&entry) {
        return Err(no(&format!(
            "its entry point {:?} is not a file of the bundle",
            manifest.server.entry_point
        )));
    }
    Ok(Listing {
        manifest,
        files,
        total,
    })
}

/// Unpacks the bundle at `file` into `<bundles>/<name>/<version>/` and returns its manifest
/// and that folder. Refused (nothing left on disk) when it does not pass [`check`], when that
/// version is already there, or when writing fails.
#[cfg(test)]
pub(crate) fn unpack(file: &Path, bundles: &Path) -> Result<(Manifest, PathBuf), InstallError> {
    unpack_with(file, bundles, Limits::default())
}

/// [`unpack`] within `limits`.
#[cfg(test)]
pub(crate) fn unpack_with(
    file: &Path,
    bundles: &Path,
    limits: Limits,
) -> Result<(Manifest, PathBuf), InstallError> {
    unpack_as(file, file, bundles, limits)
}

/// [`unpack_with`] of the file at `read` (a staged copy), named `file` in messages.
pub(crate) fn unpack_as(
    read: &Path,
    file: &Path,
    bundles: &Path,
    limits: Limits,
) -> Result<(Manifest, PathBuf), InstallError> {
    let handle = File::open(read).map_err(|e| refused(file, &e.to_string()))?;
    let mut zip = open_zip(file, handle, limits)?;
    let listing = check(file, &mut zip, limits)?;
    let m = listing.manifest;
    let parent = bundles.join(&m.name);
    let target = parent.join(&m.version);
    if target.exists() {
        return Err(refused(
            file,
            &format!(
                "{} {} is already installed in {}; uninstall it first",
                m.name,
                m.version,
                target.display()
            ),
        ));
    }
    let parent_was_there = parent.exists();
    let temp = bundles.join(format!(".unpacking-{}", uuid::Uuid::now_v7()));
    let result = write_all(file, &mut zip, &temp, limits.bytes).and_then(|()| {
        std::fs::create_dir_all(&parent)
            .and_then(|()| std::fs::rename(&temp, &target))
            .map_err(|e| InstallError::Io(format!("cannot install into {}: {e}", target.display())))
    });
    if let Err(error) = result {
        let _ = std::fs::remove_dir_all(&temp);
        if !parent_was_there {
            let _ = std::fs::remove_dir(&parent);
        }
        return Err(error);
    }
    Ok((m, target))
}

/// Writes every entry of `zip` under `dir`, counting the bytes really written.
fn write_all<R: Read + Seek>(
    file: &Path,
    zip: &mut ZipArchive<R>,
    dir: &Path,
    max: u64,
) -> Result<(), InstallError> {
    let io =
        |e: std::io::Error| InstallError::Io(format!("cannot unpack into {}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut written = 0u64;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| refused(file, &e.to_string()))?;
        let name = entry.name().map_err(|e| refused(file, &e.to_string()))?;
        let path = dir.join(safe_path(&name).map_err(|why| refused(file, &why))?);
        if entry.is_dir() {
            std::fs::create_dir_all(&path).map_err(io)?;
            continue;
        }
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(io)?;
        }
        let mut out = std::fs::File::create(&path).map_err(io)?;
        let budget = max.saturating_sub(written);
        let copied = std::io::copy(&mut (&mut entry).take(budget + 1), &mut out).map_err(io)?;
        written += copied;
        if written > max {
            return Err(refused(
                file,
                &format!("it unpacks to more than {max} bytes"),
            ));
        }
        out.flush().map_err(io)?;
        #[cfg(unix)]
        if let Some(mode) = entry.unix_mode() {
            use std::os::unix::fs::PermissionsExt;
            let mode = mode & 0o755;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).map_err(io)?;
        }
    }
    Ok(())
}
