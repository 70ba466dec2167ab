//! Consistent copies of a database file (`VACUUM INTO`): of the open store, of a file no pool
//! has open (the database of the moment before a restore replaces it), and the check that a
//! file is a Switchboard database this build can open (for a backup about to be restored).

use std::path::Path;
use std::time::Duration;

use sqlx::sqlite::SqliteConnectOptions;

use super::{StoreError, check_schema};

/// How long a copy waits for a lock held elsewhere.
const COPY_BUSY: Duration = Duration::from_secs(30);

impl super::Store {
    /// Writes a consistent snapshot of the database to `target` (which must not exist), while
    /// reads and writes go on.
    pub async fn snapshot(&self, target: &Path) -> Result<(), StoreError> {
        vacuum_into(&self.reader, &self.path, target).await
    }
}

/// Writes a consistent snapshot of the database file `source` (not open here) to `target`.
pub async fn snapshot_file(source: &Path, target: &Path) -> Result<(), StoreError> {
    let pool = plain(source, false).await?;
    let copied = vacuum_into(&pool, source, target).await;
    pool.close().await;
    copied
}

/// Checks that `path` is an intact Switchboard database this build can open (SQLite's quick
/// check, the schema table, a schema no newer than this build's); its schema version.
pub async fn check_file(path: &Path) -> Result<i64, StoreError> {
    let pool = plain(path, true).await?;
    let checked = check_open(&pool, path).await;
    pool.close().await;
    checked
}

/// One connection to the existing file `path`, its journal mode left as the file has it (a
/// read-only connection cannot change it).
async fn plain(path: &Path, read_only: bool) -> Result<sqlx::SqlitePool, StoreError> {
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(false)
        .read_only(read_only)
        .busy_timeout(COPY_BUSY);
    let pool = super::file_pool_options(1).connect_with(options);
    pool.await.map_err(|e| StoreError::classify(e, path))
}

async fn check_open(pool: &sqlx::SqlitePool, path: &Path) -> Result<i64, StoreError> {
    let verdict: String = sqlx::query_scalar("PRAGMA quick_check")
        .fetch_one(pool)
        .await
        .map_err(|e| StoreError::classify(e, path))?;
    if verdict != "ok" {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
        });
    }
    match check_schema(pool, path).await? {
        0 => Err(StoreError::Corrupt {
            path: path.to_path_buf(),
        }),
        version => Ok(version),
    }
}

/// `VACUUM INTO target` on `pool` (a pool on `source`).
pub(super) async fn vacuum_into(
    pool: &sqlx::SqlitePool,
    source: &Path,
    target: &Path,
) -> Result<(), StoreError> {
    sqlx::query("VACUUM INTO ?")
        .bind(target.display().to_string())
        .execute(pool)
        .await
        .map_err(|e| StoreError::Snapshot {
            path: source.to_path_buf(),
            reason: e.to_string(),
        })?;
    Ok(())
}
