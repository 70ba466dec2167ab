//! Switchboard's engine: everything but the window; this crate has no Tauri dependency. The
//! shell (Tauri) and the CLI open an [`Engine`], which builds the parts and hands them out:
//! [`Engine::store`], [`Engine::providers`], [`Engine::mcp`], [`Engine::agent`] and
//! [`Engine::knowledge`]. The parts and
//! the direction of their dependencies are in `docs/architecture.md`; `vocab` holds the types
//! they share.

pub mod agent;
pub mod backups;
mod engine_knowledge;
pub mod error;
pub mod export;
pub mod knowledge;
#[cfg(feature = "local")]
pub mod local;
pub mod local_ollama;
pub mod logging;
pub mod mcp;
pub mod netguard;
mod openai_api;
pub mod paths;
pub mod profile_lock;
pub mod provider;
pub mod providers;
pub mod runtimes;
pub mod secrets;
pub mod store;
pub mod sync;
pub mod vocab;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use engine_knowledge::server_name as knowledge_server_name;
pub use error::{EngineError, ErrorKind};
pub use logging::Redactor;
pub use paths::Paths;
pub use secrets::Secrets;
pub use store::Store;

/// Switchboard's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Facts about the running app, for the About panel and bug reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    /// Switchboard's version.
    pub version: String,
    /// The data directory.
    pub data_dir: String,
    /// The log directory.
    pub log_dir: String,
    /// The database file.
    pub database: String,
    /// The database's schema version.
    pub schema_version: i64,
}

/// The engine of one profile: its directories, and the parts it builds and wires together —
/// the store, the providers, the MCP host and the agent. It holds no behaviour of its own
/// beyond opening, shutting down and describing the profile: callers use the parts.
#[derive(Clone, Debug)]
pub struct Engine {
    paths: Paths,
    store: Store,
    redactor: Redactor,
    secrets: Secrets,
    providers: providers::Providers,
    mcp: mcp::McpHost,
    installer: mcp::Installer,
    agent: agent::Agent,
    knowledge: knowledge::Knowledge,
    local_server: mcp::LocalServer,
    backups: backups::Backups,
    runtimes: runtimes::Runtimes,
    sync: sync::Syncer,
    /// Stops the backup and sync schedules ([`Engine::start_backup_schedule`]) at shutdown.
    stop_backups: tokio_util::sync::CancellationToken,
    /// What a restore scheduled for this start did: the backup restored, or why it was not.
    restored: Option<Result<backups::BackupInfo, String>>,
    /// The profile's lock, when this engine owns the profile's crash recovery (see
    /// [`profile_lock`]).
    owner: Option<std::sync::Arc<profile_lock::ProfileLock>>,
}

impl Engine {
    /// Creates the profile's directories, opens (and migrates) its database, builds the parts,
    /// and — when no other process has the profile open (see [`profile_lock`]) — marks any
    /// message a previous crash left streaming as interrupted and resumes the MCP tasks it left
    /// running.
    pub async fn open(
        paths: Paths,
        redactor: Redactor,
        secrets: Secrets,
    ) -> Result<Self, EngineError> {
        Self::open_with(paths, redactor, secrets, None).await
    }

