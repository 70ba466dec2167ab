//! Pausing every MCP server (the tray's "Pause all servers") and resuming them: the running
//! ones stop, and resuming starts the enabled, auto-start ones again.

use switchboard_engine::vocab::server::{ServerConfig, Transport};

use super::servers::engine;

#[tokio::test]
async fn pausing_stops_every_running_server_and_resuming_starts_the_enabled_ones_again() {
    use switchboard_engine::mcp::ServerState;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let builtin = |server: &str| Transport::Builtin {
        server: server.into(),
        allow_private: false,
        folders: vec![],
        env: Default::default(),
        settings: Default::default(),
    };
    let mcp = engine.mcp();
    mcp.add_server(ServerConfig::new("clock", builtin("time")))
        .await
        .unwrap();
    let mut off = ServerConfig::new("reader", builtin("fetch"));
    off.enabled = false;
    mcp.add_server(off).await.unwrap();
    mcp.start_servers().await.unwrap();
    let ready = |name: &str| matches!(mcp.server_state(name), Some(ServerState::Ready { .. }));
    assert!(ready("clock"));

    assert!(mcp.toggle_pause().await.unwrap(), "now paused");
    assert!(!ready("clock"), "{:?}", mcp.server_state("clock"));
    assert!(!mcp.toggle_pause().await.unwrap(), "now resumed");
    assert!(ready("clock"), "{:?}", mcp.server_state("clock"));
    assert!(!ready("reader"), "a disabled server stays off");
    engine.shutdown().await;
}
