//! Commands of Settings → General → Runtimes: the runtimes Switchboard brings for servers
//! (`uv`, Node.js) — what is installed, install one from the package index, remove one, and
//! the index they come from (a mirror).

use serde_json::json;
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

/// Sets the package index runtimes come from (`None`: PyPI).
#[tauri::command]
pub async fn set_runtimes_index(
    engine: State<'_, Engine>,
    url: Option<String>,
) -> CmdResult<RuntimesOverview> {
    let url = url.map(|u| u.trim().to_owned()).filter(|u| !u.is_empty());
    if let Some(url) = &url {
        let parsed = url::Url::parse(url).ok();
        if !parsed.is_some_and(|u| matches!(u.scheme(), "http" | "https")) {
            return Err(IpcError {
                kind: ErrorKind::InvalidInput,
                message: format!("{url:?} is not an http(s) URL"),
            });
        }
    }
    let value = url.map_or(serde_json::Value::Null, |u| json!(u));
    (engine
        .store()
        .set_setting(runtimes::INDEX_SETTING, &value)
        .await)?;
    let overview = runtimes::overview(engine.runtimes(), engine.store()).await;
    Ok(overview.map_err(EngineError::from)?)
}
