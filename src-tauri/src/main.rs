//! Entry point: the desktop window without a subcommand, a terminal command with one. Every
//! failure ends in one line on stderr and a non-zero exit.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use switchboard_app::cli::{self, Cli};

fn main() -> ExitCode {
    let args = switchboard_app::links::link_as_option(std::env::args_os());
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let result = match &cli.command {
        Some(command) => cli::run(&cli, command).map_err(|e| e.to_string()),
        None => cli.paths().map_err(|e| e.to_string()).and_then(|paths| {
            switchboard_app::run_gui(paths, cli.secrets_file, cli.opened())
                .map_err(|e| e.to_string())
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // A message listing several problems (e.g. a config file's) has one per line.
            for line in message.lines() {
                eprintln!("switchboard: {line}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Help and version go to stdout with success; anything else is one line and exit code 2.
fn usage_error(e: &clap::Error) -> ExitCode {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let rendered = e.render().to_string();
    let first = rendered.lines().next().unwrap_or("invalid arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    eprintln!("switchboard: {first} (see `switchboard --help`)");
    ExitCode::from(2)
}
