//! Typed errors of the SQLite store, classified so callers can act on them
//! (a corrupt file, a lock held elsewhere, a schema from a newer Switchboard).

use std::path::PathBuf;

/// What went wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file exists but is not a readable SQLite database. It is left untouched.
    #[error(
        "the database file {path} is corrupt or not a Switchboard database; it was left untouched"
    )]
    Corrupt {
        /// The database file.
        path: PathBuf,
    },
    /// Another process holds a lock on the database for longer than the busy timeout.
    #[error(
        "the database file {path} is locked by another process (is Switchboard already running?)"
    )]
    Locked {
        /// The database file.
        path: PathBuf,
    },
    /// The database was written by a newer Switchboard; opening it could lose data.
    #[error(
        "the database file {path} has schema version {found}, newer than this Switchboard supports ({supported}); update Switchboard to open it"
    )]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// The newest migration applied to the file.
        found: i64,
        /// The newest migration this build knows.
        supported: i64,
    },
    /// The database file or its directory cannot be created or opened.
    #[error("cannot open the database file {path}: {reason}")]
    Open {
        /// The database file.
        path: PathBuf,
        /// What the operating system or SQLite said.
        reason: String,
    },
    /// The backup taken before a migration failed; the migration was not run.
    #[error("cannot back up {path} before upgrading it: {reason}")]
    Backup {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        reason: String,
    },
    /// A snapshot of the database (a backup) could not be written.
    #[error("cannot copy the database {path}: {reason}")]
    Snapshot {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        reason: String,
    },
    /// A migration failed; the database stays at its previous version.
    #[error("cannot upgrade the database file {path}: {reason}")]
    Migration {
        /// The database file.
        path: PathBuf,
        /// What the migrator said.
        reason: String,
    },
    /// No row with that id.
    #[error("{entity} {id} does not exist")]
    NotFound {
        /// The kind of row: "conversation", "message".
        entity: &'static str,
        /// The id asked for.
        id: String,
    },
    /// The caller passed something the store cannot accept.
    #[error("{0}")]
    Invalid(String),
    /// A record synced from another device (or kept for sync) is not the JSON it should be.
    #[error("a synced record is not valid: {0}")]
    SyncRecord(#[from] serde_json::Error),
    /// Any other database error.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// SQLite primary result codes that we classify.
const SQLITE_BUSY: i64 = 5;
const SQLITE_LOCKED: i64 = 6;
const SQLITE_CORRUPT: i64 = 11;
const SQLITE_NOTADB: i64 = 26;

impl StoreError {
    /// Classifies a raw sqlx error that happened while using the file at `path`.
    pub(crate) fn classify(err: sqlx::Error, path: &std::path::Path) -> Self {
        match primary_code(&err) {
            Some(SQLITE_CORRUPT | SQLITE_NOTADB) => Self::Corrupt {
                path: path.to_path_buf(),
            },
            Some(SQLITE_BUSY | SQLITE_LOCKED) => Self::Locked {
                path: path.to_path_buf(),
            },
            _ => Self::Database(err),
        }
    }
}

/// The primary SQLite result code of an error, if it came from SQLite.
fn primary_code(err: &sqlx::Error) -> Option<i64> {
    let db = err.as_database_error()?;
    let code: i64 = db.code()?.parse().ok()?;
    Some(code & 0xff)
}
