//! `switchboard sync`: sync conversations, assistants, projects and settings with other
//! machines through a WebDAV server or a synced folder — set up, sync now, status, conflicts
//! (use the side that was set aside, or dismiss it), off. The WebDAV password and the
//! passphrase come from `SWITCHBOARD_SYNC_PASSWORD` and `SWITCHBOARD_SYNC_PASSPHRASE` (never
//! from the command line, where other users could read them) and are kept in the keychain.

use std::io::Write;

use clap::{Args, Subcommand};
use switchboard_engine::Engine;
use switchboard_engine::EngineError;
use switchboard_engine::sync::{
    PASSPHRASE_ENV, PASSWORD_ENV, SyncOverview, SyncReport, SyncSetup, SyncTarget,
};

use super::CliError;

/// `switchboard sync …`.
#[derive(Debug, Subcommand)]
pub enum SyncCmd {
    /// Set sync up on this machine and sync once.
    Setup(SetupArgs),
    /// Sync now.
    Now {
        /// Print what the sync did as JSON.
        #[arg(long)]
        json: bool,
    },
    /// How sync is set up, the other devices, changes waiting and conflicts.
    Status {
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The conflicts syncs resolved, with the values they set aside.
    Conflicts,
    /// Take back what a conflict set aside (it becomes a new edit, synced like any other).
    Use {
        /// The conflict's id, as `sync conflicts` shows it.
        id: String,
    },
    /// Forget a conflict.
    Dismiss {
        /// The conflict's id.
        id: String,
    },
    /// Stop syncing this machine (the data here and in the sync folder stay).
    Off,
}

/// `switchboard sync setup`.
#[derive(Debug, Args)]
pub struct SetupArgs {
    /// The URL of a folder on a WebDAV server.
    #[arg(long, conflicts_with = "folder", required_unless_present = "folder")]
    webdav: Option<String>,
    /// The WebDAV user name (the password comes from SWITCHBOARD_SYNC_PASSWORD).
    #[arg(long, requires = "webdav")]
    user: Option<String>,
    /// A folder another program syncs between machines.
    #[arg(long)]
    folder: Option<std::path::PathBuf>,
    /// Encrypt with the passphrase in SWITCHBOARD_SYNC_PASSPHRASE.
    #[arg(long)]
    encrypt: bool,
    /// Minutes between syncs while the app runs (0: only when asked).
    #[arg(long)]
    every_minutes: Option<u64>,
    /// Seconds a WebDAV request may take.
    #[arg(long)]
    timeout_secs: Option<u64>,
}

/// Runs one `sync` subcommand.
pub(super) async fn run(engine: &Engine, cmd: &SyncCmd) -> Result<(), CliError> {
    let sync = engine.sync();
    let mut out = std::io::stdout().lock();
    match cmd {
        SyncCmd::Setup(args) => {
            let report = sync
                .setup(setup_of(args)?)
                .await
                .map_err(EngineError::from)?;
            writeln!(out, "sync is set up; {}", said(&report))?;
        }
        SyncCmd::Now { json } => {
            let report = sync.sync_now().await.map_err(EngineError::from)?;
            if *json {
                serde_json::to_writer_pretty(&mut out, &report).map_err(std::io::Error::from)?;
                writeln!(out)?;
            } else {
                writeln!(out, "synced: {}", said(&report))?;
            }
        }
        SyncCmd::Status { json } => {
            let overview = sync.overview().await.map_err(EngineError::from)?;
            if *json {
                serde_json::to_writer_pretty(&mut out, &overview).map_err(std::io::Error::from)?;
                writeln!(out)?;
            } else {
                status(&mut out, &overview)?;
            }
        }
        SyncCmd::Conflicts => {
            let conflicts = engine
                .store()
                .sync_conflicts()
                .await
                .map_err(EngineError::from)?;
            if conflicts.is_empty() {
                writeln!(out, "no conflicts")?;
            }
            for c in conflicts {
                let what = if c.deleted {
                    "deleted on the other side; kept because it was edited".to_owned()
                } else {
                    format!("set aside: {}", c.other)
                };
                writeln!(out, "{}  {} {:?}: {what}", c.id, c.kind, c.label)?;
            }
        }
        SyncCmd::Use { id } => {
            engine
                .store()
                .use_sync_conflict(id)
                .await
                .map_err(EngineError::from)?;
            writeln!(
                out,
                "the values set aside are back; the next sync sends them"
            )?;
        }
        SyncCmd::Dismiss { id } => {
            engine
                .store()
                .dismiss_sync_conflict(id)
                .await
                .map_err(EngineError::from)?;
            writeln!(out, "conflict dismissed")?;
        }
        SyncCmd::Off => {
            sync.disconnect().await.map_err(EngineError::from)?;
            writeln!(
                out,
                "sync is off on this machine; the data here and in the sync folder stay"
            )?;
        }
    }
    Ok(())
}

fn setup_of(args: &SetupArgs) -> Result<SyncSetup, CliError> {
    let target = match (&args.webdav, &args.folder) {
        (Some(url), _) => SyncTarget::WebDav {
            url: url.clone(),
            user: args.user.clone(),
        },
        (None, Some(folder)) => SyncTarget::Folder {
            path: std::path::absolute(folder)
                .unwrap_or_else(|_| folder.clone())
                .display()
                .to_string(),
        },
        (None, None) => return Err(CliError::Usage("give --webdav URL or --folder PATH".into())),
    };
    let passphrase = std::env::var(PASSPHRASE_ENV).ok().filter(|p| !p.is_empty());
    if args.encrypt && passphrase.is_none() {
        return Err(CliError::Usage(format!(
            "--encrypt needs the passphrase in {PASSPHRASE_ENV}"
        )));
    }
    Ok(SyncSetup {
        target,
        password: std::env::var(PASSWORD_ENV).ok(),
        passphrase: passphrase.filter(|_| args.encrypt),
        every_minutes: args.every_minutes,
        timeout_secs: args.timeout_secs,
    })
}

fn said(r: &SyncReport) -> String {
    format!(
        "{} records in, {} out, {} conflicts ({} requests, {} bytes up, {} bytes down, {} ms)",
        r.pulled, r.pushed, r.conflicts, r.requests, r.bytes_up, r.bytes_down, r.millis
    )
}

fn status(out: &mut impl Write, o: &SyncOverview) -> std::io::Result<()> {
    let Some(settings) = &o.settings else {
        return writeln!(out, "sync is not set up (`switchboard sync setup`)");
    };
    let place = match &settings.target {
        SyncTarget::WebDav { url, .. } => format!("WebDAV {url}"),
        SyncTarget::Folder { path } => format!("folder {path}"),
    };
    let lock = if settings.encrypted {
        ", encrypted"
    } else {
        ""
    };
    writeln!(out, "syncing with {place}{lock}, as {:?}", o.device_name)?;
    let last = o.last_sync.map_or("never".to_owned(), |at| {
        jiff::Timestamp::from_millisecond(at).map_or(at.to_string(), |t| t.to_string())
    });
    writeln!(out, "last sync: {last}; {} changes waiting", o.pending)?;
    for peer in &o.peers {
        writeln!(
            out,
            "device {:?} ({}): {} batches applied",
            peer.name, peer.device, peer.applied
        )?;
    }
    writeln!(out, "{} conflicts", o.conflicts.len())
}
