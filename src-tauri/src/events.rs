//! Engine events as Tauri global events: one task per broadcast channel, each forwarding
//! what it receives with `emit`. The UI listens to [`SERVER_EVENT`], [`INTERACTION_EVENT`],
//! [`KNOWLEDGE_EVENT`] and [`SYNC_EVENT`].

use switchboard_engine::Engine;
use tauri::{AppHandle, Emitter, Runtime};
use tokio::sync::broadcast;

/// Supervisor events (`SupervisorEvent`): server states and tool-list changes.
pub const SERVER_EVENT: &str = "mcp:server";
/// Interaction events (`InteractionEvent`): a server's requests to the user, and their end.
pub const INTERACTION_EVENT: &str = "mcp:interaction";

/// Knowledge-base events (`KnowledgeEvent`): indexing progress, a finished or failed run.
pub const KNOWLEDGE_EVENT: &str = "knowledge";

/// Sync reports (`SyncReport`): a sync finished (the window lists what it brought).
pub const SYNC_EVENT: &str = "sync";

/// Starts forwarding the engine's events to the app's windows (until the app ends).
pub fn forward<R: Runtime>(app: &AppHandle<R>, engine: &Engine) {
    let servers = engine.mcp().subscribe();
    let interactions = engine.mcp().interactions().subscribe();
    tauri::async_runtime::spawn(pump(app.clone(), SERVER_EVENT, servers));
    tauri::async_runtime::spawn(pump(app.clone(), INTERACTION_EVENT, interactions));
    let knowledge = engine.knowledge().subscribe();
    tauri::async_runtime::spawn(pump(app.clone(), KNOWLEDGE_EVENT, knowledge));
    let synced = engine.sync().subscribe();
    tauri::async_runtime::spawn(pump(app.clone(), SYNC_EVENT, synced));
}

/// Emits every event of `rx` as `name`; a lagging receiver skips what it missed.
async fn pump<R: Runtime, T: serde::Serialize + Clone>(
    app: AppHandle<R>,
    name: &'static str,
    mut rx: broadcast::Receiver<T>,
) {
    loop {
        match rx.recv().await {
            Ok(event) => {
                if let Err(error) = app.emit(name, event) {
                    tracing::warn!(%error, name, "cannot emit an event");
                }
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(missed, name, "events were dropped for a slow window");
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}
