//! Commands for MCP Apps shown in tool cards: registering an App document for its sandboxed
//! frame (served by the `mcpapp` scheme, see [`crate::app_frames`]), forgetting it, and
//! forwarding an App's own `tools/call` (the engine applies the App rules and the policy).

use switchboard_engine::Engine;
use switchboard_engine::mcp::AppCsp;
use switchboard_engine::mcp::{AppCall, AppCallOutcome};
use tauri::State;

use super::CmdResult;

/// Registers an App document with its declared CSP domains; returns the token its frame
/// loads (`mcpapp://localhost/<token>`). `server` (the App's) decides whether local and private
/// origins may stay in its CSP.
#[tauri::command]
pub fn open_app_view(
    engine: State<'_, Engine>,
    html: String,
    csp: AppCsp,
    server: Option<String>,
) -> CmdResult<String> {
    Ok(engine
        .mcp()
        .apps()
        .open_view(server.as_deref(), &html, &csp)?)
}

/// Forgets an App document (its frame was unmounted).
#[tauri::command]
pub fn close_app_view(engine: State<'_, Engine>, token: String) -> CmdResult<()> {
    engine.mcp().apps().close_view(&token);
    Ok(())
}

/// Runs an App's `tools/call` on its own server, if the App rules and the policy allow it.
#[tauri::command]
pub async fn app_call_tool(engine: State<'_, Engine>, call: AppCall) -> CmdResult<AppCallOutcome> {
    Ok(engine.mcp().apps().call(call).await?)
}
