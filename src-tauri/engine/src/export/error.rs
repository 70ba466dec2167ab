//! Typed errors of export and import: files that cannot be written or read, files that are
//! not valid JSON (with the line and column), and files of the wrong shape.

use std::path::PathBuf;

use crate::store::StoreError;

/// What went wrong exporting or importing.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// From the store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A file or folder could not be written or read.
    #[error("cannot use {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file is not valid JSON, or ends early; nothing was imported.
    #[error("{what} at line {line}, column {column}: {reason}; nothing was imported")]
    Parse {
        /// "the file ends early (is it truncated?)" or "the file is not valid JSON".
        what: &'static str,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser expected.
        reason: String,
    },
    /// The file is JSON but not of a known shape or version; nothing was imported.
    #[error("{0}; nothing was imported")]
    Format(String),
    /// The request cannot be carried out as asked.
    #[error("{0}")]
    Invalid(String),
    /// The file to import is larger than the import size cap; nothing was read.
    #[error(
        "{} is {bytes} bytes, more than the import limit of {limit} bytes (the setting \
         import.max_file_bytes); nothing was imported",
        .path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (at least).
        bytes: u64,
        /// The cap in force.
        limit: u64,
    },
}

impl ExportError {
    /// Classifies a JSON error, keeping its position.
    pub fn from_json(e: serde_json::Error) -> Self {
        use serde_json::error::Category;
        let what = match e.classify() {
            Category::Eof => "the file ends early (is it truncated?)",
            Category::Syntax => "the file is not valid JSON",
            Category::Data => "the file has an unexpected value",
            Category::Io => "the file could not be read",
        };
        let full = e.to_string();
        let reason = full
            .rsplit_once(" at line ")
            .map_or(full.as_str(), |(r, _)| r)
            .to_owned();
        Self::Parse {
            what,
            line: e.line(),
            column: e.column(),
            reason,
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}
