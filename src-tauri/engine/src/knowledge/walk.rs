//! Which files a knowledge base's sources hold: each folder walked (`walkdir`) without
//! following links out of it, each single file taken as it is. Hidden files and folders and
//! `node_modules` are passed over, as are kinds that are not read (images, archives, …). A link
//! to a file inside the same folder is read; a link that leads out of it, a link to a folder (a
//! loop is one link away) and an entry that cannot be read are each listed with why, and the
//! walk goes on. At most [`MAX_FILES`] files are taken from one base.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use walkdir::WalkDir;

use super::document::Kind;

/// The most files one knowledge base takes (the rest are listed as not taken).
pub const MAX_FILES: usize = 200_000;

/// A file found, with what decides whether it must be read again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Its size in bytes.
    pub size: i64,
    /// Its modification time, nanoseconds since the Unix epoch.
    pub modified_ns: i64,
}

/// What a walk found: files by path, and the paths it could not take with why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Walk {
    /// Files to index, by absolute path.
    pub files: BTreeMap<PathBuf, Found>,
    /// Paths that are not indexed, with why.
    pub refused: BTreeMap<PathBuf, String>,
}

/// Walks `sources` (absolute folders or files).
pub fn walk(sources: &[PathBuf]) -> Walk {
    let mut out = Walk::default();
    for source in sources {
        match std::fs::metadata(source) {
            Ok(meta) if meta.is_dir() => walk_folder(source, &mut out),
            Ok(meta) if meta.is_file() => take(source, &meta, &mut out),
            Ok(_) => {
                out.refused
                    .insert(source.clone(), "is not a file or a folder".to_owned());
            }
            Err(e) => {
                out.refused.insert(source.clone(), reason(&e));
            }
        }
    }
    out
}

/// Whether `path` is a file a walk would take by its name: not hidden, not in `node_modules`,
/// and of a kind that is read.
pub fn wanted(path: &Path) -> bool {
    !hidden(path) && Kind::of(path).is_some()
}

/// Whether `path` is hidden or in `node_modules` (a walk never takes it).
pub fn hidden(path: &Path) -> bool {
    path.components().any(|c| skipped_name(c.as_os_str()))
}

fn walk_folder(root: &Path, out: &mut Walk) {
    let canonical_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let entries = WalkDir::new(root)
        .follow_links(false)
        // Sorted, so the files past the cap are the same ones at every run.
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !skipped_name(e.file_name()));
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                let path = e
                    .path()
                    .map_or_else(|| root.to_path_buf(), Path::to_path_buf);
                let why = e.io_error().map_or_else(|| e.to_string(), reason);
                out.refused.insert(path, why);
                continue;
            }
        };
        let path = entry.path();
        let kind = entry.file_type();
        if kind.is_dir() || Kind::of(path).is_none() && !kind.is_symlink() {
            continue;
        }
        if kind.is_symlink() {
            take_link(path, &canonical_root, out);
            continue;
        }
        if !kind.is_file() {
            continue;
        }
        match entry.metadata() {
            Ok(meta) => take(path, &meta, out),
            Err(e) => {
                let why = e.io_error().map_or_else(|| e.to_string(), reason);
                out.refused.insert(path.to_path_buf(), why);
            }
        }
    }
}

/// A link inside a folder: read when it is a file inside the same folder.
fn take_link(path: &Path, root: &Path, out: &mut Walk) {
    let target = match std::fs::canonicalize(path) {
        Ok(target) => target,
        Err(e) => {
            out.refused.insert(path.to_path_buf(), reason(&e));
            return;
        }
    };
    if !target.starts_with(root) {
        out.refused.insert(
            path.to_path_buf(),
            "is a link that leads out of the folder, so it is not read".to_owned(),
        );
        return;
    }
    match std::fs::metadata(&target) {
        Ok(meta) if meta.is_file() && Kind::of(path).is_some() => take(path, &meta, out),
        Ok(meta) if meta.is_dir() => {
            out.refused.insert(
                path.to_path_buf(),
                "is a link to a folder, which is not followed".to_owned(),
            );
        }
        Ok(_) => {}
        Err(e) => {
            out.refused.insert(path.to_path_buf(), reason(&e));
        }
    }
}

fn take(path: &Path, meta: &std::fs::Metadata, out: &mut Walk) {
    if out.files.len() >= MAX_FILES {
        out.refused.insert(
            path.to_path_buf(),
            format!("is past the {MAX_FILES} files a knowledge base takes"),
        );
        return;
    }
    let modified_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    let size = i64::try_from(meta.len()).unwrap_or(i64::MAX);
    out.files
        .insert(path.to_path_buf(), Found { size, modified_ns });
}

fn skipped_name(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    (name.starts_with('.') && name != "." && name != "..") || name == "node_modules"
}

/// An I/O error in words.
fn reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "cannot be read: permission denied".to_owned(),
        std::io::ErrorKind::NotFound => "is gone".to_owned(),
        _ => format!("cannot be read: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_takes_readable_kinds_and_passes_over_hidden_and_unknown_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("docs/.git")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::write(root.join("docs/a.md"), "# A").unwrap();
        std::fs::write(root.join("docs/.git/config.txt"), "x").unwrap();
        std::fs::write(root.join("node_modules/x/readme.md"), "x").unwrap();
        std::fs::write(root.join("photo.png"), [0u8; 4]).unwrap();
        let found = walk(&[root.to_path_buf()]);
        let names: Vec<_> = found
            .files
            .keys()
            .map(|p| p.strip_prefix(root).unwrap())
            .collect();
        assert_eq!(names, vec![Path::new("docs/a.md")]);
        assert!(found.refused.is_empty(), "{:?}", found.refused);
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_folder_and_to_folders_are_listed_and_not_read() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("in.txt"), "inside").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("out.txt"))
            .unwrap();
        std::os::unix::fs::symlink(root.join("in.txt"), root.join("again.txt")).unwrap();
        std::os::unix::fs::symlink(root, root.join("loop")).unwrap();
        let found = walk(&[root.to_path_buf()]);
        let names: Vec<_> = found
            .files
            .keys()
            .map(|p| p.strip_prefix(root).unwrap())
            .collect();
        assert_eq!(names, vec![Path::new("again.txt"), Path::new("in.txt")]);
        assert!(found.refused[&root.join("out.txt")].contains("out of the folder"));
        assert!(found.refused[&root.join("loop")].contains("not followed"));
    }
}
