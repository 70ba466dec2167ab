//! Installing servers: from the MCP Registry (search with the last listing cached, an entry,
//! the plan shown before anything is saved, the runtime checked, the server saved, started
//! and its tools listed; an update shown as a change before it is applied) and from MCP
//! Bundles (preview, unpack into the profile's `bundles/`, configure) and from install links
//! (previewed, then saved once confirmed), all as the [`Installer`] service over the
//! [`McpHost`] (which saves, starts and removes servers; a bundle's folder goes when its server
//! is removed, in `host/servers.rs`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use ts_rs::TS;

use crate::EngineError;
use crate::mcp::host::McpHost;
use crate::mcp::host::server_secrets::masked;
use crate::mcp::install::bundle::{self, BundleInstall, BundlePreview};
use crate::mcp::install::digest;
use crate::mcp::install::link::{self, LinkPreview};
use crate::mcp::install::registry::client::{DEFAULT_TIMEOUT, RegistryClient};
use crate::mcp::install::registry::plan::{self, runtime_hint};
use crate::mcp::install::registry::{
    DEFAULT_REGISTRY, InstallPlan, InstallRequest, REGISTRY_TIMEOUT_SETTING, REGISTRY_URL_SETTING,
    RegistryEntry, RegistryPage, RuntimeCheck, UpdatePlan, install_options,
};
use crate::store::ServerRecord;
use crate::vocab::error::InstallError;
use crate::vocab::mcp::ToolInfo;
use crate::vocab::server::{ServerConfig, Transport};
use crate::vocab::server::{ServerSource, secrets_of};

/// Where the last registry listing is kept for offline browsing.
const CACHE_SETTING: &str = "mcp.registry_cache";

/// A server just installed or updated: saved, then started.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Installed {
    /// The configured server (values masked).
    pub record: ServerRecord,
    /// Its tools, when it started.
    pub tools: Vec<ToolInfo>,
    /// Why it did not start, when it did not (it stays configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub start_error: Option<String>,
}

/// Installs MCP servers from the registry, bundles and links, and updates them; built by the
/// engine over its [`McpHost`] (cheap to clone).
#[derive(Clone, Debug)]
pub struct Installer {
    host: McpHost,
    /// Where MCP Bundles are unpacked (none: bundles cannot be installed).
    bundles_dir: Option<PathBuf>,
}

impl Installer {
    /// An installer saving servers through `host`, unpacking bundles into `bundles_dir`.
    pub fn new(host: McpHost, bundles_dir: Option<PathBuf>) -> Self {
        Self { host, bundles_dir }
    }

    /// The registry URL: the setting, else the official registry.
    pub async fn registry_url(&self) -> Result<String, EngineError> {
        let set = self.host.store().setting(REGISTRY_URL_SETTING).await?;
        let url = set
            .as_ref()
            .and_then(|v| v.as_str())
            .filter(|s| !s.trim().is_empty());
        Ok(url.unwrap_or(DEFAULT_REGISTRY).to_owned())
    }

    /// Sets the registry URL (an organisation's own registry speaking the same API); empty
    /// goes back to the official one.
    pub async fn set_registry_url(&self, url: &str) -> Result<(), EngineError> {
        let url = url.trim();
        if !url.is_empty() {
            RegistryClient::new(url, DEFAULT_TIMEOUT)?;
        }
        let value = serde_json::Value::String(url.to_owned());
        Ok(self
            .host
            .store()
            .set_setting(REGISTRY_URL_SETTING, &value)
            .await?)
    }

    async fn registry_client(&self, registry: Option<&str>) -> Result<RegistryClient, EngineError> {
        let url = match registry {
            Some(url) => url.to_owned(),
            None => self.registry_url().await?,
        };
        let ms = self.host.store().setting(REGISTRY_TIMEOUT_SETTING).await?;
        let timeout = ms
            .and_then(|v| v.as_u64())
            .map_or(DEFAULT_TIMEOUT, Duration::from_millis);
        Ok(RegistryClient::new(&url, timeout)?)
    }

    /// A page of the registry's latest entries matching `query`, after `cursor`, from
    /// `registry` (none: the setting). A good answer becomes the cached listing; a failed one
    /// leaves it as it was.
    pub async fn registry_search(
        &self,
        query: &str,
        cursor: Option<&str>,
        registry: Option<&str>,
    ) -> Result<RegistryPage, EngineError> {
        let client = self.registry_client(registry).await?;
        let page = client.search(query, cursor).await?;
        let json = serde_json::to_value(&page).unwrap_or_default();
        self.host.store().set_setting(CACHE_SETTING, &json).await?;
        Ok(page)
    }

