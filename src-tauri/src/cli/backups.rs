//! `switchboard backups`: the database's backups — take one now, list them, have one restored
//! at the next start (the database of the moment is kept as a backup first), forget a scheduled
//! restore, remove one, and set the schedule.

use std::io::Write;

use clap::Subcommand;
use serde_json::json;
use switchboard_engine::Engine;
use switchboard_engine::backups::{self, BackupInfo, BackupReason};

use super::CliError;

/// `switchboard backups …`.
#[derive(Debug, Subcommand)]
pub enum BackupsCmd {
    /// Take a backup now.
    Now,
    /// List the backups, newest first.
    List,
    /// Restore a backup the next time Switchboard opens this profile (the app, or any
    /// command); the database of the moment is kept as a backup first.
    Restore {
        /// The backup's name, as `backups list` shows it.
        name: String,
    },
    /// Forget a scheduled restore.
    Cancel,
    /// Remove a backup.
    Remove {
        /// The backup's name.
        name: String,
    },
    /// Set how often a scheduled backup is taken and how many are kept.
    Schedule {
        /// Hours between backups (0: none).
        #[arg(long)]
        every_hours: Option<u64>,
        /// Scheduled backups kept (the oldest go first; manual ones are kept until removed).
        #[arg(long)]
        keep: Option<u64>,
    },
}

/// Runs one `backups` subcommand.
pub(super) async fn run(engine: &Engine, cmd: &BackupsCmd) -> Result<(), CliError> {
    let backups = engine.backups();
    let mut out = std::io::stdout().lock();
    match cmd {
        BackupsCmd::Now => {
            let taken = (backups.take(engine.store(), BackupReason::Manual).await)
                .map_err(switchboard_engine::EngineError::from)?;
            writeln!(
                out,
                "backed up to {}",
                backups.dir().join(&taken.name).display()
            )?;
        }
        BackupsCmd::List => {
            let listed = backups
                .list()
                .map_err(switchboard_engine::EngineError::from)?;
            if listed.is_empty() {
                writeln!(out, "no backups yet (in {})", backups.dir().display())?;
            }
            for backup in listed {
                writeln!(out, "{}", line(&backup))?;
            }
        }
        BackupsCmd::Restore { name } => {
            (backups.schedule_restore(name).await)
                .map_err(switchboard_engine::EngineError::from)?;
            writeln!(
                out,
                "{name} will be restored the next time Switchboard opens this profile; the \
                 database of the moment is kept as a backup first (`backups cancel` forgets this)"
            )?;
        }
        BackupsCmd::Cancel => {
            backups
                .cancel_restore()
                .map_err(switchboard_engine::EngineError::from)?;
            writeln!(out, "no restore is scheduled")?;
        }
        BackupsCmd::Remove { name } => {
            backups
                .remove(name)
                .map_err(switchboard_engine::EngineError::from)?;
            writeln!(out, "removed {name}")?;
        }
        BackupsCmd::Schedule { every_hours, keep } => {
            let store = engine.store();
            if let Some(hours) = every_hours {
                store
                    .set_setting(backups::EVERY_HOURS, &json!(hours))
                    .await?;
            }
            if let Some(keep) = keep {
                if *keep == 0 {
                    return Err(CliError::Usage("--keep must be at least 1".into()));
                }
                store.set_setting(backups::KEEP, &json!(keep)).await?;
            }
            let (hours, keep) = backups::schedule(store).await?;
            match hours {
                0 => writeln!(out, "no scheduled backups")?,
                h => writeln!(
                    out,
                    "a backup every {h} h while the app runs, the newest {keep} kept"
                )?,
            }
        }
    }
    Ok(())
}

/// One backup as a line: name, when, why, size, and whether it is restored at the next start.
fn line(backup: &BackupInfo) -> String {
    let when = jiff::Timestamp::from_millisecond(backup.created_ms)
        .map(|t| t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_default();
    let why = match backup.reason {
        BackupReason::Scheduled => "scheduled",
        BackupReason::Manual => "manual",
        BackupReason::BeforeRestore => "before a restore",
    };
    let kb = backup.bytes.div_ceil(1024);
    let pending = if backup.pending_restore {
        "  (restored at the next start)"
    } else {
        ""
    };
    format!("{}  {when}  {why}  {kb} KB{pending}", backup.name)
}
