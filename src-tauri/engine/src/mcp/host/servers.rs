//! The engine's MCP server configuration service: import an `mcpServers` document (with a
//! dry-run preview; existing servers are never overwritten unless asked), add, list, enable,
//! disable, remove and export servers. Env and header values go to the keychain
//! ([`super::server_secrets`]) and leave the engine masked; they are registered with the log
//! redactor whenever they pass through here.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::McpHost;
use super::server_secrets::masked;
use crate::EngineError;
use crate::mcp::host::config;
use crate::store::ServerRecord;
use crate::vocab::server::ServerConfig;
use crate::vocab::server::ServerSource;

/// Values shorter than this are not registered with the log redactor (an env value such as
/// `3000` or `true` is no secret, and scrubbing it would garble ordinary log lines).
const MIN_SECRET_CHARS: usize = 8;

/// What an import does with a server whose name is already configured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Conflict {
    /// Keep the existing server; report the name as skipped.
    #[default]
    Skip,
    /// Replace the existing server's configuration (its id stays; its tool policies and
    /// OAuth secrets are cleared: the new configuration is trusted anew).
    Replace,
}

/// The outcome of an import, by server name in document order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// New servers.
    pub added: Vec<String>,
    /// Names that already existed and were left as they were.
    pub skipped: Vec<String>,
    /// Names that already existed and were replaced (only with [`Conflict::Replace`]).
    pub replaced: Vec<String>,
}

/// What an import will do with one entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ImportAction {
    /// Add it.
    Add,
    /// Leave the existing server of that name.
    Skip,
    /// Replace the existing server of that name.
    Replace,
}

/// One entry of an import preview.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PreviewEntry {
    /// The server's name.
    pub name: String,
    /// What the import will do with it.
    pub action: ImportAction,
    /// Whether it will be enabled.
    pub enabled: bool,
    /// Its command line (env values masked) or URL and transport.
    pub command_line: String,
    /// Its security-relevant fields (approval, private addresses, folders, env and header
    /// names, …), each marked when it widens trust.
    pub trust: Vec<crate::mcp::host::preview_trust::TrustNote>,
}

/// What an import would do, without doing it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportPreview {
    /// The report the import would give.
    pub report: ImportReport,
    /// Each entry, in document order.
    pub entries: Vec<PreviewEntry>,
}

/// A parsed document matched against the configured servers.
struct Plan {
    preview: ImportPreview,
    added: Vec<ServerConfig>,
    replaced: Vec<(String, ServerConfig)>,
}

impl McpHost {
    /// What importing `json` would do; changes nothing.
    pub async fn preview_import(
        &self,
        json: &str,
        on_conflict: Conflict,
    ) -> Result<ImportPreview, EngineError> {
        Ok(self.plan_import(json, on_conflict).await?.preview)
    }

    /// Imports the servers of an `mcpServers` document, all or nothing. Names already
    /// configured are skipped, or replaced with [`Conflict::Replace`].
    pub async fn import_servers(
        &self,
        json: &str,
        on_conflict: Conflict,
    ) -> Result<ImportReport, EngineError> {
        let plan = self.plan_import(json, on_conflict).await?;
        let mut old = HashMap::new();
        for (id, _) in &plan.replaced {
            old.insert(id.clone(), self.store().find_server(id).await?.config);
        }
        let added = self
            .store()
            .import_servers(&plan.added, &plan.replaced)
            .await?;
        for (id, config) in &plan.replaced {
            if let Some(old) = old.get(id) {
                self.revoke_trust(id, old).await?;
            }
            self.server_secrets().seal(id, config).await?;
        }
        for (id, config) in added.iter().zip(&plan.added) {
            self.server_secrets().seal(id, config).await?;
        }
        let report = plan.preview.report;
        tracing::info!(
            added = report.added.len(),
            skipped = report.skipped.len(),
            replaced = report.replaced.len(),
            "imported MCP servers"
        );
        Ok(report)
    }

    /// Adds one server; its name must be new.
    pub async fn add_server(&self, config: ServerConfig) -> Result<ServerRecord, EngineError> {
        config.validate()?;
        let record = self.store().insert_server(&config).await?;
        if let Err(error) = self.server_secrets().seal(&record.id, &config).await {
            // Nothing half-saved: the server goes again, the form keeps what was typed.
            self.store().delete_server(&record.id).await?;
            return Err(error);
        }
        tracing::info!(server = %record.config.name, "added an MCP server");
        Ok(masked(record))
    }

    /// Replaces the configuration of the server with this id or name; it may be renamed (to a
    /// name not taken), and its id stays. An env or header value sent back masked keeps the
    /// stored value. Its tool policies stay unless its command, args,
    /// URL or transport changed (see [`super::trust`]). A running server keeps its old
    /// configuration until it is restarted ([`McpHost::follow_config`] restarts it).
    pub async fn update_server(
        &self,
        id_or_name: &str,
        config: ServerConfig,
    ) -> Result<ServerRecord, EngineError> {
        config.validate()?;
        let record = self.store().find_server(id_or_name).await?;
        let config = self
            .server_secrets()
            .with_kept_values(&record.id, config)
            .await?;
        self.server_secrets().seal(&record.id, &config).await?;
        let updated = self.store().update_server(&record.id, &config).await?;
        self.rebind_trust(&record.id, &record.config, &updated.config)
            .await?;
        tracing::info!(server = %updated.config.name, "updated an MCP server");
        Ok(masked(updated))
    }

