//! Typed errors of sync between machines, each said so the user knows what to do: the server
//! down, slow, full or refusing the login; a folder another version wrote; a wrong passphrase.

use crate::secrets::SecretError;
use crate::store::StoreError;

/// What went wrong in a sync. Nothing applied or pushed before the error is lost: the next
/// sync goes on from there.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// Sync has not been set up on this device.
    #[error("sync is not set up: choose a WebDAV server or a folder first")]
    NotSetUp,
    /// Another sync of this profile is running.
    #[error("a sync is already running")]
    Busy,
    /// The setup itself is wrong.
    #[error("{0}")]
    Invalid(String),
    /// The WebDAV server cannot be reached.
    #[error("cannot reach the WebDAV server at {url}: {reason}")]
    Unreachable {
        /// The server's URL.
        url: String,
        /// What the connection said.
        reason: String,
    },
    /// The WebDAV server took too long.
    #[error("the WebDAV server at {url} did not answer within {secs} s")]
    Timeout {
        /// The server's URL.
        url: String,
        /// The time allowed.
        secs: u64,
    },
    /// The WebDAV server answered with an error status.
    #[error("the WebDAV server answered {status} for {path}: {meaning}")]
    Status {
        /// The file or folder asked for.
        path: String,
        /// The HTTP status.
        status: u16,
        /// What it means for the user.
        meaning: &'static str,
    },
    /// The sync folder (on disk) cannot be read or written.
    #[error("cannot use the sync folder {path}: {reason}")]
    Folder {
        /// The path.
        path: String,
        /// What the operating system said.
        reason: String,
    },
    /// The sync folder was written by a newer Switchboard.
    #[error(
        "the sync folder was written by a newer Switchboard (sync format {found}, this one reads {supported}); update Switchboard to sync with it"
    )]
    NewerFormat {
        /// The format found.
        found: u64,
        /// The format this build writes.
        supported: u64,
    },
    /// A file in the sync folder is not what Switchboard writes there.
    #[error(
        "{path} in the sync folder is not a Switchboard sync file ({reason}); nothing was changed"
    )]
    Foreign {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The sync folder is encrypted and no passphrase was given.
    #[error("this sync folder is encrypted: enter its passphrase")]
    PassphraseNeeded,
    /// The passphrase does not open the sync folder.
    #[error("the passphrase does not open this sync folder")]
    WrongPassphrase,
    /// A passphrase was given for a folder set up without encryption.
    #[error(
        "this sync folder was set up without encryption; sync without a passphrase, or choose an empty folder to sync encrypted"
    )]
    NotEncrypted,
    /// From the store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// From the secret store.
    #[error(transparent)]
    Secret(#[from] SecretError),
}

impl SyncError {
    /// File `path` in the sync folder is not what Switchboard writes there, for `reason`.
    pub(crate) fn foreign(path: &str, reason: impl std::fmt::Display) -> Self {
        Self::Foreign {
            path: path.to_owned(),
            reason: reason.to_string(),
        }
    }
}
