//! Backups of the profile's database: consistent snapshots (`VACUUM INTO`) in the profile's
//! `backups` folder, taken on demand or on a schedule (the `backups.everyHours` setting) and
//! pruned to the newest `backups.keep` scheduled ones. A restore is scheduled, not done in
//! place: the next time the profile is opened by its only process, the database of the moment
//! is itself kept as a backup, then the chosen one takes its place. Nothing is ever lost to a
//! restore, and a backup that is not an intact Switchboard database is refused before anything
//! is touched.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;

use crate::paths::Paths;
use crate::store::{Store, StoreError, check_file, now_ms, snapshot_file};

/// The setting for how often a scheduled backup is taken, in hours (0: never).
pub const EVERY_HOURS: &str = "backups.everyHours";
/// The setting for how many scheduled backups are kept.
pub const KEEP: &str = "backups.keep";
/// Hours between scheduled backups unless set.
pub const DEFAULT_EVERY_HOURS: u64 = 24;
/// Scheduled backups kept unless set.
pub const DEFAULT_KEEP: usize = 7;
/// The file that names the backup to restore at the next open.
const PENDING: &str = "restore.pending";
/// How often the schedule looks again (a changed setting takes effect within this).
const LOOK_EVERY: Duration = Duration::from_secs(15 * 60);

/// Why a backup was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum BackupReason {
    /// On the schedule (pruned to the newest [`KEEP`]).
    Scheduled,
    /// Asked for by the user (kept until removed).
    Manual,
    /// The database as it was just before a restore replaced it (kept until removed).
    BeforeRestore,
}

impl BackupReason {
    fn tag(self) -> &'static str {
        match self {
            Self::Scheduled => "scheduled",
            Self::Manual => "manual",
            Self::BeforeRestore => "before-restore",
        }
    }

    fn from_tag(tag: &str) -> Option<Self> {
        [Self::Scheduled, Self::Manual, Self::BeforeRestore]
            .into_iter()
            .find(|r| r.tag() == tag)
    }
}

/// One backup in the profile's `backups` folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BackupInfo {
    /// Its file name (what a restore names).
    pub name: String,
    /// When it was taken (ms since the epoch).
    #[ts(type = "number")]
    pub created_ms: i64,
    /// Why.
    pub reason: BackupReason,
    /// Its size in bytes.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Whether it is the one restored at the next start.
    pub pending_restore: bool,
}

/// Settings → Backups: the backups, the schedule, and what a restore did at this start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BackupsOverview {
    /// The backups, newest first.
    pub backups: Vec<BackupInfo>,
    /// The folder they are in.
    pub folder: String,
    /// Hours between scheduled backups (0: none).
    #[ts(type = "number")]
    pub every_hours: u64,
    /// Scheduled backups kept.
    #[ts(type = "number")]
    pub keep: u64,
    /// The backup restored at this start, if one was.
    pub restored: Option<String>,
    /// Why a restore scheduled for this start was not done (the database was left as it was).
    pub restore_failed: Option<String>,
}

/// What went wrong with a backup or a restore.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// The snapshot or the check of a backup failed in SQLite.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A file of the backups folder could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// No backup has that name.
    #[error("there is no backup named {name:?} (see the list of backups)")]
    Unknown {
        /// The name asked for.
        name: String,
    },
}

/// The backups of one profile.
#[derive(Clone, Debug)]
pub struct Backups {
    dir: PathBuf,
    database: PathBuf,
}

impl Backups {
    /// The backups of the profile at `paths`.
    pub fn new(paths: &Paths) -> Self {
        Self {
            dir: paths.data_dir.join("backups"),
            database: paths.database(),
        }
    }

    /// The folder the backups are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Takes a backup of `store` now. It appears under its name only once it is whole.
    pub async fn take(
        &self,
        store: &Store,
        reason: BackupReason,
    ) -> Result<BackupInfo, BackupError> {
        let (partial, done) = self.new_names(reason)?;
        let snapshot = store.snapshot(&partial).await;
        self.finish(snapshot, &partial, &done)
    }