    /// Every configured server, by name, its env and header values masked.
    pub async fn list_servers(&self) -> Result<Vec<ServerRecord>, EngineError> {
        let records = self.store().list_servers().await?;
        Ok(records.into_iter().map(masked).collect())
    }

    /// Turns the server with this id or name on or off.
    pub async fn set_server_enabled(
        &self,
        id_or_name: &str,
        enabled: bool,
    ) -> Result<ServerRecord, EngineError> {
        let record = self.store().find_server(id_or_name).await?;
        let updated = self.store().set_server_enabled(&record.id, enabled).await?;
        Ok(masked(updated))
    }

    /// Removes the server with this id or name (and, for a bundle, its unpacked folder); a
    /// running one is stopped first, so its tools are no longer offered.
    pub async fn remove_server(&self, id_or_name: &str) -> Result<(), EngineError> {
        let record = self.store().find_server(id_or_name).await?;
        self.store().delete_server(&record.id).await?;
        tracing::info!(server = %record.config.name, "removed an MCP server");
        self.follow_config(&[]).await;
        self.server_secrets()
            .forget_server_secrets(&record.id, &record.config)
            .await;
        self.server_secrets().unseal_forget(&record.id).await;
        self.clear_app_grants(&record.id).await?;
        self.remove_bundle_files(&record.config);
        Ok(())
    }

    /// Every server as an `mcpServers` document (pretty JSON). Env and header values are
    /// blank (their names kept) unless `with_secrets`, which the caller confirms with the user
    /// first: then they are written in clear, as the servers receive them.
    pub async fn export_servers(&self, with_secrets: bool) -> Result<String, EngineError> {
        let mut configs = Vec::new();
        for record in self.store().list_servers().await? {
            configs.push(match with_secrets {
                true => self.server_secrets().runnable(record).await?,
                false => record.config.without_secrets(),
            });
        }
        if with_secrets {
            tracing::info!(
                servers = configs.len(),
                "exported MCP servers with their secret values"
            );
        }
        Ok(config::export(&configs))
    }

    async fn plan_import(&self, json: &str, on_conflict: Conflict) -> Result<Plan, EngineError> {
        let configs = config::parse(json)?;
        self.guard_secrets(&configs);
        let existing: HashMap<String, String> = self
            .store()
            .list_servers()
            .await?
            .into_iter()
            .map(|r| (r.config.name, r.id))
            .collect();
        Ok(plan(configs, &existing, on_conflict))
    }

    /// Keeps the configs' env and header values out of the logs.
    pub(crate) fn guard_secrets(&self, configs: &[ServerConfig]) {
        let values = configs.iter().flat_map(ServerConfig::secret_values);
        let real = |v: &&str| *v != crate::vocab::server::SECRET_MASK;
        for v in values
            .filter(real)
            .filter(|v| v.chars().count() >= MIN_SECRET_CHARS)
        {
            self.redactor.add(v);
        }
    }

    /// Removes the folder of a bundle server's `config` (after the server itself is gone).
    fn remove_bundle_files(&self, config: &ServerConfig) {
        if let Some(ServerSource::Bundle { dir, .. }) = &config.source {
            self.remove_bundle_dir(dir);
        }
    }

    /// Removes `dir` and its then-empty parent, only when it is inside the bundles folder.
    pub(crate) fn remove_bundle_dir(&self, dir: &Path) {
        let Some(bundles) = &self.bundles_dir else {
            return;
        };
        let inside = (dir.canonicalize().ok())
            .zip(bundles.canonicalize().ok())
            .is_some_and(|(d, b)| d.starts_with(&b) && d != b);
        if !inside {
            tracing::warn!(dir = %dir.display(), "not removing a bundle folder outside the bundles folder");
            return;
        }
        if let Err(error) = std::fs::remove_dir_all(dir) {
            tracing::warn!(dir = %dir.display(), %error, "cannot remove a bundle's folder");
        }
        if let Some(parent) = dir.parent().filter(|p| *p != bundles.as_path()) {
            let _ = std::fs::remove_dir(parent);
        }
    }
}

/// Sorts parsed configs into added, skipped and replaced against `existing` (name → id).
fn plan(
    configs: Vec<ServerConfig>,
    existing: &HashMap<String, String>,
    on_conflict: Conflict,
) -> Plan {
    let mut p = Plan {
        preview: ImportPreview {
            report: ImportReport::default(),
            entries: Vec::new(),
        },
        added: Vec::new(),
        replaced: Vec::new(),
    };
    for config in configs {
        let name = config.name.clone();
        let report = &mut p.preview.report;
        let action = match (existing.get(&name), on_conflict) {
            (None, _) => ImportAction::Add,
            (Some(_), Conflict::Skip) => ImportAction::Skip,
            (Some(_), Conflict::Replace) => ImportAction::Replace,
        };
        p.preview.entries.push(PreviewEntry {
            name: name.clone(),
            action,
            enabled: config.enabled,
            command_line: config.command_line(),
            trust: crate::mcp::host::preview_trust::trust_notes(&config),
        });
        match (action, existing.get(&name)) {
            (ImportAction::Add, _) => {
                report.added.push(name);
                p.added.push(config);
            }
            (ImportAction::Replace, Some(id)) => {
                report.replaced.push(name);
                p.replaced.push((id.clone(), config));
            }
            (ImportAction::Skip | ImportAction::Replace, _) => report.skipped.push(name),
        }
    }
    p
}
