//! The engine's error type and the stable kinds the shell and UI act on.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::logging::LoggingError;
use crate::paths::PathsError;
use crate::store::StoreError;

/// Anything the engine can fail with.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// From the store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// From resolving or creating directories.
    #[error(transparent)]
    Paths(#[from] PathsError),
    /// From setting up logging.
    #[error(transparent)]
    Logging(#[from] LoggingError),
}

/// A stable, serializable classification of an error; the UI translates by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The thing asked for does not exist.
    NotFound,
    /// The input was rejected; the message says why.
    InvalidInput,
    /// The database file is corrupt; it was left untouched.
    CorruptDatabase,
    /// Another process holds the database.
    DatabaseLocked,
    /// The database is from a newer Switchboard.
    NewerSchema,
    /// A directory or file cannot be used.
    Io,
    /// Anything else; a bug or an unexpected condition.
    Internal,
}

impl EngineError {
    /// The kind of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Store(e) => store_kind(e),
            Self::Paths(_) | Self::Logging(_) => ErrorKind::Io,
        }
    }
}

fn store_kind(e: &StoreError) -> ErrorKind {
    match e {
        StoreError::NotFound { .. } => ErrorKind::NotFound,
        StoreError::Invalid(_) => ErrorKind::InvalidInput,
        StoreError::Corrupt { .. } => ErrorKind::CorruptDatabase,
        StoreError::Locked { .. } => ErrorKind::DatabaseLocked,
        StoreError::NewerSchema { .. } => ErrorKind::NewerSchema,
        StoreError::Open { .. } | StoreError::Backup { .. } => ErrorKind::Io,
        StoreError::Migration { .. } | StoreError::Database(_) => ErrorKind::Internal,
    }
}