    /// The last listing fetched, for browsing offline (marked `cached`).
    pub async fn cached_registry_listing(&self) -> Result<Option<RegistryPage>, EngineError> {
        let value = self.host.store().setting(CACHE_SETTING).await?;
        let page = value.and_then(|v| serde_json::from_value::<RegistryPage>(v).ok());
        Ok(page.map(|p| RegistryPage { cached: true, ..p }))
    }

    /// Entry `name` at `version` (none: the latest) of `registry` (none: the setting).
    pub async fn registry_entry(
        &self,
        name: &str,
        version: Option<&str>,
        registry: Option<&str>,
    ) -> Result<RegistryEntry, EngineError> {
        Ok(self
            .registry_client(registry)
            .await?
            .entry(name, version)
            .await?)
    }

    /// What installing `entry` (from `registry`; none: the setting) as `request` asks will
    /// save and run, with its runtime looked for on the PATH; changes nothing.
    pub async fn plan_registry_install(
        &self,
        entry: &RegistryEntry,
        request: &InstallRequest,
        registry: Option<&str>,
    ) -> Result<InstallPlan, EngineError> {
        let registry = self.registry_client(registry).await?.base().to_owned();
        let (mut shown, config) = plan::build(entry, &registry, request)?;
        self.name_free(&config.name).await?;
        if let Some(check) = shown.runtime.as_mut() {
            check.found = find_program(&check.program)
                .await
                .map(|p| p.display().to_string());
        }
        Ok(shown)
    }

    /// Installs `entry` as [`Self::plan_registry_install`] showed it, the plan's `digest`
    /// given back: refused ([`InstallError::NotAsShown`]) when the plan made now has another
    /// digest, or when its runtime is missing; saved (values to the keychain), started, its
    /// tools listed.
    pub async fn install_from_registry(
        &self,
        entry: &RegistryEntry,
        request: &InstallRequest,
        registry: Option<&str>,
        digest: &str,
    ) -> Result<Installed, EngineError> {
        let registry = self.registry_client(registry).await?.base().to_owned();
        let (shown, config) = plan::build(entry, &registry, request)?;
        digest::require("the plan", digest, &shown.digest)?;
        if let Some(check) = &shown.runtime {
            require_program(&check.program).await?;
        }
        tracing::info!(entry = %entry.name, version = %entry.version, "installing from the MCP Registry");
        let record = self.host.add_server(config).await?;
        Ok(self.start_installed(record).await)
    }

    /// Whether the registry has a newer version of installed server `id_or_name`, and what
    /// updating would change (none: up to date).
    pub async fn check_update(&self, id_or_name: &str) -> Result<Option<UpdatePlan>, EngineError> {
        Ok(self
            .plan_update(id_or_name)
            .await?
            .map(|(shown, _, _)| shown))
    }

    /// Applies the update [`Self::check_update`] showed, its `digest` given back: the
    /// registry is asked again and the update refused ([`InstallError::NotAsShown`]) when what
    /// it would apply now has another digest (the registry's latest version or its entry
    /// changed since); else the configuration is replaced (its values kept), a running server
    /// restarted.
    pub async fn apply_update(
        &self,
        id_or_name: &str,
        digest: &str,
    ) -> Result<Installed, EngineError> {
        let Some((shown, config, record)) = self.plan_update(id_or_name).await? else {
            let name = id_or_name.to_owned();
            return Err(InstallError::Plan(format!("{name} is up to date")).into());
        };
        digest::require("the update", digest, &shown.digest)?;
        if !shown.missing.is_empty() {
            let missing = shown.missing.join(", ");
            return Err(InstallError::Plan(format!(
                "version {} needs values not given yet: {missing}; reinstall it with them",
                shown.to_version
            ))
            .into());
        }
        if let Transport::Stdio { command, .. } = &config.transport {
            require_program(command).await?;
        }
        let was_running = self.host.supervisor().state(&record.config.name).is_some();
        if was_running {
            self.host.stop_server(&record.config.name).await;
        }
        let updated = self.host.update_server(&record.id, config).await?;
        tracing::info!(server = %updated.config.name, to = %shown.to_version, "updated an MCP server");
        Ok(self.start_installed(updated).await)
    }

