//! `switchboard mcp serve --stdio`: Switchboard as one MCP server for other apps (Claude
//! Desktop, Cursor, VS Code, scripts) — the tools of every enabled server, under the user's
//! approval policy — on stdin and stdout, for a client's `mcpServers` entry.

use clap::Subcommand;
use switchboard_engine::Engine;
use tokio_util::sync::CancellationToken;

use super::CliError;

/// `switchboard mcp …`.
#[derive(Debug, Subcommand)]
pub enum McpCmd {
    /// Serve the enabled servers' tools as one MCP server.
    Serve {
        /// Over stdin and stdout (the only way for now), as a client's `mcpServers` entry
        /// starts it: {"command": "switchboard", "args": ["mcp", "serve", "--stdio"]}.
        #[arg(long)]
        stdio: bool,
        /// Seconds to wait for the servers to start before serving (default: the
        /// `mcp.server_wait` setting).
        #[arg(long, value_name = "SECONDS")]
        server_wait: Option<f64>,
    },
}

/// Runs `cmd` until the client goes away (or SIGINT/SIGTERM).
pub(super) async fn run(engine: &Engine, cmd: &McpCmd) -> Result<(), CliError> {
    let McpCmd::Serve { stdio, server_wait } = cmd;
    if !stdio {
        return Err(CliError::Usage(
            "say how to serve: --stdio (the local HTTP endpoint is not built yet)".into(),
        ));
    }
    let wait = match server_wait.filter(|s| s.is_finite() && *s >= 0.0) {
        Some(s) => std::time::Duration::from_secs_f64(s),
        None => engine.mcp().server_wait().await,
    };
    match engine.mcp().start_for_turn(None, wait).await {
        Ok(report) => {
            for (name, reason) in report.failed {
                eprintln!("warning: server {name} did not start: {reason}");
            }
        }
        Err(e) => eprintln!("warning: cannot read the server list: {e}"),
    }
    let stop = CancellationToken::new();
    let stopper = stop.clone();
    tokio::spawn(async move {
        stopped().await;
        stopper.cancel();
    });
    let served = switchboard_engine::mcp::serve_stdio(engine.mcp().clone(), stop).await;
    served.map_err(CliError::Runtime)
}

/// Resolves at SIGINT or SIGTERM.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
