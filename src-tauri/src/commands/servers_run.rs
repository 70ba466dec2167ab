//! Commands over running MCP servers: start, stop, restart, states, logs, and browsing a
//! server's tools, resources and prompts, and calling a tool (the "try this tool" form).

use serde_json::Value;
use switchboard_engine::Engine;
use switchboard_engine::mcp::ServerLogs;
use switchboard_engine::mcp::ServerStatus;
use switchboard_engine::vocab::mcp::{PromptInfo, ResourceInfo, ToolInfo, ToolResult};
use switchboard_engine::vocab::server::Approval;
use tauri::State;
use tokio_util::sync::CancellationToken;

use super::CmdResult;

/// Starts a configured server (by name or id) and waits until it is ready; fails with why not.
#[tauri::command]
pub async fn start_server(engine: State<'_, Engine>, name: String) -> CmdResult<()> {
    Ok(engine.mcp().start_server(&name).await?)
}

/// Stops a running server; `false` if it was not running.
#[tauri::command]
pub async fn stop_server(engine: State<'_, Engine>, name: String) -> CmdResult<bool> {
    Ok(engine.mcp().stop_server(&name).await)
}

/// Stops a server if running and starts it again.
#[tauri::command]
pub async fn restart_server(engine: State<'_, Engine>, name: String) -> CmdResult<()> {
    Ok(engine.mcp().restart_server(&name).await?)
}

/// Every supervised server and its state.
#[tauri::command]
pub fn server_states(engine: State<'_, Engine>) -> CmdResult<Vec<ServerStatus>> {
    Ok(engine.mcp().server_states())
}

/// A server's stderr lines and MCP log messages.
#[tauri::command]
pub fn server_logs(engine: State<'_, Engine>, name: String) -> CmdResult<ServerLogs> {
    Ok(engine.mcp().server_logs(&name)?)
}

/// The tools of a running server.
#[tauri::command]
pub fn server_tools(engine: State<'_, Engine>, name: String) -> CmdResult<Vec<ToolInfo>> {
    Ok(engine.mcp().server_tools(&name)?)
}

/// The resources a running server lists.
#[tauri::command]
pub async fn server_resources(
    engine: State<'_, Engine>,
    name: String,
) -> CmdResult<Vec<ResourceInfo>> {
    Ok(engine.mcp().server(&name).resources().await?)
}

/// The prompts a running server lists.
#[tauri::command]
pub async fn server_prompts(engine: State<'_, Engine>, name: String) -> CmdResult<Vec<PromptInfo>> {
    Ok(engine.mcp().server(&name).prompts().await?)
}

/// Calls a tool of a running server with JSON arguments (checked against its schema).
#[tauri::command]
pub async fn call_tool(
    engine: State<'_, Engine>,
    server: String,
    tool: String,
    args: Value,
) -> CmdResult<ToolResult> {
    let cancel = CancellationToken::new();
    Ok(engine.mcp().call_tool(&server, &tool, args, cancel).await?)
}

/// The approval policies the user set for a server's tools, by tool name.
#[tauri::command]
pub async fn tool_policies(
    engine: State<'_, Engine>,
    server: String,
) -> CmdResult<std::collections::BTreeMap<String, Approval>> {
    Ok(engine.mcp().tool_policies(&server).await?)
}

/// Sets (or with `null` clears) the approval policy of one tool: ask, allow or deny.
#[tauri::command]
pub async fn set_tool_policy(
    engine: State<'_, Engine>,
    server: String,
    tool: String,
    policy: Option<Approval>,
) -> CmdResult<()> {
    Ok(engine.mcp().set_tool_policy(&server, &tool, policy).await?)
}
