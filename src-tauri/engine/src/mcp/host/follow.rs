//! The window's servers follow their configuration. After a server is added, imported, edited
//! or switched on or off, [`McpHost::follow_config`] brings what runs in line with what is
//! saved, without waiting for any server to be ready:
//!
//! - an enabled server that starts on its own (`autoStart`) and is not running begins to start
//!   (its state reads Starting when the call returns; Ready or Failed arrive as events);
//! - a running server whose saved configuration changed is stopped and started on the new one;
//! - a disabled server is stopped;
//! - a server running under a name no longer configured (removed, renamed) is stopped and
//!   forgotten.
//!
//! A failure is the server's Failed state, never the caller's error: saving a server never
//! fails because it does not start. The CLI's one-shot commands do not call this; the app's
//! IPC commands do (`src-tauri/src/commands/servers.rs`).

use super::McpHost;
use crate::store::ServerRecord;

impl McpHost {
    /// Brings the servers `ids_or_names` (and every server no longer configured) in line with
    /// their saved configuration, as the module says; returns once each has begun to start or
    /// has stopped. Unknown names are skipped.
    pub async fn follow_config(&self, ids_or_names: &[String]) {
        let _following = self.lifecycle.lock().await;
        let records = match self.store().list_servers().await {
            Ok(records) => records,
            Err(error) => {
                tracing::warn!(%error, "cannot read the configured servers to start them");
                return;
            }
        };
        self.stop_unconfigured(&records).await;
        let wanted =
            |r: &&ServerRecord| (ids_or_names.iter()).any(|w| *w == r.id || *w == r.config.name);
        for record in records.iter().filter(wanted) {
            self.follow_one(record.clone()).await;
        }
    }

    /// Stops and forgets every supervised server whose name no server is configured under.
    async fn stop_unconfigured(&self, records: &[ServerRecord]) {
        let supervisor = self.supervisor();
        for name in supervisor.known() {
            if !records.iter().any(|r| r.config.name == name) {
                if supervisor.stop(&name).await {
                    tracing::info!(server = %name, "stopped a server no longer configured");
                }
                supervisor.forget(&name);
            }
        }
    }

    /// Brings one configured server in line (the caller holds the lifecycle lock).
    async fn follow_one(&self, record: ServerRecord) {
        let supervisor = self.supervisor();
        let name = record.config.name.clone();
        if !record.config.enabled {
            if supervisor.stop(&name).await {
                tracing::info!(server = %name, "stopped a server switched off");
            }
            return;
        }
        let auto_start = record.config.auto_start;
        let config = match self.server_secrets().runnable(record).await {
            Ok(config) => config,
            Err(error) => {
                supervisor.stop(&name).await;
                supervisor.fail(&name, error.to_string());
                return;
            }
        };
        match supervisor.running_config(&name) {
            Some(running) if running == config => {}
            Some(_) => {
                tracing::info!(server = %name, "restarting a server on its new configuration");
                supervisor.stop(&name).await;
                drop(supervisor.launch(config));
            }
            None if auto_start => {
                tracing::info!(server = %name, "starting a server as it was saved");
                drop(supervisor.launch(config));
            }
            None => {}
        }
    }
}