    /// The backups, newest first.
    pub fn list(&self) -> Result<Vec<BackupInfo>, BackupError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(io("cannot read", &self.dir, source)),
        };
        let pending = self.pending();
        let mut found: Vec<BackupInfo> = entries
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let (created_ms, reason) = parse_name(&name)?;
                let bytes = entry.metadata().ok()?.len();
                let pending_restore = pending.as_deref() == Some(name.as_str());
                Some(BackupInfo {
                    name,
                    created_ms,
                    reason,
                    bytes,
                    pending_restore,
                })
            })
            .collect();
        found.sort_by(|a, b| (b.created_ms, &b.name).cmp(&(a.created_ms, &a.name)));
        Ok(found)
    }

    /// Removes the scheduled backups beyond the newest `keep` (never one about to be restored);
    /// how many went.
    pub fn prune(&self, keep: usize) -> Result<usize, BackupError> {
        let scheduled = self.list()?.into_iter();
        let scheduled = scheduled.filter(|b| b.reason == BackupReason::Scheduled);
        let mut removed = 0;
        for old in scheduled.skip(keep).filter(|b| !b.pending_restore) {
            let path = self.dir.join(&old.name);
            std::fs::remove_file(&path).map_err(|e| io("cannot remove", &path, e))?;
            removed += 1;
        }
        Ok(removed)
    }

    /// Removes the backup `name`.
    pub fn remove(&self, name: &str) -> Result<(), BackupError> {
        let path = self.find(name)?;
        if self.pending().as_deref() == Some(name) {
            self.cancel_restore()?;
        }
        std::fs::remove_file(&path).map_err(|e| io("cannot remove", &path, e))
    }

    /// Checks backup `name` and has it restored the next time the profile is opened (see the
    /// module's header); the backup.
    pub async fn schedule_restore(&self, name: &str) -> Result<BackupInfo, BackupError> {
        let path = self.find(name)?;
        check_file(&path).await?;
        let marker = self.dir.join(PENDING);
        std::fs::write(&marker, name).map_err(|e| io("cannot write", &marker, e))?;
        tracing::info!(backup = name, "a restore is scheduled for the next start");
        let listed = self.list()?.into_iter().find(|b| b.name == name);
        listed.ok_or_else(|| BackupError::Unknown {
            name: name.to_owned(),
        })
    }

    /// Forgets a scheduled restore.
    pub fn cancel_restore(&self) -> Result<(), BackupError> {
        let marker = self.dir.join(PENDING);
        match std::fs::remove_file(&marker) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(io("cannot remove", &marker, e))
            }
            _ => Ok(()),
        }
    }

    /// Applies a scheduled restore, before the store is opened (the caller holds the profile's
    /// lock): the database of the moment is kept as a backup, then the chosen backup takes its
    /// place. The backup restored, if any. A backup that fails its check is not restored and
    /// the schedule is forgotten (the error says why); the database is then left as it was.
    pub async fn apply_pending(&self) -> Result<Option<BackupInfo>, BackupError> {
        let Some(name) = self.pending() else {
            return Ok(None);
        };
        self.cancel_restore()?;
        let chosen = self.find(&name)?;
        check_file(&chosen).await?;
        if self.database.exists() {
            let (partial, done) = self.new_names(BackupReason::BeforeRestore)?;
            let kept = snapshot_file(&self.database, &partial).await;
            self.finish(kept, &partial, &done)?;
        }
        self.replace_database(&chosen)?;
        tracing::info!(backup = name, "the database was restored from a backup");
        let restored = self.list()?.into_iter().find(|b| b.name == name);
        Ok(restored)
    }

    /// Copies `backup` over the database (through a file beside it, renamed into place), and
    /// removes the old write-ahead log and its index.
    fn replace_database(&self, backup: &Path) -> Result<(), BackupError> {
        let incoming = self.database.with_extension("db.restoring");
        std::fs::copy(backup, &incoming).map_err(|e| io("cannot copy", backup, e))?;
        for suffix in ["-wal", "-shm"] {
            let side = PathBuf::from(format!("{}{suffix}", self.database.display()));
            match std::fs::remove_file(&side) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io("cannot remove", &side, e));
                }
                _ => {}
            }
        }
        std::fs::rename(&incoming, &self.database)
            .map_err(|e| io("cannot replace", &self.database, e))
    }

    /// The name the backup to restore has, if one is scheduled.
    fn pending(&self) -> Option<String> {
        let name = std::fs::read_to_string(self.dir.join(PENDING)).ok()?;
        Some(name.trim().to_owned()).filter(|n| !n.is_empty())
    }

    /// The path of backup `name`, which must be one of the list (no other file is reachable).
    fn find(&self, name: &str) -> Result<PathBuf, BackupError> {
        let listed = self.list()?.into_iter().any(|b| b.name == name);
        let plain = Path::new(name).file_name().is_some_and(|f| f == name);
        if listed && plain {
            Ok(self.dir.join(name))
        } else {
            Err(BackupError::Unknown {
                name: name.to_owned(),
            })
        }
    }

    /// A new backup's file while it is written and once it is whole.
    fn new_names(&self, reason: BackupReason) -> Result<(PathBuf, PathBuf), BackupError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| io("cannot create", &self.dir, e))?;
        let mut stamp = now_ms();
        loop {
            let name = format!("switchboard-{stamp}-{}.db", reason.tag());
            let done = self.dir.join(&name);
            let partial = self.dir.join(format!(".{name}.partial"));
            if !done.exists() && !partial.exists() {
                return Ok((partial, done));
            }
            stamp += 1;
        }
    }

    /// Renames a whole snapshot into place; removes a partial one.
    fn finish(
        &self,
        snapshot: Result<(), StoreError>,
        partial: &Path,
        done: &Path,
    ) -> Result<BackupInfo, BackupError> {
        if let Err(error) = snapshot {
            let _ = std::fs::remove_file(partial);
            return Err(error.into());
        }
        std::fs::rename(partial, done).map_err(|e| io("cannot rename", partial, e))?;
        // What the list would say of it, without reading the folder again.
        let name = done
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let bytes = std::fs::metadata(done)
            .map_err(|e| io("cannot read", done, e))?
            .len();
        let (created_ms, reason) = parse_name(name).ok_or_else(|| BackupError::Unknown {
            name: name.to_owned(),
        })?;
        Ok(BackupInfo {
            name: name.to_owned(),
            created_ms,
            reason,
            bytes,
            pending_restore: false,
        })
    }

    /// Takes a scheduled backup whenever the newest is older than the `backups.everyHours`
    /// setting, and prunes to `backups.keep`, until `stop` is cancelled.
    pub async fn run_schedule(self, store: Store, stop: CancellationToken) {
        loop {
            if let Err(error) = self.due(&store).await {
                tracing::warn!(%error, "the scheduled backup failed");
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(LOOK_EVERY) => {}
            }
        }
    }

    /// One look of the schedule: a backup if one is due, then the pruning.
    pub async fn due(&self, store: &Store) -> Result<Option<BackupInfo>, BackupError> {
        let (every_hours, keep) = schedule(store).await?;
        if every_hours == 0 {
            return Ok(None);
        }
        let newest = (self.list()?.into_iter())
            .find(|b| b.reason == BackupReason::Scheduled)
            .map(|b| b.created_ms);
        let every_ms = i64::try_from(every_hours.saturating_mul(3_600_000)).unwrap_or(i64::MAX);
        let taken = match newest {
            Some(at) if now_ms().saturating_sub(at) < every_ms => None,
            _ => Some(self.take(store, BackupReason::Scheduled).await?),
        };
        self.prune(keep)?;
        Ok(taken)
    }
}

/// The schedule's settings: hours between backups (0: none) and how many are kept (at least 1).
pub async fn schedule(store: &Store) -> Result<(u64, usize), StoreError> {
    let every = store
        .setting(EVERY_HOURS)
        .await?
        .as_ref()
        .and_then(Value::as_u64);
    let keep = store.setting(KEEP).await?.as_ref().and_then(Value::as_u64);
    let keep = keep.map_or(DEFAULT_KEEP, |k| usize::try_from(k).unwrap_or(usize::MAX));
    Ok((every.unwrap_or(DEFAULT_EVERY_HOURS), keep.max(1)))
}

/// The time and reason a backup's file name holds (`switchboard-<ms>-<reason>.db`).
fn parse_name(name: &str) -> Option<(i64, BackupReason)> {
    let rest = name.strip_prefix("switchboard-")?.strip_suffix(".db")?;
    let (stamp, tag) = rest.split_once('-')?;
    Some((stamp.parse().ok()?, BackupReason::from_tag(tag)?))
}

fn io(action: &'static str, path: &Path, source: std::io::Error) -> BackupError {
    BackupError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests;
