//! The terminal front end: `switchboard <command>` shares the GUI's engine, database and
//! configuration. Parsing lives here; each subcommand module prints its own results.

mod backups;
mod chat;
mod clients;
mod compare;
mod conformance;
mod conversations;
mod export;
mod knowledge;
mod mcp;
#[cfg(feature = "local")]
mod models;
mod projects;
mod providers;
mod runtimes;
mod servers;
mod servers_install;
mod servers_run;
mod sync;

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use switchboard_engine::{Paths, Redactor, paths::DATA_DIR_ENV};

/// Switchboard: chat with local and cloud models that use MCP tools.
#[derive(Debug, Parser)]
#[command(name = "switchboard", version, about, propagate_version = true)]
pub struct Cli {
    /// Keep all data, configuration and logs in this folder (also: SWITCHBOARD_DATA_DIR).
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Keep API keys in a private file (0600) when no OS keychain is available.
    #[arg(long, global = true)]
    pub secrets_file: bool,

    /// Open the window on this install link (`switchboard://mcp/install?…`): it asks for
    /// confirmation before anything is saved. A bare `switchboard://` argument means the same.
    #[arg(long, value_name = "URL")]
    pub open_url: Option<String>,

    /// Open the window on the preview of this MCP Bundle (`.mcpb`); nothing is installed
    /// before the user confirms. A bare `FILE.mcpb` argument means the same.
    #[arg(long, value_name = "FILE")]
    pub open_bundle: Option<PathBuf>,

    /// A terminal command; without one the desktop window opens.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The terminal commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Send a message and stream the answer, with tool calls, in the terminal.
    Chat(chat::ChatArgs),
    /// List, show, search, create, rename or delete conversations.
    #[command(subcommand, visible_alias = "conv")]
    Conversations(conversations::ConversationsCmd),
    /// Export conversations as Markdown, JSON or HTML.
    Export(export::ExportArgs),
    /// Import conversations from a Switchboard, ChatGPT or Claude export.
    Import(export::ImportArgs),
    /// Knowledge bases over folders: create, add, remove, list, files, index, search.
    #[command(subcommand, visible_alias = "kb")]
    Knowledge(knowledge::KnowledgeCmd),
    /// The built-in model's GGUF files: list, import, download, remove.
    #[cfg(feature = "local")]
    #[command(subcommand)]
    Models(models::ModelsCmd),
    /// Add, list and test model providers.
    #[command(subcommand)]
    Providers(providers::ProvidersCmd),
    /// Configure MCP servers (list, add, import, export, enable, disable, remove) and try
    /// one out (tools, call, logs).
    #[command(subcommand)]
    Servers(servers::ServersCmd),
    /// Switchboard as an MCP server for other apps: `mcp serve --stdio` serves the enabled
    /// servers' tools, under your approval policy.
    #[command(subcommand)]
    Mcp(mcp::McpCmd),
    /// Serve the enabled servers' tools over HTTP on 127.0.0.1, headless, to the clients made
    /// with `switchboard clients add`.
    Serve(mcp::ServeArgs),
    /// The apps allowed to use `switchboard serve`: add (prints a token once), list, servers,
    /// calls, remove.
    #[command(subcommand)]
    Clients(clients::ClientsCmd),
    /// The runtimes Switchboard brings for MCP servers (uv, Node.js): list, install, remove,
    /// index.
    #[command(subcommand)]
    Runtimes(runtimes::RuntimesCmd),
    /// Projects, named groups of conversations with their own instructions, assistant and
    /// servers: list, create, edit, delete, move.
    #[command(subcommand)]
    Projects(projects::ProjectsCmd),
    /// The database's backups: now, list, restore (at the next start), cancel, remove,
    /// schedule.
    #[command(subcommand)]
    Backups(backups::BackupsCmd),
    /// Sync conversations, assistants, projects and settings with other machines through a
    /// WebDAV server or a synced folder: setup, now, status, conflicts, use, dismiss, off.
    #[command(subcommand)]
    Sync(sync::SyncCmd),
    /// The client the official MCP conformance suite drives: runs the scenario named in
    /// `MCP_CONFORMANCE_SCENARIO` against the scenario server at URL.
    #[command(hide = true)]
    McpConformanceClient {
        /// The scenario server's MCP endpoint.
        url: String,
    },
}

impl Cli {
    /// The profile's directories: `--data-dir`, else `SWITCHBOARD_DATA_DIR`, else the
    /// platform's.
    pub fn paths(&self) -> Result<Paths, switchboard_engine::paths::PathsError> {
        let env = std::env::var(DATA_DIR_ENV).ok();
        Paths::resolve(self.data_dir.as_deref(), env.as_deref())
    }

