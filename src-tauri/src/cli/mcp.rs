//! `switchboard mcp serve --stdio` and `switchboard serve`: Switchboard as one MCP server for
//! other apps (Claude Desktop, Cursor, VS Code, scripts) — the tools of every enabled server,
//! under the user's approval policy — on stdin and stdout, for a client's `mcpServers` entry,
//! or over HTTP on 127.0.0.1 for the clients the user made (`switchboard clients`).

use clap::Subcommand;
use switchboard_engine::Engine;
use switchboard_engine::mcp::Gateway;
use tokio_util::sync::CancellationToken;

use super::CliError;

/// `switchboard mcp …`.
#[derive(Debug, Subcommand)]
pub enum McpCmd {
    /// Serve the enabled servers' tools as one MCP server.
    Serve {
        /// Over stdin and stdout, as a client's `mcpServers` entry
        /// starts it: {"command": "switchboard", "args": ["mcp", "serve", "--stdio"]}.
        #[arg(long)]
        stdio: bool,
        /// Seconds to wait for the servers to start before serving (default: the
        /// `mcp.server_wait` setting).
        #[arg(long, value_name = "SECONDS")]
        server_wait: Option<f64>,
        /// Serve this one server alone, as it serves itself (its tools and prompts under
        /// their own names), through Switchboard's policy and secrets.
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
    },
}

/// `switchboard serve`: the local MCP endpoint over HTTP, headless.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The port on 127.0.0.1 (0: any free one, printed at start).
    #[arg(long, default_value_t = switchboard_engine::mcp::SERVE_DEFAULT_PORT)]
    port: u16,
    /// Seconds to wait for the servers to start before serving (default: the
    /// `mcp.server_wait` setting).
    #[arg(long, value_name = "SECONDS")]
    server_wait: Option<f64>,
    /// Serve this one server alone, as it serves itself (its tools and prompts under their own
    /// names), through Switchboard's policy and secrets.
    #[arg(long, value_name = "NAME")]
    server: Option<String>,
}

/// The gateway to serve: every enabled server, or `server` alone (which must exist).
async fn gateway(engine: &Engine, server: Option<&str>) -> Result<Gateway, CliError> {
    Ok(match server {
        Some(name) => {
            let record = engine.store().find_server(name).await?;
            Gateway::only(engine.mcp().clone(), &record.config.name)
        }
        None => Gateway::new(engine.mcp().clone()),
    })
}

/// Serves over HTTP until SIGINT or SIGTERM, printing the URL once listening.
pub(super) async fn run_serve(engine: &Engine, args: &ServeArgs) -> Result<(), CliError> {
    let gateway = gateway(engine, args.server.as_deref()).await?;
    start_servers(engine, args.server_wait).await;
    let stop = CancellationToken::new();
    let routes = engine.api_routes();
    let endpoint = switchboard_engine::mcp::serve_http(gateway, args.port, stop.clone(), routes)
        .await
        .map_err(|e| CliError::Runtime(e.to_string()))?;
    {
        // A reader that takes the first line and goes away must not end the server.
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "Serving MCP on {}", endpoint.url());
        let _ = writeln!(
            out,
            "Serving the OpenAI-compatible API on http://{}/v1",
            endpoint.addr()
        );
        let _ = out.flush();
    }
    if engine.store().serve_clients().await?.is_empty() {
        eprintln!("note: no client can connect yet — make one with `switchboard clients add NAME`");
    }
    stopped().await;
    endpoint.stop().await;
    Ok(())
}

/// Starts the enabled servers, waiting up to `server_wait` seconds (else the setting), and
/// warns of those that did not start.
async fn start_servers(engine: &Engine, server_wait: Option<f64>) {
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
}

/// Runs `cmd` until the client goes away (or SIGINT/SIGTERM).
pub(super) async fn run(engine: &Engine, cmd: &McpCmd) -> Result<(), CliError> {
    let McpCmd::Serve {
        stdio,
        server_wait,
        server,
    } = cmd;
    if !stdio {
        return Err(CliError::Usage(
            "say how to serve: --stdio (for HTTP on 127.0.0.1, run `switchboard serve`)".into(),
        ));
    }
    let gateway = gateway(engine, server.as_deref()).await?;
    start_servers(engine, *server_wait).await;
    let stop = CancellationToken::new();
    let stopper = stop.clone();
    tokio::spawn(async move {
        stopped().await;
        stopper.cancel();
    });
    let served = switchboard_engine::mcp::serve_stdio(gateway, stop).await;
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
