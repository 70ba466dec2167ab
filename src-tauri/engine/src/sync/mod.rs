//! Sync between machines through a WebDAV server or a synced folder: conversations, their
//! messages, assistants, projects and the settings that are not the machine's own move as
//! per-record changes (never secrets, never a whole-file overwrite), merged by id — the
//! store's `sync_log.rs` and `sync_apply.rs` own the rules. Optionally end-to-end encrypted
//! with a passphrase.
//!
//! [`Syncer`] owns the setup (the target in the setting `sync.target`, the WebDAV password
//! and the passphrase in the secret store), one sync at a time, and the schedule.

mod blobs;
mod error;
mod remote;
mod run;
mod seal;
mod webdav;

use std::sync::Arc;
use std::time::Duration;

use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;
use ts_rs::TS;

pub use error::SyncError;
pub use remote::{FolderRemote, Remote, Traffic};
pub use run::{BATCH_RECORDS, FORMAT_FILE, FORMAT_VERSION, SyncReport, open_folder, sync_once};
pub use seal::Seal;
pub use webdav::WebDavRemote;

use crate::secrets::{self, Secrets};
use crate::store::{Store, SyncConflict, SyncPeer};

/// The setting holding the sync target (this machine's own; it does not sync).
pub const TARGET_SETTING: &str = "sync.target";
/// The secret-store account of the WebDAV password.
pub const PASSWORD_ACCOUNT: &str = "sync.webdav";
/// The secret-store account of the passphrase.
pub const PASSPHRASE_ACCOUNT: &str = "sync.passphrase";
/// The environment variable that overrides the stored WebDAV password.
pub const PASSWORD_ENV: &str = "SWITCHBOARD_SYNC_PASSWORD";
/// The environment variable that overrides the stored passphrase.
pub const PASSPHRASE_ENV: &str = "SWITCHBOARD_SYNC_PASSPHRASE";
/// Minutes between scheduled syncs unless set.
pub const DEFAULT_EVERY_MINUTES: u64 = 15;
/// Seconds a WebDAV request may take unless set.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// Where the sync folder is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SyncTarget {
    /// A folder on a WebDAV server.
    #[serde(rename = "webdav")]
    WebDav {
        /// The folder's URL.
        url: String,
        /// The user name, when the server asks for one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<String>,
    },
    /// A folder on this machine that another program syncs.
    Folder {
        /// Its path.
        path: String,
    },
}

/// How sync is set up on this machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SyncSettings {
    /// Where.
    pub target: SyncTarget,
    /// Files are encrypted with a passphrase.
    pub encrypted: bool,
    /// Minutes between syncs while the app runs (0: only when asked).
    pub every_minutes: u64,
    /// Seconds a WebDAV request may take.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
}

fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_SECS
}

/// What the user enters to set sync up.
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SyncSetup {
    /// Where.
    pub target: SyncTarget,
    /// The WebDAV password (kept in the secret store).
    #[serde(default)]
    pub password: Option<String>,
    /// The passphrase that encrypts the files (kept in the secret store); none: not
    /// encrypted.
    #[serde(default)]
    pub passphrase: Option<String>,
    /// Minutes between syncs while the app runs.
    #[serde(default)]
    pub every_minutes: Option<u64>,
    /// Seconds a WebDAV request may take.
    #[serde(default)]
    pub timeout_secs: Option<u64>,
}

/// Settings → Sync.
#[derive(Clone, Debug, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SyncOverview {
    /// How sync is set up; none: it is not.
    pub settings: Option<SyncSettings>,
    /// This device's id.
    pub device: String,
    /// This device's name, as the others show it.
    pub device_name: String,
    /// When the last sync ended (Unix ms).
    pub last_sync: Option<i64>,
    /// Changes waiting to go out.
    pub pending: u64,
    /// What the last sync of this run did.
    pub last_report: Option<SyncReport>,
    /// Why the last sync of this run failed.
    pub last_error: Option<String>,
    /// The other devices seen.
    pub peers: Vec<SyncPeer>,
    /// Conflicts kept for the user.
    pub conflicts: Vec<SyncConflict>,
}