    /// [`Engine::open`] for an installed app whose packaged resources are in `resources`
    /// (where the built-in embedder ships: see [`knowledge::embedder::builtin_path`]).
    pub async fn open_with(
        paths: Paths,
        redactor: Redactor,
        secrets: Secrets,
        resources: Option<PathBuf>,
    ) -> Result<Self, EngineError> {
        paths.ensure()?;
        let owner = owner_lock(&paths);
        let backups = backups::Backups::new(&paths);
        let runtimes = runtimes::Runtimes::new(paths.runtimes_dir());
        mcp::set_runtimes_dir(paths.runtimes_dir());
        let restored = match &owner {
            Some(lock) if lock.is_held() => restore_pending(&backups).await,
            _ => None,
        };
        let store = Store::open(&paths.database()).await?;
        if owner.is_some() {
            let interrupted = store.mark_interrupted().await?;
            if interrupted > 0 {
                tracing::warn!(interrupted, "marked messages left streaming by a crash");
            }
        }
        tracing::info!(data_dir = %paths.data_dir.display(), "engine opened");
        match runtimes::servers_env(&store).await {
            Ok(env) => mcp::set_servers_env(env),
            Err(error) => {
                tracing::warn!(%error, "cannot read the servers' mirror and proxy settings")
            }
        }
        let providers = providers::Providers::new(store.clone(), secrets.clone());
        #[cfg(feature = "local")]
        let providers = providers.with_models_dir(paths.models_dir());
        let mcp = mcp::McpHost::new(store.clone(), secrets.clone(), redactor.clone())
            .with_bundles_dir(paths.bundles_dir());
        let installer = mcp::Installer::new(mcp.clone(), Some(paths.bundles_dir()));
        let agent = agent::Agent::new(store.clone(), mcp.clone(), providers.clone());
        mcp.set_sampler(std::sync::Arc::new(agent.clone()));
        let knowledge = knowledge::Knowledge::new(
            store.clone(),
            knowledge::embedder::builtin_path(&paths.models_dir(), resources.as_deref()),
        );
        knowledge.set_remote(std::sync::Arc::new(providers.clone()));
        mcp.set_knowledge(std::sync::Arc::new(knowledge.clone()));
        let api = openai_api::OpenAiApi::new(agent.clone(), knowledge.clone());
        let local_server = mcp::LocalServer::new(mcp.clone()).with_routes(api.router());
        mcp.load_settings().await?;
        if owner.is_some() {
            agent.resume_tasks().await?;
        }
        let sync = sync::Syncer::new(store.clone(), secrets.clone());
        Ok(Self {
            paths,
            store,
            redactor,
            secrets,
            providers,
            mcp,
            installer,
            agent,
            knowledge,
            local_server,
            backups,
            runtimes,
            sync,
            stop_backups: tokio_util::sync::CancellationToken::new(),
            restored,
            owner,
        })
    }

    /// The runtimes Switchboard brought for servers.
    pub fn runtimes(&self) -> &runtimes::Runtimes {
        &self.runtimes
    }

    /// Sets where servers' `uv`, `pip` and `npm` fetch packages from and through (`None`
    /// clears one; see [`runtimes::servers_env`]), for servers started from now on.
    pub async fn set_package_sources(
        &self,
        index: Option<&str>,
        npm_registry: Option<&str>,
        proxy: Option<&str>,
    ) -> Result<runtimes::RuntimesOverview, EngineError> {
        let sources = [
            (runtimes::INDEX_SETTING, index),
            (runtimes::NPM_REGISTRY_SETTING, npm_registry),
            (runtimes::PROXY_SETTING, proxy),
        ]
        .map(|(key, value)| (key, value.map(str::trim).filter(|v| !v.is_empty())));
        // All are checked before any is written.
        for url in sources.iter().filter_map(|(_, value)| *value) {
            let parsed = url::Url::parse(url).ok();
            if !parsed.is_some_and(|u| matches!(u.scheme(), "http" | "https")) {
                let errors = vec![format!("{url:?} is not an http(s) URL")];
                return Err(crate::vocab::error::ConfigError { errors }.into());
            }
        }
        for (key, value) in sources {
            let value = value.map_or(serde_json::Value::Null, |v| serde_json::json!(v));
            self.store.set_setting(key, &value).await?;
        }
        mcp::set_servers_env(runtimes::servers_env(&self.store).await?);
        Ok(runtimes::overview(&self.runtimes, &self.store).await?)
    }

    /// Sync between machines.
    pub fn sync(&self) -> &sync::Syncer {
        &self.sync
    }

    /// Starts syncing on the schedule the sync setup sets (see [`sync`]) until shutdown; for
    /// the app, not for short-lived CLI commands.
    pub fn start_sync_schedule(&self) {
        tokio::spawn(self.sync.clone().run_schedule(self.stop_backups.clone()));
    }

    /// The profile's database backups.
    pub fn backups(&self) -> &backups::Backups {
        &self.backups
    }

    /// What a restore scheduled for this start did: the backup restored, or why it was not
    /// (the database was then left as it was); `None` when none was scheduled.
    pub fn restored(&self) -> Option<&Result<backups::BackupInfo, String>> {
        self.restored.as_ref()
    }

