//! `switchboard servers list|add|import|export|enable|disable|remove`: the MCP server
//! configuration, in the `mcpServers` format of Claude Desktop's config file; and
//! `servers start|tools|call|logs`, one-shot commands that start one server, use it and stop it
//! (see `servers_run.rs`); and `servers search|install|update`, the MCP Registry and MCP
//! Bundles (see `servers_install.rs`).

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::{ArgGroup, Subcommand};
use switchboard_engine::Engine;
use switchboard_engine::mcp::{Conflict, ImportAction, ImportPreview, ImportReport};
use switchboard_engine::store::ServerRecord;
use switchboard_engine::vocab::server::{Approval, ServerConfig, Transport};

use super::CliError;
use super::pairs;

/// What to do with MCP servers.
#[derive(Debug, Subcommand)]
pub enum ServersCmd {
    /// List the configured servers.
    List {
        /// Print JSON (env and header values included).
        #[arg(long)]
        json: bool,
    },
    /// Add a local (--command) or remote (--url) server.
    #[command(group(ArgGroup::new("target").required(true).args(["command", "url"])))]
    Add {
        /// A unique name for it.
        name: String,
        /// The program to run (a local server speaking over stdin/stdout).
        #[arg(long)]
        command: Option<String>,
        /// An argument of the program (repeatable; `--arg=-y` or `--arg -y`).
        #[arg(
            long = "arg",
            value_name = "ARG",
            allow_hyphen_values = true,
            requires = "command"
        )]
        args: Vec<String>,
        /// An environment variable, `NAME=value` (repeatable).
        #[arg(long = "env", value_name = "NAME=VALUE", requires = "command")]
        env: Vec<String>,
        /// A variable of this environment the server also gets (repeatable); by default a
        /// server gets only HOME, LOGNAME, PATH, SHELL, TERM, USER and its --env.
        #[arg(long = "inherit-env", value_name = "NAME", requires = "command")]
        inherit_env: Vec<String>,
        /// The working directory of the program.
        #[arg(long, value_name = "DIR", requires = "command")]
        cwd: Option<PathBuf>,
        /// The URL of a remote server (streamable HTTP unless --sse).
        #[arg(long)]
        url: Option<String>,
        /// The remote server uses the legacy HTTP+SSE transport.
        #[arg(long, requires = "url")]
        sse: bool,
        /// An extra header, `Name: value` (repeatable).
        #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
        headers: Vec<String>,
    },
    /// Import servers from an `mcpServers` JSON file (`-` reads standard input). Existing
    /// names are skipped unless --replace.
    Import {
        /// The file, e.g. claude_desktop_config.json, or `-`.
        file: PathBuf,
        /// Show what would be imported without changing anything.
        #[arg(long)]
        dry_run: bool,
        /// Replace servers whose names already exist.
        #[arg(long)]
        replace: bool,
    },
    /// Print every server as an `mcpServers` JSON document. Env and header values are left
    /// blank (names kept) unless --with-secrets.
    Export {
        /// Write env and header values in clear (asks first; --yes answers for a script).
        #[arg(long)]
        with_secrets: bool,
        /// With --with-secrets: do not ask.
        #[arg(long, requires = "with_secrets")]
        yes: bool,
    },
    /// Turn a server on.
    Enable {
        /// The server's name or id.
        name: String,
    },
    /// Turn a server off.
    Disable {
        /// The server's name or id.
        name: String,
    },
    /// Set whether a server's tool calls run, ask first or are refused — the chat's and
    /// other apps' through `mcp serve` alike. With --tool, for that one tool (`default` clears
    /// its own policy); a server's `allow` covers only tools marked read-only or
    /// non-destructive, so allow the others one by one.
    Approval {
        /// The server's name or id.
        name: String,
        /// `allow`, `ask` or `deny` (with --tool also `default`).
        policy: String,
        /// One tool of the server.
        #[arg(long)]
        tool: Option<String>,
    },
    /// Remove a server.
    Remove {
        /// The server's name or id.
        name: String,
    },
    /// Start a server and report whether it became ready (its name, version, protocol and
    /// tool count, or why it failed), then stop it: nothing outlives a terminal command.
    Start {
        /// The server's name or id.
        name: String,
    },
    /// Start a server, list its tools (one line each), stop it.
    Tools {
        /// The server's name or id.
        name: String,
    },
    /// Start a server, call one of its tools with JSON arguments, print the result, stop it.
    Call {
        /// The server's name or id.
        name: String,
        /// The tool's name.
        tool: String,
        /// The arguments, a JSON object (default `{}`).
        #[arg(default_value = "{}")]
        json: String,
    },
    /// Start a server, wait until it is ready, print its stderr lines, stop it.
    Logs {
        /// The server's name or id.
        name: String,
    },
    /// Search the MCP Registry (latest versions); with no query, page through all of it.
    Search {
        /// Text to look for in server names.
        #[arg(default_value = "")]
        query: String,
        /// The registry (default: the `mcp.registry_url` setting, else the official one).
        #[arg(long, value_name = "URL")]
        registry: Option<String>,
        /// The next page's cursor, as printed after a page.
        #[arg(long)]
        cursor: Option<String>,
        /// Print the page as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Install a server from the MCP Registry (its name, e.g. io.github.user/server) or from
    /// an MCP Bundle file (FILE.mcpb). Shows what will run and asks first.
    #[command(disable_version_flag = true)]
    Install {
        /// A registry name or a .mcpb file.
        target: String,
        /// The registry version to install (default: the latest).
        #[arg(long)]
        version: Option<String>,
        /// A value for a registry entry's variable, header or argument (repeatable).
        #[arg(long = "env", value_name = "NAME=VALUE")]
        env: Vec<String>,
        /// A value for a bundle's user_config (repeatable).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// The configured server's name (default: from the entry or bundle).
        #[arg(long)]
        name: Option<String>,
        /// Which way to run a registry entry: package:N or remote:N (default: the first
        /// that can be installed).
        #[arg(long)]
        option: Option<String>,
        /// The registry (default: the `mcp.registry_url` setting, else the official one).
        #[arg(long, value_name = "URL")]
        registry: Option<String>,
        /// Do not ask (needed when not run from a terminal).
        #[arg(long)]
        yes: bool,
    },
    /// Update a server installed from the registry to its latest version: shows the change
    /// and asks first.
    Update {
        /// The server's name or id.
        name: String,
        /// Do not ask (needed when not run from a terminal).
        #[arg(long)]
        yes: bool,
    },
}

