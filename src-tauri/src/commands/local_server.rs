//! Commands of Settings → Local server: switch the local MCP endpoint on or off and choose its
//! port; make, limit and remove the apps allowed to use it (a new one's token is returned this
//! once), and read each one's recent calls.

use std::collections::BTreeMap;

use serde::Serialize;
use switchboard_engine::Engine;
use switchboard_engine::mcp::LocalServerStatus;
use switchboard_engine::store::{ServeCall, ServeClient, ServeGrant};
use tauri::State;
use ts_rs::TS;

use super::CmdResult;

/// Recent calls shown per client.
const SHOWN_CALLS: u32 = 50;

/// A client just made, with its token (shown once, never stored).
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NewServeClient {
    /// The client.
    pub client: ServeClient,
    /// Its bearer token.
    pub token: String,
}

/// Whether the local server runs, its port and address, or why it does not listen.
#[tauri::command]
pub async fn local_server_status(engine: State<'_, Engine>) -> CmdResult<LocalServerStatus> {
    Ok(engine.local_server().status().await?)
}

/// Switches the local server on or off on `port`, keeping both for the next launch.
#[tauri::command]
pub async fn set_local_server(
    engine: State<'_, Engine>,
    enabled: bool,
    port: u16,
) -> CmdResult<LocalServerStatus> {
    Ok(engine.local_server().set(enabled, port).await?)
}

/// The apps allowed to use the local server, by name.
#[tauri::command]
pub async fn list_serve_clients(engine: State<'_, Engine>) -> CmdResult<Vec<ServeClient>> {
    Ok(engine.store().serve_clients().await?)
}

/// Makes a client that may reach `servers` (`null`: every enabled server).
#[tauri::command]
pub async fn add_serve_client(
    engine: State<'_, Engine>,
    name: String,
    servers: Option<Vec<String>>,
) -> CmdResult<NewServeClient> {
    let (client, token) = engine.store().add_serve_client(&name, servers).await?;
    Ok(NewServeClient { client, token })
}

/// Sets the servers a client may reach (`null`: every enabled server).
#[tauri::command]
pub async fn set_serve_client_servers(
    engine: State<'_, Engine>,
    id: String,
    servers: Option<Vec<String>>,
) -> CmdResult<()> {
    Ok(engine
        .store()
        .set_serve_client_servers(&id, servers)
        .await?)
}

/// Sets the tools of each server a client may see and call (`null`: all tools of the servers
/// it reaches; a server left out keeps all its tools).
#[tauri::command]
pub async fn set_serve_client_tools(
    engine: State<'_, Engine>,
    id: String,
    tools: Option<BTreeMap<String, Vec<String>>>,
) -> CmdResult<()> {
    Ok(engine.store().set_serve_client_tools(&id, tools).await?)
}

/// Removes a client: its token stops working at once.
#[tauri::command]
pub async fn remove_serve_client(engine: State<'_, Engine>, id: String) -> CmdResult<()> {
    Ok(engine.store().remove_serve_client(&id).await?)
}

/// The tools a client may call without asking ("always" answered in the window).
#[tauri::command]
pub async fn serve_client_grants(
    engine: State<'_, Engine>,
    id: String,
) -> CmdResult<Vec<ServeGrant>> {
    Ok(engine.store().serve_client_grants(&id).await?)
}

/// Takes back a client's "always" for one tool: the policy asks again.
#[tauri::command]
pub async fn revoke_serve_client_grant(
    engine: State<'_, Engine>,
    id: String,
    server: String,
    tool: String,
) -> CmdResult<()> {
    Ok(engine
        .store()
        .revoke_serve_client_grant(&id, &server, &tool)
        .await?)
}

/// A client's recent calls, newest first.
#[tauri::command]
pub async fn serve_client_calls(
    engine: State<'_, Engine>,
    id: String,
) -> CmdResult<Vec<ServeCall>> {
    Ok(engine.store().serve_calls(&id, SHOWN_CALLS).await?)
}
