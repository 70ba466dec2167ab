//! Signed updates through Tauri's updater (`tauri-plugin-updater`): reading the update feed
//! (a `latest.json` manifest), checking at start and daily when the user keeps that on,
//! downloading with progress and installing only what carries a valid signature of the
//! release key (`plugins.updater.pubkey` in `tauri.conf.json`) for the very version announced.
//! A feed offering no newer version, a bad signature, a download cut short, a feed that does
//! not answer and a malformed manifest each end with a sentence saying so, and nothing
//! installed. The database is backed up before the new version migrates it (the store does
//! that at its first start).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use switchboard_engine::Engine;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_updater::{Error as UpdaterError, Update, UpdaterExt};
use ts_rs::TS;

/// The settings key holding [`UpdateSettings`].
const SETTINGS_KEY: &str = "updates";

/// How long the feed and the download may take to answer before the attempt is given up.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// What the user chose for updates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct UpdateSettings {
    /// Check at start and once a day.
    pub automatic: bool,
}

impl Default for UpdateSettings {
    fn default() -> Self {
        Self { automatic: true }
    }
}

/// A newer version the feed offers.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AvailableUpdate {
    /// Its version.
    pub version: String,
    /// Its release notes (plain text or Markdown, shown as text).
    pub notes: Option<String>,
    /// When it was published (RFC 3339), if said.
    pub date: Option<String>,
}

/// What a check found.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum CheckOutcome {
    /// A newer version is there.
    Available {
        /// Which.
        update: AvailableUpdate,
    },
    /// This is the newest version; `offered` is what the feed offered (older or the same).
    UpToDate {
        /// This version.
        current: String,
        /// The feed's version, when it named one.
        offered: Option<String>,
    },
}

/// A step of an install, sent to the window as it happens.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum UpdateProgress {
    /// Bytes received so far, of `total` when the server said.
    Downloading {
        /// Received so far.
        received: u64,
        /// The whole download, when known.
        total: Option<u64>,
    },
    /// Downloaded and its signature verified; being installed.
    Installing,
    /// Installed: the new version runs after a restart.
    Installed {
        /// The version installed.
        version: String,
    },
}

/// Updates' state in the running app: the settings and the update a check found.
#[derive(Default)]
pub struct Updates {
    found: tokio::sync::Mutex<Option<Update>>,
    settings: Mutex<UpdateSettings>,
}

/// Why a check or an install did not happen.
#[derive(Debug, thiserror::Error)]
pub enum UpdateFailure {
    /// This build was made without an update feed.
    #[error(
        "this build has no update feed (plugins.updater.endpoints in tauri.conf.json is empty), so it cannot look for updates"
    )]
    NoFeed,
    /// The feed or the download did not answer in time.
    #[error("the update server did not answer within {0} s; nothing was installed")]
    TimedOut(u64),
    /// The feed or the download could not be reached or broke off.
    #[error("the update could not be fetched ({0}); nothing was installed")]
    Network(String),
    /// The feed's answer is not an update manifest.
    #[error("the update feed's answer is not a valid update manifest ({0}); nothing was installed")]
    Manifest(String),
    /// The download is not signed by Switchboard's release key for the version announced.
    #[error(
        "the download's signature does not match Switchboard's release key ({0}); it was not installed and this version is unchanged"
    )]
    Signature(String),
    /// Check first.
    #[error("no update was found to install; check for updates first")]
    NothingFound,
    /// The install itself failed; the running version was left in place.
    #[error("the update could not be installed ({0}); this version is unchanged")]
    Install(String),
    /// The app runs without the updater (the terminal commands' tests).
    #[error("this process runs without the updater")]
    Unavailable,
}

impl UpdateFailure {
    /// A check's failure: an answer that does not decode is a manifest that is not one.
    fn of_check(error: UpdaterError, timeout: Duration) -> Self {
        match error {
            UpdaterError::Reqwest(e) if e.is_decode() => Self::Manifest(e.to_string()),
            other => Self::of(other, timeout),
        }
    }

    fn of(error: UpdaterError, timeout: Duration) -> Self {
        match error {
            UpdaterError::EmptyEndpoints => Self::NoFeed,
            UpdaterError::Reqwest(e) if e.is_timeout() => Self::TimedOut(timeout.as_secs()),
            UpdaterError::Reqwest(e) if e.is_decode() || e.is_body() => {
                Self::Network(format!("the download broke off: {e}"))
            }
            UpdaterError::Reqwest(e) => Self::Network(e.to_string()),
            UpdaterError::Network(e) => Self::Network(e),
            e @ (UpdaterError::ReleaseNotFound
            | UpdaterError::Serialization(_)
            | UpdaterError::Semver(_)
            | UpdaterError::UrlParse(_)
            | UpdaterError::TargetNotFound(_)
            | UpdaterError::TargetsNotFound(_)) => Self::Manifest(e.to_string()),
            e @ (UpdaterError::Minisign(_)
            | UpdaterError::Base64(_)
            | UpdaterError::SignatureUtf8(_)
            | UpdaterError::SignedVersionMismatch { .. }
            | UpdaterError::MissingSignedVersion) => Self::Signature(e.to_string()),
            e => Self::Install(e.to_string()),
        }
    }
}