/// Asks on the terminal whether to write secret values in clear; refuses without one.
async fn confirm_secrets() -> Result<bool, CliError> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() {
        return Err(CliError::Usage(
            "--with-secrets writes env and header values in clear; confirm with --yes when \
             not run from a terminal"
                .into(),
        ));
    }
    let line = tokio::task::spawn_blocking(|| {
        eprint!("Write every server's env and header values (API keys, tokens) in clear? [y/N] ");
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await
    .map_err(|e| CliError::Runtime(e.to_string()))??;
    let yes = matches!(line.trim().to_lowercase().as_str(), "y" | "yes");
    if !yes {
        eprintln!("exporting without the values");
    }
    Ok(yes)
}

/// Runs one servers subcommand.
pub(super) async fn run(engine: &Engine, cmd: &ServersCmd) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match cmd {
        ServersCmd::List { json } => list(&mut out, &engine.mcp().list_servers().await?, *json)?,
        ServersCmd::Add { name, .. } => {
            let record = engine.mcp().add_server(config_of(name, cmd)?).await?;
            writeln!(out, "added {}", describe(&record))?;
        }
        ServersCmd::Import {
            file,
            dry_run,
            replace,
        } => {
            let text = read_input(file)?;
            let on_conflict = if *replace {
                Conflict::Replace
            } else {
                Conflict::Skip
            };
            if *dry_run {
                print_preview(
                    &mut out,
                    &engine.mcp().preview_import(&text, on_conflict).await?,
                )?;
            } else {
                print_report(
                    &mut out,
                    &engine.mcp().import_servers(&text, on_conflict).await?,
                )?;
            }
        }
        ServersCmd::Export { with_secrets, yes } => {
            let with_secrets = *with_secrets && (*yes || confirm_secrets().await?);
            writeln!(out, "{}", engine.mcp().export_servers(with_secrets).await?)?;
        }
        ServersCmd::Enable { name } => {
            let record = engine.mcp().set_server_enabled(name, true).await?;
            writeln!(out, "enabled {}", record.config.name)?;
        }
        ServersCmd::Disable { name } => {
            let record = engine.mcp().set_server_enabled(name, false).await?;
            writeln!(out, "disabled {}", record.config.name)?;
        }
        ServersCmd::Approval { name, policy, tool } => {
            let policy = parse_approval(policy, tool.is_some())?;
            match tool {
                Some(tool) => {
                    engine.mcp().set_tool_policy(name, tool, policy).await?;
                    let said = policy.map_or("default", approval_word);
                    writeln!(out, "{name} {tool}: {said}")?;
                }
                None => {
                    let approval = policy.unwrap_or_default();
                    let records = engine.mcp().list_servers().await?;
                    let Some(record) = records
                        .into_iter()
                        .find(|r| r.config.name == *name || r.id == *name)
                    else {
                        return Err(CliError::Usage(format!(
                            "there is no server named {name:?}"
                        )));
                    };
                    let mut config = record.config;
                    config.approval = approval;
                    engine.mcp().update_server(&record.id, config).await?;
                    writeln!(out, "{name}: {}", approval_word(approval))?;
                }
            }
        }
        ServersCmd::Remove { name } => {
            engine.mcp().remove_server(name).await?;
            writeln!(out, "removed {name}")?;
        }
        ServersCmd::Start { name } => super::servers_run::start(engine, &mut out, name).await?,
        ServersCmd::Tools { name } => super::servers_run::tools(engine, &mut out, name).await?,
        ServersCmd::Call { name, tool, json } => {
            super::servers_run::call(engine, &mut out, name, tool, json).await?;
        }
        ServersCmd::Logs { name } => super::servers_run::logs(engine, &mut out, name).await?,
        ServersCmd::Search {
            query,
            registry,
            cursor,
            json,
        } => {
            let (cursor, registry) = (cursor.as_deref(), registry.as_deref());
            super::servers_install::search(engine, &mut out, query, cursor, registry, *json)
                .await?;
        }
        ServersCmd::Install {
            target,
            version,
            env,
            config,
            name,
            option,
            registry,
            yes,
        } => {
            let args = super::servers_install::InstallArgs {
                target,
                version: version.as_deref(),
                env,
                config,
                name: name.as_deref(),
                option: option.as_deref(),
                registry: registry.as_deref(),
                yes: *yes,
            };
            super::servers_install::install(engine, &mut out, &args).await?;
        }
        ServersCmd::Update { name, yes } => {
            super::servers_install::update(engine, &mut out, name, *yes).await?;
        }
    }
    Ok(())
}

