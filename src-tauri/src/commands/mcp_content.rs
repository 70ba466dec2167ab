//! Commands that fetch MCP content for the composer: a server's resource templates, a
//! resource's contents (to attach to a message), and a prompt expanded with arguments (the
//! slash commands).

use std::collections::BTreeMap;

use switchboard_engine::Engine;
use switchboard_engine::vocab::mcp::{Prompt, ResourceContent, ResourceTemplateInfo};
use tauri::State;

use super::CmdResult;

/// The resource templates of a running server (empty when it has none).
#[tauri::command]
pub async fn server_resource_templates(
    engine: State<'_, Engine>,
    name: String,
) -> CmdResult<Vec<ResourceTemplateInfo>> {
    Ok(engine.mcp().server(&name).resource_templates().await?)
}

/// Reads a resource of a running server.
#[tauri::command]
pub async fn read_resource(
    engine: State<'_, Engine>,
    server: String,
    uri: String,
) -> CmdResult<Vec<ResourceContent>> {
    Ok(engine.mcp().server(&server).read_resource(&uri).await?)
}

/// Expands a prompt of a running server with its arguments.
#[tauri::command]
pub async fn get_prompt(
    engine: State<'_, Engine>,
    server: String,
    name: String,
    args: BTreeMap<String, String>,
) -> CmdResult<Prompt> {
    Ok(engine.mcp().server(&server).get_prompt(&name, args).await?)
}
