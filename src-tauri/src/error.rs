//! The one error type that crosses the IPC boundary: `{ kind, message }`, serializable and
//! mirrored in `ui/src/bindings.ts`. The UI translates by `kind` and shows `message`.

use serde::Serialize;
use switchboard_engine::store::StoreError;
use switchboard_engine::{EngineError, ErrorKind};
use ts_rs::TS;

/// The one error every IPC command can return.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS, thiserror::Error)]
#[error("{message}")]
pub struct IpcError {
    /// What kind of failure this is; stable across versions.
    pub kind: ErrorKind,
    /// A specific, human-readable explanation (English; the UI adds a translated heading).
    pub message: String,
}

impl IpcError {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// Input the command refuses, saying why.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }
}

impl From<EngineError> for IpcError {
    fn from(e: EngineError) -> Self {
        Self {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

impl From<switchboard_engine::export::ExportError> for IpcError {
    fn from(e: switchboard_engine::export::ExportError) -> Self {
        EngineError::from(e).into()
    }
}

impl From<switchboard_engine::knowledge::KnowledgeError> for IpcError {
    fn from(e: switchboard_engine::knowledge::KnowledgeError) -> Self {
        EngineError::from(e).into()
    }
}

impl From<StoreError> for IpcError {
    fn from(e: StoreError) -> Self {
        EngineError::from(e).into()
    }
}
