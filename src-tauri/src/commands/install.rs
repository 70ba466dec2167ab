//! Commands for installing servers: the MCP Registry (search, the cached listing, the
//! registry URL, an entry's install form, the plan, install, updates), MCP Bundles (preview,
//! install) and install links (preview, install, and the links the app was opened with).

use std::path::PathBuf;
use std::sync::Mutex;

use switchboard_engine::Engine;
use switchboard_engine::mcp::Installed;
use switchboard_engine::mcp::LinkPreview;
use switchboard_engine::mcp::{BundleInstall, BundlePreview};
use switchboard_engine::mcp::{
    InstallOption, InstallPlan, InstallRequest, RegistryEntry, RegistryPage, UpdatePlan,
    install_options,
};
use switchboard_engine::vocab::error::InstallError;
use tauri::State;

use super::CmdResult;

/// A page of the registry's latest entries matching `query`, after `cursor`.
#[tauri::command]
pub async fn registry_search(
    engine: State<'_, Engine>,
    query: String,
    cursor: Option<String>,
) -> CmdResult<RegistryPage> {
    Ok(engine
        .installer()
        .registry_search(&query, cursor.as_deref(), None)
        .await?)
}

/// The last listing fetched (marked cached), for browsing offline.
#[tauri::command]
pub async fn registry_cached(engine: State<'_, Engine>) -> CmdResult<Option<RegistryPage>> {
    Ok(engine.installer().cached_registry_listing().await?)
}

/// The registry URL in use.
#[tauri::command]
pub async fn registry_url(engine: State<'_, Engine>) -> CmdResult<String> {
    Ok(engine.installer().registry_url().await?)
}

/// Sets the registry URL (empty: the official registry).
#[tauri::command]
pub async fn set_registry_url(engine: State<'_, Engine>, url: String) -> CmdResult<()> {
    Ok(engine.installer().set_registry_url(&url).await?)
}

/// The ways `entry` can be installed, each with its form.
#[tauri::command]
pub fn registry_install_options(entry: RegistryEntry) -> Vec<InstallOption> {
    install_options(&entry)
}

/// What installing `entry` as `request` asks would save and run; saves nothing.
#[tauri::command]
pub async fn plan_registry_install(
    engine: State<'_, Engine>,
    entry: RegistryEntry,
    request: InstallRequest,
) -> CmdResult<InstallPlan> {
    Ok(engine
        .installer()
        .plan_registry_install(&entry, &request, None)
        .await?)
}

/// Installs `entry` as `request` asks, refused unless `digest` is the digest of the plan
/// shown for it: saved, started, its tools listed.
#[tauri::command]
pub async fn install_from_registry(
    engine: State<'_, Engine>,
    entry: RegistryEntry,
    request: InstallRequest,
    digest: String,
) -> CmdResult<Installed> {
    Ok(engine
        .installer()
        .install_from_registry(&entry, &request, None, &digest)
        .await?)
}

/// What updating server `id` to the registry's latest version would change (none: up to
/// date).
#[tauri::command]
pub async fn check_server_update(
    engine: State<'_, Engine>,
    id: String,
) -> CmdResult<Option<UpdatePlan>> {
    Ok(engine.installer().check_update(&id).await?)
}

/// Applies the update [`check_server_update`] showed, refused unless `digest` is the
/// digest of that update as the registry answers now.
#[tauri::command]
pub async fn apply_server_update(
    engine: State<'_, Engine>,
    id: String,
    digest: String,
) -> CmdResult<Installed> {
    Ok(engine.installer().apply_update(&id, &digest).await?)
}

/// What the bundle at `path` is and asks for, with the digest of its bytes; unpacks
/// nothing. Read on a blocking thread, never the window's.
#[tauri::command]
pub async fn preview_bundle(engine: State<'_, Engine>, path: PathBuf) -> CmdResult<BundlePreview> {
    let installer = engine.installer().clone();
    let preview = tauri::async_runtime::spawn_blocking(move || installer.preview_bundle(&path));
    let preview = preview.await.map_err(|e| {
        let failed = InstallError::Io(format!("reading the bundle failed: {e}"));
        switchboard_engine::EngineError::from(failed)
    })?;
    Ok(preview?)
}

/// Installs the bundle at `path` with the user's `request` values, refused unless its bytes
/// have the `digest` its preview showed.
#[tauri::command]
pub async fn install_bundle(
    engine: State<'_, Engine>,
    path: PathBuf,
    request: BundleInstall,
    digest: String,
) -> CmdResult<Installed> {
    Ok(engine
        .installer()
        .install_bundle(&path, &request, &digest)
        .await?)
}

/// What install link `link` would save, for the confirmation; saves nothing.
#[tauri::command]
pub async fn preview_install_link(
    engine: State<'_, Engine>,
    link: String,
) -> CmdResult<LinkPreview> {
    Ok(engine.installer().preview_install_link(&link).await?)
}

/// Installs the server of `link`, after the user confirmed it and ticked each loader-style
/// variable it sets (`accepted_risky_env`, the preview's `riskyEnv`).
#[tauri::command]
pub async fn install_from_link(
    engine: State<'_, Engine>,
    link: String,
    accepted_risky_env: Option<Vec<String>>,
) -> CmdResult<Installed> {
    let accepted = accepted_risky_env.unwrap_or_default();
    Ok(engine
        .installer()
        .install_from_link(&link, &accepted)
        .await?)
}

/// Install links the app was opened with and not yet shown (each is returned once).
#[derive(Default)]
pub struct OpenedLinks(pub Mutex<Vec<String>>);

impl OpenedLinks {
    /// Keeps `link` until the window asks for it.
    pub fn push(&self, link: String) {
        if let Ok(mut links) = self.0.lock() {
            links.push(link);
        }
    }
}

/// The install links received and not yet shown, oldest first.
#[tauri::command]
pub fn take_opened_links(links: State<'_, OpenedLinks>) -> Vec<String> {
    links
        .0
        .lock()
        .map(|mut l| l.drain(..).collect())
        .unwrap_or_default()
}
