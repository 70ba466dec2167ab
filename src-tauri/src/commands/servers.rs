//! Commands over the MCP server configuration: list, preview and run an import of an
//! `mcpServers` document, add, edit, enable/disable, remove and export. What the window saves
//! runs at once: each command that saves or switches servers then has the engine bring them
//! in line with it (`McpHost::follow_config`): started in the background, stopped, restarted.

use switchboard_engine::Engine;
use switchboard_engine::mcp::{Conflict, ImportPreview, ImportReport};
use switchboard_engine::store::ServerRecord;
use switchboard_engine::vocab::server::ServerConfig;
use tauri::State;

use super::CmdResult;

fn conflict(replace: bool) -> Conflict {
    if replace {
        Conflict::Replace
    } else {
        Conflict::Skip
    }
}

/// Every configured server, by name.
#[tauri::command]
pub async fn list_servers(engine: State<'_, Engine>) -> CmdResult<Vec<ServerRecord>> {
    Ok(engine.mcp().list_servers().await?)
}

/// What importing `json` would do (with `replace`, existing names are replaced); changes
/// nothing.
#[tauri::command]
pub async fn preview_import_servers(
    engine: State<'_, Engine>,
    json: String,
    replace: Option<bool>,
) -> CmdResult<ImportPreview> {
    let on_conflict = conflict(replace.unwrap_or(false));
    Ok(engine.mcp().preview_import(&json, on_conflict).await?)
}

/// Imports the servers of an `mcpServers` document, all or nothing; the enabled ones added or
/// replaced begin to start.
#[tauri::command]
pub async fn import_servers(
    engine: State<'_, Engine>,
    json: String,
    replace: bool,
) -> CmdResult<ImportReport> {
    let report = engine
        .mcp()
        .import_servers(&json, conflict(replace))
        .await?;
    let saved: Vec<String> = report
        .added
        .iter()
        .chain(&report.replaced)
        .cloned()
        .collect();
    engine.mcp().follow_config(&saved).await;
    Ok(report)
}

/// Adds one server; when enabled it begins to start (its state arrives as events; a start
/// that fails is its Failed state, not this command's error).
#[tauri::command]
pub async fn add_server(engine: State<'_, Engine>, input: ServerConfig) -> CmdResult<ServerRecord> {
    let record = engine.mcp().add_server(input).await?;
    engine
        .mcp()
        .follow_config(std::slice::from_ref(&record.id))
        .await;
    Ok(record)
}

/// Replaces the configuration of a server (by id or name); its id stays (its tool policies
/// too, unless its command, args, URL or transport changed). A running server restarts on
/// the new configuration; a disabled one stops.
#[tauri::command]
pub async fn update_server(
    engine: State<'_, Engine>,
    id: String,
    input: ServerConfig,
) -> CmdResult<ServerRecord> {
    let record = engine.mcp().update_server(&id, input).await?;
    engine
        .mcp()
        .follow_config(std::slice::from_ref(&record.id))
        .await;
    Ok(record)
}

/// Turns a server (by id or name) on, which begins to start it, or off, which stops it.
#[tauri::command]
pub async fn set_server_enabled(
    engine: State<'_, Engine>,
    id: String,
    enabled: bool,
) -> CmdResult<ServerRecord> {
    let record = engine.mcp().set_server_enabled(&id, enabled).await?;
    engine
        .mcp()
        .follow_config(std::slice::from_ref(&record.id))
        .await;
    Ok(record)
}

/// Removes a server (by id or name), stopping it if it runs.
#[tauri::command]
pub async fn remove_server(engine: State<'_, Engine>, id: String) -> CmdResult<()> {
    Ok(engine.mcp().remove_server(&id).await?)
}

/// Sets, or with `null` forgets, a remote server's OAuth client secret or PEM private key
/// (kept in the keychain, never returned).
#[tauri::command]
pub async fn set_server_client_secret(
    engine: State<'_, Engine>,
    id: String,
    secret: Option<String>,
) -> CmdResult<()> {
    let secret = secret.filter(|s| !s.trim().is_empty()).map(Into::into);
    Ok(engine.mcp().set_server_client_secret(&id, secret).await?)
}

/// Whether a remote server has an OAuth client secret or private key stored.
#[tauri::command]
pub async fn server_client_secret_set(engine: State<'_, Engine>, id: String) -> CmdResult<bool> {
    Ok(engine.mcp().server_client_secret_set(&id).await?)
}

/// Every server as an `mcpServers` JSON document; env and header values only when
/// `with_secrets` (the UI asks the user first).
#[tauri::command]
pub async fn export_servers(engine: State<'_, Engine>, with_secrets: bool) -> CmdResult<String> {
    Ok(engine.mcp().export_servers(with_secrets).await?)
}
