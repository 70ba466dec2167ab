//! Opening the filesystem built-in's files and folders without a check-then-open race. The
//! server first finds a path's canonical form inside a root (so it has no symlink and no
//! `..`); this module then opens that path *relative to the root's own descriptor* and refuses
//! to follow any symlink on the way: on Linux with `openat2(RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS)`, elsewhere on Unix (or where `openat2` is unavailable) by walking the
//! components with `O_NOFOLLOW`. A link swapped in after the check makes the open fail instead
//! of leaving the root. Files are opened non-blocking and must be regular files, so a FIFO or a
//! device fails at once rather than hanging a read.

use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

/// What a file is opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// Reading.
    Read,
    /// Writing: created if missing, truncated if not.
    Write,
}

/// One entry of a folder: its name and whether it is a folder (symlinks are not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The file name.
    pub name: String,
    /// A real folder (not a symlink to one).
    pub is_dir: bool,
}

/// The root `real` lies in and the path below it.
fn split<'a>(roots: &'a [PathBuf], real: &'a Path) -> Result<(&'a Path, &'a Path), String> {
    roots
        .iter()
        .find_map(|root| Some((root.as_path(), real.strip_prefix(root).ok()?)))
        .ok_or_else(|| {
            format!(
                "access denied: {} is outside the allowed folders",
                real.display()
            )
        })
}

/// Opens the regular file at `real` (canonical, inside one of `roots`) for `access`.
pub(crate) fn open_file(roots: &[PathBuf], real: &Path, access: Access) -> Result<File, String> {
    let (root, below) = split(roots, real)?;
    let file = imp::open_file(root, below, access).map_err(|e| refusal(real, &e))?;
    let meta = file.metadata().map_err(|e| refusal(real, &e))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", real.display()));
    }
    Ok(file)
}

/// The entries of the folder at `real` (canonical, inside one of `roots`), unsorted.
pub(crate) fn list_dir(roots: &[PathBuf], real: &Path) -> Result<Vec<Entry>, String> {
    let (root, below) = split(roots, real)?;
    imp::list_dir(root, below).map_err(|e| refusal(real, &e))
}

/// The message for a failed open: a symlink met on the way is named as such.
fn refusal(path: &Path, error: &io::Error) -> String {
    if matches!(error.raw_os_error(), Some(code) if is_link_error(code)) {
        return format!(
            "access denied: {} changed into a symbolic link while it was opened",
            path.display()
        );
    }
    format!("cannot open {}: {error}", path.display())
}

/// `ELOOP` (a symlink met with `O_NOFOLLOW`/`RESOLVE_NO_SYMLINKS`) or `EXDEV` (`RESOLVE_BENEATH`).
#[cfg(unix)]
fn is_link_error(code: i32) -> bool {
    code == rustix::io::Errno::LOOP.raw_os_error() || code == rustix::io::Errno::XDEV.raw_os_error()
}

#[cfg(not(unix))]
fn is_link_error(_code: i32) -> bool {
    false
}

/// The normal components of a path below a root (`.` dropped; `..` cannot occur in a
/// canonical path, and is refused anyway).
fn components(below: &Path) -> io::Result<Vec<&std::ffi::OsStr>> {
    below
        .components()
        .filter(|c| *c != Component::CurDir)
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(io::Error::from(io::ErrorKind::PermissionDenied)),
        })
        .collect()
}

#[cfg(unix)]
mod imp {
    use std::fs::File;
    use std::io;
    use std::os::fd::OwnedFd;
    use std::path::Path;

