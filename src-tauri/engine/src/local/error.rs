//! What can go wrong with the built-in model, as one typed error.

use std::path::PathBuf;

use crate::provider::ProviderError;

/// A failure of the built-in model runtime.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LocalError {
    /// The model file is not there.
    #[error("the model file {path} does not exist")]
    Missing {
        /// The file asked for.
        path: PathBuf,
    },
    /// llama.cpp refused the file: not a GGUF, truncated, or an architecture it does not know.
    #[error(
        "{path} is not a usable GGUF model: llama.cpp could not load it (the file may be \
         truncated or corrupt, or made for a newer llama.cpp)"
    )]
    Unloadable {
        /// The file.
        path: PathBuf,
    },
    /// A GGUF header that cannot be what it claims (arrays nested too deep, more elements or
    /// longer strings than the file holds): refused before anything is read from it.
    #[error("{path} is not a usable GGUF model: {reason}")]
    BadGguf {
        /// The file.
        path: PathBuf,
        /// What is wrong with its header.
        reason: String,
    },
    /// No model of that name is in the models folder.
    #[error("no model named {name:?} in {dir}")]
    UnknownModel {
        /// The name asked for.
        name: String,
        /// The models folder.
        dir: PathBuf,
    },
    /// The prompt does not fit the context.
    #[error("the prompt is {tokens} tokens; the model's context holds {n_ctx}")]
    TooLong {
        /// The prompt's tokens.
        tokens: usize,
        /// The context size.
        n_ctx: u32,
    },
    /// The chat template could not be rendered.
    #[error("the model's chat template failed: {0}")]
    Template(String),
    /// The grammar for a required tool call could not be built.
    #[error("cannot constrain the output to a tool call: {0}")]
    Grammar(String),
    /// llama.cpp failed (backend, context or decoding).
    #[error("llama.cpp failed: {0}")]
    Backend(String),
    /// A file operation on the models folder failed.
    #[error("{action} {path}: {reason}")]
    Io {
        /// What was being done, e.g. "cannot copy".
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        reason: String,
    },
    /// A download was refused: a bad URL, an HTTP error status, an unreachable server.
    #[error("cannot download {url}: {reason}")]
    Download {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// The connection kept dropping; the part is kept for a later download to resume.
    #[error("the download of {url} was cut off {attempts} times; try again to resume it")]
    Interrupted {
        /// The URL.
        url: String,
        /// How many times it was tried.
        attempts: u32,
    },
    /// The downloaded file is not the one expected.
    #[error("the downloaded file's SHA-256 is {actual}, not {expected}; it was deleted")]
    Checksum {
        /// The SHA-256 asked for.
        expected: String,
        /// The file's.
        actual: String,
    },
    /// The disk has no room for the file.
    #[error("{dir} has {available} bytes free; the model needs {needed}")]
    NoSpace {
        /// The models folder.
        dir: PathBuf,
        /// The file's size.
        needed: u64,
        /// The free space.
        available: u64,
    },
    /// The download was cancelled.
    #[error("the download was cancelled")]
    Cancelled,
    /// The runtime's thread is gone.
    #[error("the built-in model runtime has stopped")]
    Stopped,
    /// A bug ended one answer; the model is loaded again for the next.
    #[error("the built-in model failed on this answer ({0}); ask again")]
    Crashed(String),
}

impl LocalError {
    /// An I/O error on `path`.
    pub fn io(action: &'static str, path: &std::path::Path, e: &std::io::Error) -> Self {
        Self::Io {
            action,
            path: path.to_path_buf(),
            reason: e.to_string(),
        }
    }
}

impl From<LocalError> for ProviderError {
    fn from(e: LocalError) -> Self {
        match e {
            LocalError::TooLong { .. } => ProviderError::ContextLengthExceeded {
                message: e.to_string(),
            },
            LocalError::UnknownModel { ref name, .. } => ProviderError::ModelNotFound {
                model: name.clone(),
                message: e.to_string(),
            },
            other => ProviderError::Local(other.to_string()),
        }
    }
}
