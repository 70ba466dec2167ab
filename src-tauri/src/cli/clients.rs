//! `switchboard clients`: the apps allowed to use the local MCP endpoint (`switchboard serve`)
//! — add one (its token is printed once), list them, limit the servers one reaches and the
//! tools of a server it may call, show its recent calls, remove one (its token stops working
//! at once).

use std::io::Write;

use clap::Subcommand;
use switchboard_engine::Engine;
use switchboard_engine::store::{ServeClient, StoreError};

use super::CliError;

/// `switchboard clients …`.
#[derive(Debug, Subcommand)]
pub enum ClientsCmd {
    /// Make a client and print its bearer token (shown this once).
    Add {
        /// Its name, e.g. "Claude Desktop".
        name: String,
        /// The servers it may reach, comma-separated (default: every enabled server).
        #[arg(long, value_delimiter = ',')]
        servers: Option<Vec<String>>,
    },
    /// List the clients, the servers each reaches and when each was last used.
    List,
    /// Set the servers a client may reach.
    Servers {
        /// The client's name.
        name: String,
        /// The servers, comma-separated; `--all` for every enabled server.
        #[arg(value_delimiter = ',', required_unless_present = "all")]
        servers: Vec<String>,
        /// Every enabled server.
        #[arg(long, conflicts_with = "servers")]
        all: bool,
    },
    /// Set the tools of one server a client may see and call.
    Tools {
        /// The client's name.
        name: String,
        /// The server's name.
        server: String,
        /// The tools' names on that server, comma-separated; `--all` for all its tools.
        #[arg(value_delimiter = ',', required_unless_present = "all")]
        tools: Vec<String>,
        /// All the server's tools.
        #[arg(long, conflicts_with = "tools")]
        all: bool,
    },
    /// A client's recent calls, newest first.
    Calls {
        /// The client's name.
        name: String,
        /// How many calls.
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Remove a client: its token stops working.
    Remove {
        /// The client's name.
        name: String,
    },
}

/// Runs `cmd`.
pub(super) async fn run(engine: &Engine, cmd: &ClientsCmd) -> Result<(), CliError> {
    let store = engine.store();
    let mut out = std::io::stdout().lock();
    match cmd {
        ClientsCmd::Add { name, servers } => {
            let servers = servers.as_ref().map(|s| cleaned(s));
            let (client, token) = store.add_serve_client(name, servers).await?;
            writeln!(
                out,
                "Made the client {}. Its token (shown once):",
                client.name
            )?;
            writeln!(out, "{token}")?;
        }
        ClientsCmd::List => {
            let clients = store.serve_clients().await?;
            if clients.is_empty() {
                writeln!(
                    out,
                    "No clients. Make one with `switchboard clients add NAME`."
                )?;
            }
            for client in clients {
                writeln!(out, "{}", line(&client))?;
            }
        }
        ClientsCmd::Servers { name, servers, all } => {
            let client = named(engine, name).await?;
            let servers = (!all).then(|| cleaned(servers));
            store.set_serve_client_servers(&client.id, servers).await?;
            let client = named(engine, name).await?;
            writeln!(out, "{}", line(&client))?;
        }
        ClientsCmd::Tools {
            name,
            server,
            tools,
            all,
        } => {
            let client = named(engine, name).await?;
            let mut lists = client.tools.unwrap_or_default();
            match *all {
                true => lists.remove(server.trim()),
                false => lists.insert(server.trim().to_owned(), cleaned(tools)),
            };
            let lists = (!lists.is_empty()).then_some(lists);
            store.set_serve_client_tools(&client.id, lists).await?;
            let client = named(engine, name).await?;
            writeln!(out, "{}", line(&client))?;
        }
        ClientsCmd::Calls { name, limit } => {
            let client = named(engine, name).await?;
            let calls = store.serve_calls(&client.id, *limit).await?;
            if calls.is_empty() {
                writeln!(out, "{} has made no calls.", client.name)?;
            }
            for call in calls {
                let at = jiff::Timestamp::from_millisecond(call.at)
                    .map(|t| t.strftime("%Y-%m-%d %H:%M:%S").to_string())
                    .unwrap_or_default();
                let outcome = serde_json::to_value(call.outcome)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "{at}  {}/{}  {outcome}  {} ms",
                    call.server, call.tool, call.duration_ms
                )?;
            }
        }
        ClientsCmd::Remove { name } => {
            let client = named(engine, name).await?;
            store.remove_serve_client(&client.id).await?;
            writeln!(out, "Removed {}: its token no longer works.", client.name)?;
        }
    }
    Ok(())
}

/// The client named `name`, or a clear error.
async fn named(engine: &Engine, name: &str) -> Result<ServeClient, CliError> {
    engine
        .store()
        .serve_client_named(name)
        .await?
        .ok_or_else(|| {
            CliError::from(StoreError::NotFound {
                entity: "client",
                id: name.to_owned(),
            })
        })
}

/// Server names trimmed, empty ones dropped.
fn cleaned(servers: &[String]) -> Vec<String> {
    (servers.iter())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// One client on one line: name, reach, tool lists, last use.
fn line(client: &ServeClient) -> String {
    let mut reach = match &client.servers {
        None => "all servers".to_owned(),
        Some(s) if s.is_empty() => "no servers".to_owned(),
        Some(s) => s.join(", "),
    };
    for (server, tools) in client.tools.iter().flatten() {
        reach.push_str(&format!("; of {server} only {}", tools.join(", ")));
    }
    let used = client
        .last_used_at
        .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
        .map_or_else(
            || "never used".to_owned(),
            |t| format!("last used {}", t.strftime("%Y-%m-%d %H:%M")),
        );
    format!("{}  ({reach}; {used})", client.name)
}