#[derive(Debug, Default)]
struct Last {
    report: Option<SyncReport>,
    error: Option<String>,
}

/// Sync of one profile.
#[derive(Clone, Debug)]
pub struct Syncer {
    store: Store,
    secrets: Secrets,
    running: Arc<tokio::sync::Mutex<()>>,
    last: Arc<std::sync::Mutex<Last>>,
    events: tokio::sync::broadcast::Sender<SyncReport>,
}

/// This machine's name as other devices show it.
fn device_name() -> String {
    std::env::var("SWITCHBOARD_DEVICE_NAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "this computer".into())
}

impl Syncer {
    /// Sync of the profile whose store is `store`.
    pub fn new(store: Store, secrets: Secrets) -> Self {
        Self {
            store,
            secrets,
            running: Arc::default(),
            last: Arc::default(),
            events: tokio::sync::broadcast::channel(16).0,
        }
    }

    /// Every finished sync's report (the window lists what a scheduled sync brought).
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<SyncReport> {
        self.events.subscribe()
    }

    /// How sync is set up, if it is.
    pub async fn settings(&self) -> Result<Option<SyncSettings>, SyncError> {
        let value = match self.store.setting(TARGET_SETTING).await? {
            None | Some(serde_json::Value::Null) => return Ok(None),
            Some(value) => value,
        };
        serde_json::from_value(value).map(Some).map_err(|e| {
            SyncError::Invalid(format!(
                "the sync setting is damaged ({e}); set sync up again"
            ))
        })
    }

    async fn secret(&self, account: &str, env: &str) -> Result<Option<SecretString>, SyncError> {
        let secrets = self.secrets.clone();
        let (account, env) = (account.to_owned(), env.to_owned());
        let found = secrets::blocking(move || secrets.key(&account, Some(&env))).await?;
        Ok(found.map(|(key, _)| key))
    }

    fn remote(
        settings: &SyncSettings,
        password: Option<SecretString>,
    ) -> Result<Box<dyn Remote>, SyncError> {
        Ok(match &settings.target {
            SyncTarget::WebDav { url, user } => Box::new(WebDavRemote::new(
                url,
                user.clone().filter(|u| !u.is_empty()),
                password,
                Duration::from_secs(settings.timeout_secs.max(1)),
            )?),
            SyncTarget::Folder { path } => {
                let path = path.trim();
                if path.is_empty() || !std::path::Path::new(path).is_absolute() {
                    return Err(SyncError::Invalid(format!(
                        "{path:?} is not a full path to a folder"
                    )));
                }
                Box::new(FolderRemote::new(path))
            }
        })
    }

    /// Sets sync up: checks the folder can be used with this passphrase (writing its format
    /// the first time), keeps the setup, then syncs once.
    pub async fn setup(&self, setup: SyncSetup) -> Result<SyncReport, SyncError> {
        let passphrase = setup
            .passphrase
            .filter(|p| !p.is_empty())
            .map(SecretString::from);
        let password = setup
            .password
            .filter(|p| !p.is_empty())
            .map(SecretString::from);
        let settings = SyncSettings {
            target: setup.target,
            encrypted: passphrase.is_some(),
            every_minutes: setup.every_minutes.unwrap_or(DEFAULT_EVERY_MINUTES),
            timeout_secs: setup.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS),
        };
        let remote = Self::remote(&settings, password.clone())?;
        {
            let _running = self.running.try_lock().map_err(|_| SyncError::Busy)?;
            open_folder(remote.as_ref(), passphrase.as_ref()).await?;
        }
        for (account, secret) in [
            (PASSWORD_ACCOUNT, password),
            (PASSPHRASE_ACCOUNT, passphrase),
        ] {
            let secrets = self.secrets.clone();
            match secret {
                Some(s) => secrets::blocking(move || secrets.set_key(account, &s)).await?,
                // Nothing to keep: an old one is forgotten, and a machine without a keychain
                // (a folder sync needs none) is not an error.
                None => {
                    let forgot = secrets::blocking(move || secrets.delete_key(account)).await;
                    if let Err(error) = forgot {
                        tracing::debug!(%error, account, "no sync secret to forget");
                    }
                }
            }
        }
        let value =
            serde_json::to_value(&settings).map_err(|e| SyncError::Invalid(e.to_string()))?;
        self.store.set_setting(TARGET_SETTING, &value).await?;
        self.sync_now().await
    }

    /// Syncs now (refused while another sync runs).
    pub async fn sync_now(&self) -> Result<SyncReport, SyncError> {
        let _running = self.running.try_lock().map_err(|_| SyncError::Busy)?;
        let result = self.sync_locked().await;
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        match &result {
            Ok(report) => {
                last.report = Some(report.clone());
                last.error = None;
                let _ = self.events.send(report.clone());
            }
            Err(e) => last.error = Some(e.to_string()),
        }
        result
    }

    async fn sync_locked(&self) -> Result<SyncReport, SyncError> {
        let settings = self.settings().await?.ok_or(SyncError::NotSetUp)?;
        let password = self.secret(PASSWORD_ACCOUNT, PASSWORD_ENV).await?;
        let passphrase = if settings.encrypted {
            Some(
                self.secret(PASSPHRASE_ACCOUNT, PASSPHRASE_ENV)
                    .await?
                    .ok_or(SyncError::PassphraseNeeded)?,
            )
        } else {
            None
        };
        let remote = Self::remote(&settings, password)?;
        let report = sync_once(
            &self.store,
            remote.as_ref(),
            passphrase.as_ref(),
            &device_name(),
        )
        .await?;
        tracing::info!(
            pulled = report.pulled,
            pushed = report.pushed,
            conflicts = report.conflicts,
            millis = report.millis,
            "sync finished"
        );
        Ok(report)
    }

    /// Settings → Sync.
    pub async fn overview(&self) -> Result<SyncOverview, SyncError> {
        let cursor = self.store.sync_cursor().await?;
        let (last_report, last_error) = {
            let last = self.last.lock().unwrap_or_else(|p| p.into_inner());
            (last.report.clone(), last.error.clone())
        };
        Ok(SyncOverview {
            settings: self.settings().await?,
            device: cursor.device,
            device_name: device_name(),
            last_sync: cursor.last_sync,
            pending: cursor.pending,
            last_report,
            last_error,
            peers: self.store.sync_peers().await?,
            conflicts: self.store.sync_conflicts().await?,
        })
    }

    /// Stops syncing this device: the setup, its secrets and the change log are forgotten;
    /// the data here and in the sync folder stay as they are.
    pub async fn disconnect(&self) -> Result<(), SyncError> {
        let _running = self.running.try_lock().map_err(|_| SyncError::Busy)?;
        self.store
            .set_setting(TARGET_SETTING, &serde_json::Value::Null)
            .await?;
        self.store.stop_sync_tracking().await?;
        for account in [PASSWORD_ACCOUNT, PASSPHRASE_ACCOUNT] {
            let secrets = self.secrets.clone();
            if let Err(error) = secrets::blocking(move || secrets.delete_key(account)).await {
                tracing::warn!(%error, account, "cannot forget a sync secret");
            }
        }
        Ok(())
    }

    /// Syncs every `every_minutes` (looked at each minute, so a changed setting takes effect
    /// within one) until `stop`; for the app, not for short-lived CLI commands.
    pub async fn run_schedule(self, stop: CancellationToken) {
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(Duration::from_secs(60)) => {}
            }
            let Ok(Some(settings)) = self.settings().await else {
                continue;
            };
            let last = self
                .store
                .sync_cursor()
                .await
                .ok()
                .and_then(|c| c.last_sync);
            let due = settings.every_minutes > 0
                && last.is_none_or(|at| {
                    crate::store::now_ms() - at >= (settings.every_minutes * 60_000) as i64
                });
            if due && let Err(error) = self.sync_now().await {
                tracing::warn!(%error, "scheduled sync failed");
            }
        }
    }
}
