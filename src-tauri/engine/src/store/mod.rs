//! The SQLite store: opening the file (WAL, foreign keys, busy timeout), running the embedded
//! migrations after a backup, refusing corrupt or newer databases, and the typed repositories
//! for conversations, messages, assistants, projects, what the tool-use probe found of each
//! model, knowledge bases (their files, chunks, vectors and keyword index), and the log of
//! changes that sync between machines.
//!
//! Writes go through a one-connection pool so they never contend with each other inside the
//! process; reads use a separate read-only pool and run concurrently under WAL.

mod assistants;
#[cfg(test)]
mod assistants_tests;
mod blobs;
#[cfg(test)]
mod branch_tail_tests;
mod branches;
mod conversations;
mod dump;
mod error;
pub(crate) mod image;
mod import;
mod knowledge;
mod knowledge_index;
mod mcp_servers;
mod messages;
mod names;
mod page;
mod policy_cache;
mod probes;
mod projects;
#[cfg(test)]
mod projects_tests;
mod providers;
mod search;
#[cfg(test)]
mod search_cjk_tests;
#[cfg(test)]
mod search_tests;
mod serve_clients;
mod serve_grants;
mod settings;
mod snapshots;
mod sync_apply;
mod sync_blobs;
mod sync_conflicts;
mod sync_log;
mod sync_rows;
#[cfg(test)]
mod sync_tests;
mod tasks;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

pub use assistants::{Assistant, AssistantDraft, AssistantMerge, MAX_ASSISTANT_NAME};
pub use blobs::{BlobBytes, NewBlob};
pub use conversations::{Conversation, ConversationPatch, ListScope, NewConversation};
pub use error::StoreError;
pub use import::{ImportItem, ImportSession, MergeAction, MergeEntry, MergeReport};
pub use knowledge::{KnowledgeBase, MAX_BASE_NAME};
pub use knowledge_index::{
    ChunkHit, ChunkWrite, FileWrite, FilesPage, FilesQuery, KnowledgeFile, MAX_FILES_PAGE,
    StoredVectors,
};
pub use mcp_servers::ServerRecord;
pub use messages::{
    Message, MessageStatus, MessageUpdate, MessageWrite, NewMessage, Role, TokenUsage,
};
pub use page::{Page, PageRequest, now_ms};
pub use probes::{ModelProbe, ToolSupport};
pub use projects::{
    MAX_INSTRUCTIONS, MAX_PROJECT_NAME, Project, ProjectConversations, ProjectDraft, ProjectSummary,
};
pub use providers::{ProviderRecord, ProviderSettings};
pub use search::{SearchHit, Segment};
pub use serve_clients::{CallOutcome, MAX_CLIENT_NAME, ServeCall, ServeClient, token_digest};
pub use serve_grants::ServeGrant;
pub use snapshots::{check_file, snapshot_file};
pub use sync_apply::Applied;
pub use sync_conflicts::SyncConflict;
pub use sync_log::{PushedKey, SyncCursor, SyncPeer, SyncRecord};
pub use tasks::TaskRecord;

/// The migrations compiled into the binary.
static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// How long a statement waits for a lock held by another connection before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Read connections; writes always use one.
const READERS: u32 = 4;

/// A handle to the database. Cheap to clone; all clones share the pools.
#[derive(Clone, Debug)]
pub struct Store {
    writer: SqlitePool,
    reader: SqlitePool,
    path: PathBuf,
    /// What approvals read, kept while the database is unchanged.
    policy: std::sync::Arc<policy_cache::PolicyCache>,
}

