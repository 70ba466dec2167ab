//! The profile's lock: of all the processes that open one profile (the window, terminal
//! commands, a second launch about to hand over to the first window), only the one holding
//! this lock owns crash recovery — marking messages left streaming as interrupted and resuming
//! MCP tasks. Another process would otherwise take a live window's streaming answer for a
//! crash's leftover. An OS file lock (`flock` on Unix) on `<data dir>/switchboard.lock`: it ends
//! with the process, however it ends.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

/// The lock file's name in the data directory.
pub const LOCK_FILE: &str = "switchboard.lock";

/// A held profile lock (released when dropped or when the process ends).
#[derive(Debug)]
pub struct ProfileLock {
    _file: Option<File>,
}

impl ProfileLock {
    /// Ownership without a lock, where the filesystem cannot lock files.
    pub fn unlocked() -> Self {
        Self { _file: None }
    }

    /// Whether this holds the lock for real (not [`ProfileLock::unlocked`]).
    pub fn is_held(&self) -> bool {
        self._file.is_some()
    }

    /// Takes the lock of the profile whose data directory is `dir`: `Ok(None)` when another
    /// process (or another engine of this one) holds it.
    pub fn try_acquire(dir: &Path) -> std::io::Result<Option<Self>> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK_FILE))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Self { _file: Some(file) })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_holder_at_a_time_and_the_lock_is_free_again_once_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = ProfileLock::try_acquire(dir.path()).unwrap();
        assert!(first.is_some());
        assert!(ProfileLock::try_acquire(dir.path()).unwrap().is_none());
        drop(first);
        assert!(ProfileLock::try_acquire(dir.path()).unwrap().is_some());
    }

    #[test]
    fn a_missing_directory_is_an_error_not_a_lock() {
        assert!(ProfileLock::try_acquire(Path::new("/nonexistent/switchboard")).is_err());
    }
}
