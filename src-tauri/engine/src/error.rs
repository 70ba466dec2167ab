//! The engine's error type and the stable kinds the shell and UI act on.

use crate::backups::BackupError;
use crate::export::ExportError;
use crate::knowledge::KnowledgeError;
use crate::logging::LoggingError;
use crate::paths::PathsError;
use crate::provider::ProviderError;
use crate::runtimes::RuntimeError;
use crate::secrets::SecretError;
use crate::store::StoreError;
use crate::sync::SyncError;
pub use crate::vocab::error::ErrorKind;
use crate::vocab::error::{
    AgentError, AppError, ConfigError, InstallError, InteractionError, ToolError, UploadError,
};

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
    /// From a model provider.
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// From the secret store.
    #[error(transparent)]
    Secret(#[from] SecretError),
    /// An MCP server configuration was rejected; the message lists every problem, one a line.
    #[error(transparent)]
    ServerConfig(#[from] ConfigError),
    /// A tool could not be called, or an MCP server could not be started.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// An answer to a server's request (sampling, elicitation) or a host setting was refused.
    #[error(transparent)]
    Interaction(#[from] InteractionError),
    /// A turn could not start.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// An export or import failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// An MCP App could not be shown, or its request was refused.
    #[error(transparent)]
    App(#[from] AppError),
    /// Finding or installing a server (MCP Registry, install plan, MCP Bundle) failed.
    #[error(transparent)]
    Install(#[from] InstallError),
    /// An attached file was refused.
    #[error(transparent)]
    Upload(#[from] UploadError),
    /// A knowledge-base operation failed.
    #[error(transparent)]
    Knowledge(#[from] KnowledgeError),
    /// A backup or a restore failed.
    #[error(transparent)]
    Backup(#[from] BackupError),
    /// Fetching or installing a runtime failed.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// Sync between machines failed or was refused.
    #[error(transparent)]
    Sync(#[from] SyncError),
}

impl EngineError {
    /// The kind of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Store(e) => store_kind(e),
            Self::Paths(_) | Self::Logging(_) => ErrorKind::Io,
            Self::Provider(e) => provider_kind(e),
            Self::Secret(_) => ErrorKind::Secrets,
            Self::ServerConfig(_) => ErrorKind::InvalidInput,
            Self::Tool(e) => tool_kind(e),
            Self::Interaction(InteractionError::Unknown { .. }) => ErrorKind::NotFound,
            Self::Interaction(
                InteractionError::WrongAnswer { .. }
                | InteractionError::NoSamplingModel
                | InteractionError::BadSetting { .. }
                | InteractionError::Invalid { .. },
            ) => ErrorKind::InvalidInput,
            Self::Agent(_) => ErrorKind::InvalidInput,
            Self::Export(e) => export_kind(e),
            Self::App(e) => app_kind(e),
            Self::Install(e) => install_kind(e),
            Self::Upload(UploadError::MissingImage { .. }) => ErrorKind::NotFound,
            Self::Upload(UploadError::Unreadable { .. }) => ErrorKind::Io,
            Self::Upload(_) => ErrorKind::InvalidInput,
            Self::Knowledge(KnowledgeError::Store(e)) => store_kind(e),
            Self::Knowledge(KnowledgeError::NoSuchBase(_)) => ErrorKind::NotFound,
            Self::Knowledge(KnowledgeError::BadSource { .. } | KnowledgeError::Embedder(_)) => {
                ErrorKind::InvalidInput
            }
            Self::Knowledge(KnowledgeError::Internal(_)) => ErrorKind::Internal,
            Self::Backup(BackupError::Store(e)) => store_kind(e),
            Self::Backup(BackupError::Io { .. }) => ErrorKind::Io,
            Self::Backup(BackupError::Unknown { .. }) => ErrorKind::NotFound,
            Self::Runtime(RuntimeError::Store(e)) => store_kind(e),
            Self::Runtime(RuntimeError::Io { .. }) => ErrorKind::Io,
            Self::Runtime(RuntimeError::Unpack { .. } | RuntimeError::Hash { .. }) => {
                ErrorKind::InvalidInput
            }
            Self::Runtime(_) => ErrorKind::Io,
            Self::Sync(e) => sync_kind(e),
        }
    }
}

fn sync_kind(e: &SyncError) -> ErrorKind {
    match e {
        SyncError::Store(e) => store_kind(e),
        SyncError::Secret(_) => ErrorKind::Secrets,
        SyncError::Unreachable { .. }
        | SyncError::Timeout { .. }
        | SyncError::Status { .. }
        | SyncError::Folder { .. } => ErrorKind::Io,
        SyncError::NotSetUp
        | SyncError::Busy
        | SyncError::Invalid(_)
        | SyncError::NewerFormat { .. }
        | SyncError::Foreign { .. }
        | SyncError::PassphraseNeeded
        | SyncError::WrongPassphrase
        | SyncError::NotEncrypted => ErrorKind::InvalidInput,
    }
}

fn provider_kind(e: &ProviderError) -> ErrorKind {
    match e {
        ProviderError::Auth { .. } => ErrorKind::ProviderAuth,
        ProviderError::ModelNotFound { .. } => ErrorKind::ModelNotFound,
        ProviderError::RateLimited { .. } => ErrorKind::RateLimited,
        ProviderError::ContextLengthExceeded { .. } => ErrorKind::ContextLengthExceeded,
        ProviderError::ToolsUnsupported { .. } => ErrorKind::ToolsUnsupported,
        ProviderError::BadRequest { .. } => ErrorKind::ProviderRejected,
        ProviderError::Config(_) => ErrorKind::InvalidInput,
        ProviderError::Server { .. }
        | ProviderError::Network(_)
        | ProviderError::Timeout(_)
        | ProviderError::MalformedStream(_)
        | ProviderError::Local(_) => ErrorKind::ProviderUnavailable,
    }
}

fn export_kind(e: &ExportError) -> ErrorKind {
    match e {
        ExportError::Store(e) => store_kind(e),
        ExportError::Io { .. } => ErrorKind::Io,
        ExportError::Parse { .. }
        | ExportError::Format(_)
        | ExportError::Invalid(_)
        | ExportError::TooLarge { .. } => ErrorKind::InvalidInput,
    }
}

fn app_kind(e: &AppError) -> ErrorKind {
    match e {
        AppError::UnknownView { .. } => ErrorKind::NotFound,
        AppError::NotAnApp { .. }
        | AppError::TooLarge { .. }
        | AppError::HiddenFromApps { .. }
        | AppError::Denied { .. } => ErrorKind::InvalidInput,
    }
}

fn install_kind(e: &InstallError) -> ErrorKind {
    match e {
        InstallError::Unreachable { .. }
        | InstallError::Timeout { .. }
        | InstallError::TooLarge { .. }
        | InstallError::Io(_) => ErrorKind::Io,
        InstallError::Malformed { .. }
        | InstallError::Plan(_)
        | InstallError::Link(_)
        | InstallError::NotAsShown(_)
        | InstallError::RuntimeMissing { .. }
        | InstallError::Bundle { .. } => ErrorKind::InvalidInput,
    }
}

fn store_kind(e: &StoreError) -> ErrorKind {
    match e {
        StoreError::NotFound { .. } => ErrorKind::NotFound,
        StoreError::Invalid(_) | StoreError::SyncRecord(_) => ErrorKind::InvalidInput,
        StoreError::Corrupt { .. } => ErrorKind::CorruptDatabase,
        StoreError::Locked { .. } => ErrorKind::DatabaseLocked,
        StoreError::NewerSchema { .. } => ErrorKind::NewerSchema,
        StoreError::Open { .. } | StoreError::Backup { .. } | StoreError::Snapshot { .. } => {
            ErrorKind::Io
        }
        StoreError::Migration { .. } | StoreError::Database(_) => ErrorKind::Internal,
    }
}

fn tool_kind(e: &ToolError) -> ErrorKind {
    match e {
        ToolError::UnknownServer { .. } | ToolError::UnknownTool { .. } => ErrorKind::NotFound,
        ToolError::InvalidArguments { .. } => ErrorKind::InvalidInput,
        ToolError::NotReady { .. }
        | ToolError::BadSchema { .. }
        | ToolError::StartFailed { .. }
        | ToolError::Mcp(_) => ErrorKind::Internal,
    }
}