    async fn plan_update(
        &self,
        id_or_name: &str,
    ) -> Result<Option<(UpdatePlan, ServerConfig, ServerRecord)>, EngineError> {
        let record = self.host.store().find_server(id_or_name).await?;
        let Some(ServerSource::Registry {
            registry,
            name,
            version,
            option,
            inputs,
        }) = record.config.source.clone()
        else {
            let server = record.config.name.clone();
            return Err(InstallError::Plan(format!(
                "{server} was not installed from an MCP Registry"
            ))
            .into());
        };
        let latest = self.registry_entry(&name, None, Some(&registry)).await?;
        if !newer(&latest.version, &version) {
            return Ok(None);
        }
        let current = self.host.server_secrets().runnable(record.clone()).await?;
        let mut values = inputs;
        values.extend(secrets_of(&current.transport).clone());
        // Only what the new version still asks for (a variable it dropped is not an error).
        let asked: Vec<String> = (install_options(&latest).into_iter())
            .filter(|o| o.id == option)
            .flat_map(|o| o.fields.into_iter().map(|f| f.key))
            .collect();
        values.retain(|k, _| asked.contains(k));
        let request = InstallRequest {
            option: Some(option),
            server_name: Some(record.config.name.clone()),
            values,
        };
        let (missing, built, seen) = match plan::build(&latest, &registry, &request) {
            Ok((plan, config)) => (vec![], config, plan.config),
            Err(InstallError::Plan(why)) => {
                let mut keep = request.clone();
                keep.values.clear();
                let fallback = plan::build(&latest, &registry, &keep).map(|(_, c)| c);
                let built = fallback.unwrap_or_else(|_| current.clone());
                let seen = built.masked();
                (vec![why], built, seen)
            }
            Err(other) => return Err(other.into()),
        };
        let names = |c: &ServerConfig| secrets_of(&c.transport).keys().cloned().collect();
        let mut seen = seen;
        seen.enabled = record.config.enabled;
        seen.approval = record.config.approval;
        let shown_digest = digest::of_json(&(&record.id, &version, &latest.version, &seen));
        let shown = UpdatePlan {
            server: record.config.name.clone(),
            entry: name,
            from_version: version,
            to_version: latest.version.clone(),
            old_command_line: current.command_line(),
            new_command_line: built.command_line(),
            old_names: names(&current),
            new_names: names(&built),
            missing,
            new_values: secrets_of(&seen.transport).clone(),
            digest: shown_digest,
        };
        let mut config = built;
        config.enabled = record.config.enabled;
        config.approval = record.config.approval;
        Ok(Some((shown, config, record)))
    }

    /// What the bundle at `file` is and asks for; checks it without unpacking.
    pub fn preview_bundle(&self, file: &Path) -> Result<BundlePreview, EngineError> {
        Ok(bundle::preview(file)?)
    }

    /// Unpacks the bundle at `file` into the profile's `bundles/<name>/<version>/`, saves its
    /// server (its `user_config` values substituted; env values to the keychain), starts it
    /// and lists its tools. `digest` is the one [`Self::preview_bundle`] showed: the file is
    /// first copied into a private one while hashing it, and refused
    /// ([`InstallError::NotAsShown`]) when its bytes are not the ones previewed; everything
    /// after reads that copy. Refused bundles leave nothing on disk.
    pub async fn install_bundle(
        &self,
        file: &Path,
        request: &BundleInstall,
        digest: &str,
    ) -> Result<Installed, EngineError> {
        let bundles = self.bundles_dir()?;
        let (file_owned, dir, expected) = (file.to_path_buf(), bundles.clone(), digest.to_owned());
        let staged = tokio::task::spawn_blocking(move || {
            let staged = bundle::stage(&file_owned, &dir, &expected)?;
            let preview = bundle::preview_as(&staged.path, &file_owned)?;
            Ok::<_, InstallError>((staged, preview))
        })
        .await
        .map_err(|e| InstallError::Io(e.to_string()))?;
        let (staged, preview) = staged?;
        if !preview.platforms.is_empty() && !preview.platforms.iter().any(|p| p == bundle::PLATFORM)
        {
            let (on, platforms) = (bundle::PLATFORM, preview.platforms.join(", "));
            let why = format!("it runs on {platforms}, not on this computer ({on})");
            return Err(bundle::refused(file, &why).into());
        }
        self.name_free(request.server_name.as_deref().unwrap_or(&preview.name))
            .await?;
        let file_owned = file.to_path_buf();
        let unpacked = tokio::task::spawn_blocking(move || {
            let limits = bundle::Limits::default();
            let unpacked = bundle::unpack_as(&staged.path, &file_owned, &bundles, limits);
            drop(staged);
            unpacked
        })
        .await;
        let (manifest, dir) = unpacked.map_err(|e| InstallError::Io(e.to_string()))??;
        let saved = async {
            let config = bundle::server_config(&manifest, &dir, request)?;
            if let Transport::Stdio { command, .. } = &config.transport {
                require_program(command).await?;
            }
            self.host.add_server(config).await
        };
        let record = match saved.await {
            Ok(record) => record,
            Err(error) => {
                self.host.remove_bundle_dir(&dir);
                return Err(error);
            }
        };
        tracing::info!(bundle = %manifest.name, version = %manifest.version, "installed an MCP Bundle");
        Ok(self.start_installed(record).await)
    }