fn list(out: &mut impl Write, records: &[ServerRecord], json: bool) -> Result<(), CliError> {
    if json {
        serde_json::to_writer_pretty(&mut *out, records).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else if records.is_empty() {
        writeln!(
            out,
            "no servers; add one with `switchboard servers add NAME --command CMD` or \
             `switchboard servers import FILE`"
        )?;
    } else {
        for r in records {
            writeln!(out, "{}", describe(r))?;
        }
    }
    Ok(())
}

/// `name  enabled  command line` in one line.
fn describe(r: &ServerRecord) -> String {
    let state = if r.config.enabled {
        "enabled"
    } else {
        "disabled"
    };
    format!("{}  {state}  {}", r.config.name, r.config.command_line())
}

fn print_report(out: &mut impl Write, r: &ImportReport) -> Result<(), CliError> {
    for name in &r.added {
        writeln!(out, "added {name}")?;
    }
    for name in &r.replaced {
        writeln!(out, "replaced {name}")?;
    }
    for name in &r.skipped {
        writeln!(
            out,
            "skipped {name} (it already exists; --replace overwrites it)"
        )?;
    }
    Ok(())
}

fn print_preview(out: &mut impl Write, p: &ImportPreview) -> Result<(), CliError> {
    for e in &p.entries {
        let action = match e.action {
            ImportAction::Add => "would add",
            ImportAction::Replace => "would replace",
            ImportAction::Skip => "would skip (exists)",
        };
        let off = if e.enabled { "" } else { " [disabled]" };
        writeln!(out, "{action} {}{off}: {}", e.name, e.command_line)?;
        // What widens trust (tools run unasked, private addresses, files, inherited variables).
        for note in e.trust.iter().filter(|n| n.widens) {
            writeln!(out, "  ! {}: {}", note.field, note.value)?;
        }
    }
    writeln!(out, "dry run: nothing was changed")?;
    Ok(())
}

fn read_input(file: &PathBuf) -> Result<String, CliError> {
    if file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().lock().read_to_string(&mut text)?;
        return Ok(text);
    }
    std::fs::read_to_string(file)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", file.display())))
}

/// The config an `add` command describes.
fn config_of(name: &str, cmd: &ServersCmd) -> Result<ServerConfig, CliError> {
    let ServersCmd::Add {
        command,
        args,
        env,
        cwd,
        url,
        sse,
        headers,
        inherit_env,
        ..
    } = cmd
    else {
        return Err(CliError::Usage("not an add command".into()));
    };
    let transport = match (command, url) {
        (Some(command), _) => Transport::Stdio {
            command: command.clone(),
            args: args.clone(),
            env: pairs(env, '=', "an env variable must look like `NAME=value`")?,
            cwd: cwd.clone(),
        },
        (None, Some(url)) => {
            let url = url.clone();
            let headers = pairs(headers, ':', "a header must look like `Name: value`")?;
            if *sse {
                Transport::Sse { url, headers }
            } else {
                Transport::Http { url, headers }
            }
        }
        (None, None) => return Err(CliError::Usage("give --command or --url".into())),
    };
    let mut config = ServerConfig::new(name, transport);
    config.inherit_env.clone_from(inherit_env);
    Ok(config)
}

/// `allow`, `ask`, `deny` (and, for one tool, `default`: `None`).
fn parse_approval(word: &str, for_tool: bool) -> Result<Option<Approval>, CliError> {
    match word.trim().to_ascii_lowercase().as_str() {
        "allow" => Ok(Some(Approval::Allow)),
        "ask" => Ok(Some(Approval::Ask)),
        "deny" => Ok(Some(Approval::Deny)),
        "default" if for_tool => Ok(None),
        _ => Err(CliError::Usage(format!(
            "the policy is allow, ask or deny{}, not {word:?}",
            if for_tool { " (or default)" } else { "" }
        ))),
    }
}

fn approval_word(approval: Approval) -> &'static str {
    match approval {
        Approval::Allow => "allow",
        Approval::Ask => "ask",
        Approval::Deny => "deny",
    }
}
