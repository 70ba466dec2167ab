//! Commands of Settings → General → Runtimes: the runtimes Switchboard brings for servers
//! (`uv`, Node.js) — what is installed, install one from the package index, remove one — and
//! where servers' packages come from (a PyPI mirror, an npm registry, a proxy).

use switchboard_engine::runtimes::{self, InstalledRuntime, Runtime, RuntimesOverview};
use switchboard_engine::{Engine, EngineError, ErrorKind};
use tauri::State;

use super::CmdResult;
use crate::error::IpcError;

fn runtime(name: &str) -> CmdResult<Runtime> {
    Runtime::parse(name).ok_or_else(|| IpcError {
        kind: ErrorKind::InvalidInput,
        message: format!("{name:?} is not a runtime Switchboard brings (uv or node)"),
    })
}

/// What is installed, and where runtimes come from.
#[tauri::command]
pub async fn runtimes_overview(engine: State<'_, Engine>) -> CmdResult<RuntimesOverview> {
    let overview = runtimes::overview(engine.runtimes(), engine.store()).await;
    Ok(overview.map_err(EngineError::from)?)
}

/// Fetches runtime `name` (`uv` or `node`) from the package index, checks it and installs it.
#[tauri::command]
pub async fn install_runtime(
    engine: State<'_, Engine>,
    name: String,
) -> CmdResult<InstalledRuntime> {
    let runtime = runtime(&name)?;
    let index = runtimes::index(engine.store())
        .await
        .map_err(EngineError::from)?;
    let installed = engine.runtimes().install(runtime, &index).await;
    Ok(installed.map_err(EngineError::from)?)
}

/// Removes runtime `name`.
#[tauri::command]
pub fn remove_runtime(engine: State<'_, Engine>, name: String) -> CmdResult<()> {
    let removed = engine.runtimes().remove(runtime(&name)?);
    removed.map_err(EngineError::from)?;
    Ok(())
}

/// Sets where runtimes and servers' `uv`, `pip` and `npm` fetch packages from and through:
/// the package index (`None`: PyPI), the npm registry and the HTTP proxy (`None`: none).
#[tauri::command]
pub async fn set_package_sources(
    engine: State<'_, Engine>,
    index: Option<String>,
    npm_registry: Option<String>,
    proxy: Option<String>,
) -> CmdResult<RuntimesOverview> {
    let set =
        engine.set_package_sources(index.as_deref(), npm_registry.as_deref(), proxy.as_deref());
    Ok(set.await?)
}