    use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};

    use super::{Access, Entry, components};

    /// Opens `below` (relative to `root`) with `flags`, never following a symlink.
    fn open_below(root: &Path, below: &Path, flags: OFlags) -> io::Result<OwnedFd> {
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let root_fd = rustix::fs::open(root, dir_flags, Mode::empty())?;
        let flags = flags | OFlags::CLOEXEC | OFlags::NOCTTY;
        #[cfg(target_os = "linux")]
        match openat2(&root_fd, below, flags) {
            Err(e) if e == rustix::io::Errno::NOSYS || e == rustix::io::Errno::PERM => {}
            other => return other.map_err(io::Error::from),
        }
        walk(root_fd, below, flags)
    }

    /// One `openat2` beneath `root_fd`, refusing every symlink.
    #[cfg(target_os = "linux")]
    fn openat2(root_fd: &OwnedFd, below: &Path, flags: OFlags) -> rustix::io::Result<OwnedFd> {
        use rustix::fs::ResolveFlags;
        let path = if below.as_os_str().is_empty() {
            Path::new(".")
        } else {
            below
        };
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        // openat2, unlike openat, refuses a mode without O_CREAT.
        let mode = match flags.contains(OFlags::CREATE) {
            true => Mode::from_raw_mode(0o666),
            false => Mode::empty(),
        };
        rustix::fs::openat2(root_fd, path, flags, mode, resolve)
    }

    /// Component by component from `root_fd`, each opened with `O_NOFOLLOW`.
    pub(super) fn walk(root_fd: OwnedFd, below: &Path, flags: OFlags) -> io::Result<OwnedFd> {
        let names = components(below)?;
        let Some((last, parents)) = names.split_last() else {
            let here = rustix::fs::openat(&root_fd, ".", flags, Mode::empty())?;
            return Ok(here);
        };
        let step = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut dir = root_fd;
        for name in parents {
            dir = rustix::fs::openat(&dir, *name, step, Mode::empty())?;
        }
        let mode = Mode::from_raw_mode(0o666);
        Ok(rustix::fs::openat(
            &dir,
            *last,
            flags | OFlags::NOFOLLOW,
            mode,
        )?)
    }

    pub(super) fn open_file(root: &Path, below: &Path, access: Access) -> io::Result<File> {
        let flags = match access {
            Access::Read => OFlags::RDONLY | OFlags::NONBLOCK,
            Access::Write => OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::NONBLOCK,
        };
        let fd = open_below(root, below, flags)?;
        // Regular files ignore O_NONBLOCK; it only keeps a FIFO from blocking the open.
        Ok(File::from(fd))
    }

    pub(super) fn list_dir(root: &Path, below: &Path) -> io::Result<Vec<Entry>> {
        let fd = open_below(root, below, OFlags::RDONLY | OFlags::DIRECTORY)?;
        let mut entries = Vec::new();
        for entry in Dir::read_from(&fd)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "." || name == ".." {
                continue;
            }
            let is_dir = match entry.file_type() {
                FileType::Directory => true,
                // Some filesystems leave the type out of the listing: ask without following.
                FileType::Unknown => {
                    rustix::fs::statat(&fd, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)
                        .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Directory)
                }
                _ => false,
            };
            entries.push(Entry { name, is_dir });
        }
        Ok(entries)
    }
}

#[cfg(not(unix))]
mod imp {
    use std::fs::File;
    use std::io;
    use std::path::Path;

    use super::{Access, Entry};

    // Without Unix descriptors the open follows the check (the path is canonical and inside
    // the root when checked); a symlink swapped in between is not caught here.
    pub(super) fn open_file(root: &Path, below: &Path, access: Access) -> io::Result<File> {
        let path = root.join(below);
        match access {
            Access::Read => File::open(path),
            Access::Write => File::create(path),
        }
    }

    pub(super) fn list_dir(root: &Path, below: &Path) -> io::Result<Vec<Entry>> {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(root.join(below))? {
            let entry = entry?;
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            let name = entry.file_name().to_string_lossy().into_owned();
            entries.push(Entry { name, is_dir });
        }
        Ok(entries)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use rustix::fs::{Mode, OFlags};

    use super::imp::walk;

    #[test]
    fn the_fallback_walk_refuses_any_symlink_on_the_way() -> std::io::Result<()> {
        let base = tempfile::tempdir()?;
        let root = base.path().join("root");
        std::fs::create_dir_all(root.join("dir"))?;
        std::fs::write(root.join("dir/file"), "inside")?;
        std::os::unix::fs::symlink(root.join("dir"), root.join("link"))?;
        let open_root = || {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            rustix::fs::open(&root, flags, Mode::empty())
        };
        let read = OFlags::RDONLY | OFlags::CLOEXEC;
        assert!(walk(open_root()?, "dir/file".as_ref(), read).is_ok());
        let through_link = walk(open_root()?, "link/file".as_ref(), read);
        let code = through_link.err().and_then(|e| e.raw_os_error());
        let refused =
            [rustix::io::Errno::LOOP, rustix::io::Errno::NOTDIR].map(|e| e.raw_os_error());
        assert!(code.is_some_and(|c| refused.contains(&c)), "{code:?}");
        let last_is_link = walk(open_root()?, "link".as_ref(), read);
        let code = last_is_link.err().and_then(|e| e.raw_os_error());
        assert_eq!(code, Some(rustix::io::Errno::LOOP.raw_os_error()));
        Ok(())
    }
}
