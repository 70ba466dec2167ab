//! Owner-only permissions on Switchboard's profile: the data, config and log folders 0700, the
//! database (with its WAL and shared-memory files) and the secrets file 0600. Checked and
//! repaired at every start ([`Paths::ensure`]), so a profile made under a loose umask,
//! or copied from elsewhere, is tightened; the database file is created 0600 before SQLite
//! opens it, so the WAL and shared-memory files SQLite creates beside it inherit that mode.

use std::io;
use std::path::{Path, PathBuf};

use super::Paths;

/// The mode of the profile's folders.
pub const DIR_MODE: u32 = 0o700;
/// The mode of the database and secret files.
pub const FILE_MODE: u32 = 0o600;
/// The secrets file's name in the config folder: the opt-in file fallback of the keychain
/// (`secrets::choose_store`).
pub const SECRETS_FILE: &str = "secrets.json";

/// The files that hold conversations, settings or secrets.
fn private_files(paths: &Paths) -> Vec<PathBuf> {
    let db = paths.database();
    let beside = |suffix: &str| {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    vec![
        beside("-wal"),
        beside("-shm"),
        beside("-journal"),
        paths.config_dir.join(SECRETS_FILE),
        db,
    ]
}

/// Tightens the profile (folders must exist); returns the paths whose mode was repaired.
pub fn harden(paths: &Paths) -> io::Result<Vec<PathBuf>> {
    let mut repaired = Vec::new();
    for dir in [&paths.data_dir, &paths.config_dir, &paths.log_dir] {
        if tighten(dir, DIR_MODE)? {
            repaired.push(dir.clone());
        }
    }
    create_private(&paths.database())?;
    for file in private_files(paths) {
        if tighten(&file, FILE_MODE)? {
            repaired.push(file);
        }
    }
    Ok(repaired)
}

/// Sets `path`'s mode to `mode` when it has any other permission bit; `false` when it was
/// already right or does not exist. Symlinks are left alone (their mode means nothing).
#[cfg(unix)]
fn tighten(path: &Path, mode: u32) -> io::Result<bool> {
    use std::os::unix::fs::PermissionsExt;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    if meta.file_type().is_symlink() || meta.permissions().mode() & 0o777 == mode {
        return Ok(false);
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    Ok(true)
}

#[cfg(not(unix))]
fn tighten(_path: &Path, _mode: u32) -> io::Result<bool> {
    Ok(false)
}

/// Creates `path` empty with [`FILE_MODE`] if it does not exist (SQLite takes an empty file as
/// a new database).
fn create_private(path: &Path) -> io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}