    /// What the window opens on: `--open-url`'s install link, else `--open-bundle`'s file
    /// (absolute).
    pub fn opened(&self) -> Option<String> {
        let bundle = self.open_bundle.as_ref().map(|file| {
            std::path::absolute(file)
                .unwrap_or_else(|_| file.clone())
                .display()
                .to_string()
        });
        self.open_url.clone().or(bundle)
    }
}

/// A failure the CLI reports in one line before exiting non-zero.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// From the engine.
    #[error(transparent)]
    Engine(#[from] switchboard_engine::EngineError),
    /// From the store.
    #[error(transparent)]
    Store(#[from] switchboard_engine::store::StoreError),
    /// From resolving directories.
    #[error(transparent)]
    Paths(#[from] switchboard_engine::paths::PathsError),
    /// Writing the output failed (e.g. a closed pipe).
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
    /// The command's arguments are wrong in a way clap cannot see.
    #[error("{0}")]
    Usage(String),
    /// The async runtime could not start.
    #[error("cannot start the runtime: {0}")]
    Runtime(String),
}

/// What the terminal shows of the log (`RUST_LOG` overrides it): warnings, but llama.cpp's
/// only when they are errors.
pub const CLI_STDERR_LOG: &str = "warn,llama-cpp-2=error";

/// Runs one terminal command to completion.
pub fn run(cli: &Cli, command: &Command) -> Result<(), CliError> {
    if let Command::McpConformanceClient { url } = command {
        // A test harness: it touches no profile, database or keychain of the user's.
        return runtime()?.block_on(conformance::run(&mut std::io::stdout(), url));
    }
    let paths = cli.paths()?;
    paths.ensure()?;
    let redactor = Redactor::default();
    // llama.cpp's own warnings (e.g. a context longer than the embedder was trained for,
    // which packing several texts into one batch needs) go to the log file, not the terminal.
    let _guard =
        switchboard_engine::logging::init(&paths.log_dir, CLI_STDERR_LOG, redactor.clone())
            .map_err(switchboard_engine::EngineError::from)?;
    runtime_for(command)?.block_on(async {
        let engine = crate::open_engine(paths, redactor, cli.secrets_file).await?;
        match engine.restored() {
            Some(Ok(backup)) => eprintln!("restored the database from the backup {}", backup.name),
            Some(Err(why)) => eprintln!("the scheduled restore was not done: {why}"),
            None => {}
        }
        let result = match command {
            Command::Chat(args) => chat::run(&engine, args).await,
            Command::Conversations(cmd) => conversations::run(&engine, cmd).await,
            Command::Export(args) => export::run_export(&engine, args).await,
            Command::Import(args) => export::run_import(&engine, args).await,
            #[cfg(feature = "local")]
            Command::Models(cmd) => models::run(&engine, cmd).await,
            Command::Providers(cmd) => providers::run(&engine, cmd).await,
            Command::Knowledge(cmd) => knowledge::run(&engine, cmd).await,
            Command::Servers(cmd) => servers::run(&engine, cmd).await,
            Command::Mcp(cmd) => mcp::run(&engine, cmd).await,
            Command::Serve(args) => mcp::run_serve(&engine, args).await,
            Command::Clients(cmd) => clients::run(&engine, cmd).await,
            Command::Backups(cmd) => backups::run(&engine, cmd).await,
            Command::Sync(cmd) => sync::run(&engine, cmd).await,
            Command::Projects(cmd) => projects::run(&engine, cmd).await,
            Command::Runtimes(cmd) => runtimes::run(&engine, cmd).await,
            Command::McpConformanceClient { url } => {
                conformance::run(&mut std::io::stdout(), url).await
            }
        };
        engine.shutdown().await;
        result
    })
}

/// The runtime for `command`: `mcp serve --stdio` on one thread, which reads a message, relays
/// it and writes the answer without waking another (its app waits on each answer, and two
/// workers parked and woke each other for every message); every other command on two.
fn runtime_for(command: &Command) -> Result<tokio::runtime::Runtime, CliError> {
    if !matches!(
        command,
        Command::Mcp(mcp::McpCmd::Serve { stdio: true, .. })
    ) {
        return runtime();
    }
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Runtime(e.to_string()))
}

/// The CLI's async runtime: two worker threads.
fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Runtime(e.to_string()))
}

/// `K<sep>V` items as a map; values are not echoed in errors (they may be secrets).
fn pairs(raw: &[String], sep: char, usage: &str) -> Result<BTreeMap<String, String>, CliError> {
    raw.iter()
        .map(|item| match item.split_once(sep) {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
            _ => Err(CliError::Usage(format!(
                "{usage}, not {:?}",
                item.split(sep).next().unwrap_or_default()
            ))),
        })
        .collect()
}