    /// Settings → Backups: the backups, the schedule, and what a restore did at this start.
    pub async fn backups_overview(&self) -> Result<backups::BackupsOverview, EngineError> {
        let (every_hours, keep) = backups::schedule(&self.store).await?;
        let (restored, restore_failed) = match &self.restored {
            Some(Ok(backup)) => (Some(backup.name.clone()), None),
            Some(Err(why)) => (None, Some(why.clone())),
            None => (None, None),
        };
        Ok(backups::BackupsOverview {
            backups: self.backups.list()?,
            folder: self.backups.dir().display().to_string(),
            every_hours,
            keep: keep as u64,
            restored,
            restore_failed,
        })
    }

    /// Starts taking scheduled backups (see [`backups`]) until shutdown; for the app, not for
    /// short-lived CLI commands.
    pub fn start_backup_schedule(&self) {
        let run =
            (self.backups.clone()).run_schedule(self.store.clone(), self.stop_backups.clone());
        tokio::spawn(run);
    }

    /// Whether this engine owns the profile's crash recovery (no other process had it open).
    pub fn owns_profile(&self) -> bool {
        self.owner.is_some()
    }

    /// The store: conversations, messages, settings, configured servers and providers.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The configured model providers.
    pub fn providers(&self) -> &providers::Providers {
        &self.providers
    }

    /// The MCP host: configured and running servers, approval, Apps.
    pub fn mcp(&self) -> &mcp::McpHost {
        &self.mcp
    }

    /// The local MCP endpoint for other apps (Settings → Local server).
    pub fn local_server(&self) -> &mcp::LocalServer {
        &self.local_server
    }

    /// The OpenAI-compatible API's routes, served beside `/mcp` by the local server (and by
    /// `switchboard serve`).
    pub fn api_routes(&self) -> axum::Router {
        self.local_server.routes()
    }

    /// Installing servers: the MCP Registry, MCP Bundles, install links, updates.
    pub fn installer(&self) -> &mcp::Installer {
        &self.installer
    }

    /// The agent: turns, approvals, tasks, sampling.
    pub fn agent(&self) -> &agent::Agent {
        &self.agent
    }

    /// The knowledge bases: the user's folders indexed for search.
    pub fn knowledge(&self) -> &knowledge::Knowledge {
        &self.knowledge
    }

    /// The profile's directories.
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// API keys and tokens.
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// The secrets scrubbed from logs.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Facts about the running app.
    pub async fn info(&self) -> Result<AppInfo, EngineError> {
        Ok(AppInfo {
            version: VERSION.to_owned(),
            data_dir: self.paths.data_dir.display().to_string(),
            log_dir: self.paths.log_dir.display().to_string(),
            database: self.store.path().display().to_string(),
            schema_version: self.store.schema_version().await?,
        })
    }

    /// Stops every MCP server (in parallel) and closes the database cleanly; call at exit.
    pub async fn shutdown(&self) {
        self.stop_backups.cancel();
        self.local_server.stop().await;
        self.mcp.shutdown().await;
        self.store.close().await;
        tracing::info!("engine shut down");
    }
}

/// Applies a restore scheduled for this start (see [`backups`]); what it did, logged.
async fn restore_pending(
    backups: &backups::Backups,
) -> Option<Result<backups::BackupInfo, String>> {
    match backups.apply_pending().await {
        Ok(restored) => restored.map(Ok),
        Err(error) => {
            tracing::info!(%error, "the scheduled restore was not done; the database is as it was");
            Some(Err(error.to_string()))
        }
    }
}

/// The profile's lock if this process can take it. A filesystem without locks (an error) is
/// taken as owned, as before there was a lock: recovery runs.
fn owner_lock(paths: &Paths) -> Option<std::sync::Arc<profile_lock::ProfileLock>> {
    match profile_lock::ProfileLock::try_acquire(&paths.data_dir) {
        Ok(Some(lock)) => Some(std::sync::Arc::new(lock)),
        Ok(None) => {
            tracing::info!(
                "another Switchboard process has this profile open: its streaming messages and tasks are left to it"
            );
            None
        }
        Err(error) => {
            tracing::warn!(%error, "cannot lock the profile; recovering as its only user");
            Some(std::sync::Arc::new(profile_lock::ProfileLock::unlocked()))
        }
    }
}