impl Store {
    /// Opens (creating if missing) the database at `path` and brings its schema up to date.
    ///
    /// An existing database is backed up beside itself before any migration runs. A corrupt
    /// file or one from a newer schema is refused and left as it is.
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_with(path, BUSY_TIMEOUT).await
    }

    /// [`Store::open`] with a chosen busy timeout: how long a statement waits for a lock held
    /// by another process before failing with [`StoreError::Locked`].
    pub async fn open_with(path: &Path, busy_timeout: Duration) -> Result<Self, StoreError> {
        let existed = path.exists();
        let writer = connect(path, false, 1, busy_timeout).await?;
        let applied = check_schema(&writer, path).await?;
        if existed && applied < latest_version() {
            backup(&writer, path, applied).await?;
        }
        MIGRATOR
            .run(&writer)
            .await
            .map_err(|e| StoreError::Migration {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })?;
        let reader = connect(path, true, READERS, busy_timeout).await?;
        Ok(Self {
            writer,
            reader,
            path: path.to_path_buf(),
            policy: policy_cache::PolicyCache::new(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Copies the write-ahead log into the database file and truncates it, so content
    /// overwritten since (see `secure_delete`) is gone from the WAL file too.
    pub async fn checkpoint(&self) -> Result<(), StoreError> {
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// The newest schema version applied to this database.
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        let v: Option<i64> = sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
            .fetch_one(&self.reader)
            .await?;
        Ok(v.unwrap_or(0))
    }

    /// Waits for pending writes and closes every connection, checkpointing the WAL.
    pub async fn close(&self) {
        self.reader.close().await;
        self.writer.close().await;
    }

    /// Maps an error from this database's file to a typed one.
    fn classify(&self, err: sqlx::Error) -> StoreError {
        StoreError::classify(err, &self.path)
    }
}

/// The newest migration compiled into this build.
pub fn latest_version() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Opens a pool on `path` with our pragmas. The pool connects eagerly, so a corrupt or locked
/// file is reported here.
async fn connect(
    path: &Path,
    read_only: bool,
    max: u32,
    busy_timeout: Duration,
) -> Result<SqlitePool, StoreError> {
    let url = format!("sqlite://{}", path.display());
    let options = SqliteConnectOptions::from_str(&url)
        .map_err(|e| open_error(path, e))?
        .create_if_missing(!read_only)
        .read_only(read_only)
        .journal_mode(SqliteJournalMode::Wal)
        .foreign_keys(true)
        .busy_timeout(busy_timeout)
        .synchronous(sqlx::sqlite::SqliteSynchronous::Normal)
        // Deleted and overwritten content is zeroed, not left in free pages (a secret moved
        // out of the database does not linger in its file).
        .pragma("secure_delete", "on");
    // No ping before each use: a connection to a local file does not go stale the way a
    // network one does, and the ping was one more round trip to the connection's worker
    // thread for every statement (a turn makes some twenty).
    let pool = file_pool_options(max)
        .min_connections(1)
        .test_before_acquire(false)
        .connect_with(options)
        .await
        .map_err(|e| match StoreError::classify(e, path) {
            StoreError::Database(e) => open_error(path, e),
            other => other,
        })?;
    Ok(pool)
}

/// Pool options for a database file: at most `max` connections, never closed for idleness or
/// age. A local file's connection does not go stale, and with no idle timeout and no lifetime
/// sqlx runs no reaper task: its reaper could read a transiently wrapped idle count and spin a
/// worker thread forever, which hung a short CLI command at exit (sqlx issue 3645, fixed
/// upstream after 0.9.0).
pub(crate) fn file_pool_options(max: u32) -> SqlitePoolOptions {
    SqlitePoolOptions::new()
        .max_connections(max)
        .idle_timeout(None)
        .max_lifetime(None)
}

fn open_error(path: &Path, err: impl std::fmt::Display) -> StoreError {
    StoreError::Open {
        path: path.to_path_buf(),
        reason: err.to_string(),
    }
}

/// Reads the schema version of the file, proving it is a database, and refuses newer ones.
async fn check_schema(pool: &SqlitePool, path: &Path) -> Result<i64, StoreError> {
    let has_table: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
    )
    .fetch_one(pool)
    .await
    .map_err(|e| StoreError::classify(e, path))?;
    if has_table == 0 {
        return Ok(0);
    }
    let found: Option<i64> = sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
        .fetch_one(pool)
        .await
        .map_err(|e| StoreError::classify(e, path))?;
    let found = found.unwrap_or(0);
    let supported = latest_version();
    if found > supported {
        return Err(StoreError::NewerSchema {
            path: path.to_path_buf(),
            found,
            supported,
        });
    }
    Ok(found)
}

/// Copies a consistent snapshot of the database beside it before it is migrated.
async fn backup(pool: &SqlitePool, path: &Path, version: i64) -> Result<PathBuf, StoreError> {
    let stamp = page::now_ms();
    let target = PathBuf::from(format!("{}.v{version}-{stamp}.bak", path.display()));
    (snapshots::vacuum_into(pool, path, &target).await).map_err(|e| match e {
        StoreError::Snapshot { path, reason } => StoreError::Backup { path, reason },
        other => other,
    })?;
    tracing::info!(backup = %target.display(), "backed up the database before migrating it");
    Ok(target)
}