    /// What install link `link` would save (the exact command or URL, env and header values,
    /// grants, loader-style variables to accept), for the confirmation the user sees first;
    /// saves nothing.
    pub async fn preview_install_link(&self, link: &str) -> Result<LinkPreview, EngineError> {
        let (shown, config) = link::parse(link)?;
        self.name_free(&config.name).await?;
        Ok(shown)
    }

    /// Installs the server of `link` once the user confirmed [`Self::preview_install_link`]:
    /// saved (values to the keychain), started, its tools listed. Refused when the link sets a
    /// loader-style variable (its preview's `risky_env`) not in `accepted_risky_env`.
    pub async fn install_from_link(
        &self,
        link: &str,
        accepted_risky_env: &[String],
    ) -> Result<Installed, EngineError> {
        let config = link::parse_to_install(link, accepted_risky_env)?;
        tracing::info!(server = %config.name, "installing from an install link");
        let record = self.host.add_server(config).await?;
        Ok(self.start_installed(record).await)
    }

    fn bundles_dir(&self) -> Result<PathBuf, InstallError> {
        let dir = self
            .bundles_dir
            .clone()
            .ok_or_else(|| InstallError::Io("this profile has no folder for bundles".to_owned()))?;
        std::fs::create_dir_all(&dir)
            .map_err(|e| InstallError::Io(format!("cannot create {}: {e}", dir.display())))?;
        Ok(dir)
    }

    async fn name_free(&self, name: &str) -> Result<(), EngineError> {
        let taken = self
            .host
            .store()
            .list_servers()
            .await?
            .iter()
            .any(|r| r.config.name == name);
        match taken {
            true => Err(InstallError::Plan(format!(
                "a server named {name:?} is already configured; choose another name"
            ))
            .into()),
            false => Ok(()),
        }
    }

    /// Starts a just-saved server and lists its tools; a failure to start is reported, and
    /// the server stays configured.
    async fn start_installed(&self, record: ServerRecord) -> Installed {
        let name = record.config.name.clone();
        let (tools, start_error) = match self.host.start_server(&name).await {
            Ok(()) => (self.host.server_tools(&name).unwrap_or_default(), None),
            Err(error) => (vec![], Some(error.to_string())),
        };
        Installed {
            record: masked(record),
            tools,
            start_error,
        }
    }
}

/// Whether `candidate` is a newer version than `installed` (semver when both parse; else
/// any difference).
fn newer(candidate: &str, installed: &str) -> bool {
    match (
        semver::Version::parse(candidate),
        semver::Version::parse(installed),
    ) {
        (Ok(c), Ok(i)) => c > i,
        _ => candidate != installed,
    }
}

/// Where `program` is on the servers' PATH (an absolute path: itself, when it exists).
pub(crate) async fn find_program(program: &str) -> Option<PathBuf> {
    let path = Path::new(program);
    if path.is_absolute() {
        return path.is_file().then(|| path.to_path_buf());
    }
    let search = crate::mcp::client::process::servers_path().await;
    std::env::split_paths(&search)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
            || path.with_extension("exe").is_file()
            || path.with_extension("cmd").is_file()
    }
}

/// `program`, or the error naming what to install.
async fn require_program(program: &str) -> Result<RuntimeCheck, InstallError> {
    match find_program(program).await {
        Some(found) => Ok(RuntimeCheck {
            program: program.to_owned(),
            found: Some(found.display().to_string()),
            hint: runtime_hint(program),
        }),
        None => Err(InstallError::RuntimeMissing {
            program: program.to_owned(),
            hint: runtime_hint(program),
        }),
    }
}