impl Updates {
    /// The settings in effect.
    pub fn settings(&self) -> UpdateSettings {
        self.settings.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

/// Reads the stored settings into the app's [`Updates`].
pub async fn load<R: Runtime>(app: &AppHandle<R>, engine: &Engine) {
    let stored = engine.store().setting(SETTINGS_KEY).await.ok().flatten();
    let settings = stored
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    if let Some(updates) = app.try_state::<Updates>()
        && let Ok(mut held) = updates.settings.lock()
    {
        *held = settings;
    }
}

/// Stores and applies the settings.
pub async fn change<R: Runtime>(
    app: &AppHandle<R>,
    engine: &Engine,
    settings: UpdateSettings,
) -> Result<UpdateSettings, String> {
    let value = serde_json::to_value(&settings).map_err(|e| e.to_string())?;
    (engine.store().set_setting(SETTINGS_KEY, &value).await).map_err(|e| e.to_string())?;
    if let Some(updates) = app.try_state::<Updates>()
        && let Ok(mut held) = updates.settings.lock()
    {
        *held = settings.clone();
    }
    Ok(settings)
}

/// Asks the feed for a newer version, within `timeout`; what it offers is kept for
/// [`install`], which will replace `executable` (by default the running AppImage, or the
/// installed package).
pub async fn check<R: Runtime>(
    app: &AppHandle<R>,
    timeout: Duration,
    executable: Option<&std::path::Path>,
) -> Result<CheckOutcome, UpdateFailure> {
    let updates = app
        .try_state::<Updates>()
        .ok_or(UpdateFailure::Unavailable)?;
    let offered = Arc::new(Mutex::new(None::<String>));
    let seen = offered.clone();
    let mut builder = app.updater_builder();
    if let Some(executable) = executable {
        builder = builder.executable_path(executable);
    }
    let updater = builder
        .timeout(timeout)
        .version_comparator(move |current, remote| {
            if let Ok(mut seen) = seen.lock() {
                *seen = Some(remote.version.to_string());
            }
            remote.version > current
        })
        .build()
        .map_err(|e| UpdateFailure::of_check(e, timeout))?;
    let found = (updater.check().await).map_err(|e| UpdateFailure::of_check(e, timeout))?;
    let outcome = match &found {
        Some(update) => CheckOutcome::Available {
            update: AvailableUpdate {
                version: update.version.clone(),
                notes: update.body.clone(),
                date: update.date.map(|d| d.to_string()),
            },
        },
        None => CheckOutcome::UpToDate {
            current: app.package_info().version.to_string(),
            offered: offered.lock().ok().and_then(|o| o.clone()),
        },
    };
    *updates.found.lock().await = found;
    Ok(outcome)
}

/// Downloads the update the last check found, verifies its signature and installs it over
/// the running app (an AppImage is replaced; a `.deb` goes through `dpkg`). `progress` hears
/// each step. The new version runs after a restart.
pub async fn install<R: Runtime>(
    app: &AppHandle<R>,
    timeout: Duration,
    progress: impl Fn(UpdateProgress) + Send,
) -> Result<String, UpdateFailure> {
    let updates = app
        .try_state::<Updates>()
        .ok_or(UpdateFailure::Unavailable)?;
    let found = updates.found.lock().await.clone();
    let update = found.ok_or(UpdateFailure::NothingFound)?;
    let mut received = 0u64;
    let bytes = update
        .download(
            |chunk, total| {
                received += chunk as u64;
                progress(UpdateProgress::Downloading { received, total });
            },
            || {},
        )
        .await
        .map_err(|e| UpdateFailure::of(e, timeout))?;
    progress(UpdateProgress::Installing);
    let installing = update.clone();
    tokio::task::spawn_blocking(move || installing.install(bytes))
        .await
        .map_err(|e| UpdateFailure::Install(e.to_string()))?
        .map_err(|e| UpdateFailure::of(e, timeout))?;
    progress(UpdateProgress::Installed {
        version: update.version.clone(),
    });
    *updates.found.lock().await = None;
    Ok(update.version)
}

/// Checks at start and then once a day while the user keeps automatic checks on; a newer
/// version is announced to the window. Never in a development build (the test suites run
/// those) or under CI, unless `SWITCHBOARD_UPDATE_CHECK=1` asks for it.
pub fn schedule<R: Runtime>(app: &AppHandle<R>) {
    let asked = std::env::var("SWITCHBOARD_UPDATE_CHECK").is_ok_and(|v| v == "1");
    let quiet = cfg!(debug_assertions) || std::env::var_os("CI").is_some();
    if quiet && !asked {
        return;
    }
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        loop {
            let automatic = app
                .try_state::<Updates>()
                .is_some_and(|u| u.settings().automatic);
            if automatic {
                announce(&app).await;
            }
            tokio::time::sleep(Duration::from_secs(24 * 60 * 60)).await;
        }
    });
}

/// The event announcing a newer version (payload: [`AvailableUpdate`]).
pub const AVAILABLE_EVENT: &str = "update:available";

async fn announce<R: Runtime>(app: &AppHandle<R>) {
    use tauri::Emitter;
    match check(app, TIMEOUT, None).await {
        Ok(CheckOutcome::Available { update }) => {
            tracing::info!(version = %update.version, "a newer version is available");
            let _ = app.emit(AVAILABLE_EVENT, update);
        }
        Ok(CheckOutcome::UpToDate { .. }) => {}
        Err(error) => tracing::info!(%error, "the update check did not finish"),
    }
}
