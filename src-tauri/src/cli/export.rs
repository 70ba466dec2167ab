//! `switchboard export` and `switchboard import`: conversations to Markdown, JSON or HTML,
//! and back in from our JSON or ChatGPT's and Claude's exports (with a dry run).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use switchboard_engine::Engine;
use switchboard_engine::export::{
    ExportFormat, ExportRequest, ExportScope, ImportResult, export, import_file,
};
use switchboard_engine::store::MergeAction;

use super::CliError;

/// The formats on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum Format {
    /// Markdown, images beside the files.
    Md,
    /// Lossless JSON (one file).
    Json,
    /// Self-contained HTML.
    Html,
}

/// `switchboard export`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("scope").multiple(false).args(["all", "id", "search", "project"])))]
pub struct ExportArgs {
    /// The format.
    #[arg(long, value_enum)]
    format: Format,
    /// Every conversation, archived ones too.
    #[arg(long)]
    all: bool,
    /// These conversations (repeat, or give several).
    #[arg(long, num_args = 1..)]
    id: Vec<String>,
    /// The conversations with a message matching these words.
    #[arg(long)]
    search: Option<String>,
    /// The conversations of this project (its name or id).
    #[arg(long, value_name = "NAME")]
    project: Option<String>,
    /// A file (JSON; .md or .html for one conversation) or a folder.
    #[arg(long)]
    out: PathBuf,
    /// Leave tool results out (Markdown and HTML).
    #[arg(long)]
    no_tool_results: bool,
    /// Leave reasoning out (Markdown and HTML).
    #[arg(long)]
    no_reasoning: bool,
}

/// `switchboard import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Our JSON export, or ChatGPT's or Claude's `conversations.json`.
    file: PathBuf,
    /// Show what would change without changing anything.
    #[arg(long)]
    dry_run: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `switchboard export`.
pub(super) async fn run_export(engine: &Engine, args: &ExportArgs) -> Result<(), CliError> {
    if !args.all && args.id.is_empty() && args.search.is_none() && args.project.is_none() {
        return Err(CliError::Usage(
            "say which conversations to export: --all, --id ID…, --search QUERY or --project NAME"
                .into(),
        ));
    }
    let scope = if args.all {
        ExportScope::All
    } else if let Some(project) = &args.project {
        ExportScope::Project {
            project: project.clone(),
        }
    } else if let Some(query) = &args.search {
        ExportScope::Search {
            query: query.clone(),
        }
    } else {
        ExportScope::Ids {
            ids: args.id.clone(),
        }
    };
    let req = ExportRequest {
        format: match args.format {
            Format::Md => ExportFormat::Markdown,
            Format::Json => ExportFormat::Json,
            Format::Html => ExportFormat::Html,
        },
        scope,
        out: args.out.display().to_string(),
        no_tool_results: args.no_tool_results,
        no_reasoning: args.no_reasoning,
    };
    let summary = export(engine.store(), &req, |_, _| {})
        .await
        .map_err(switchboard_engine::EngineError::from)?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "exported {} conversations ({} messages) to {} ({} files)",
        summary.conversations, summary.messages, summary.path, summary.files
    )?;
    Ok(())
}

/// Runs `switchboard import`.
pub(super) async fn run_import(engine: &Engine, args: &ImportArgs) -> Result<(), CliError> {
    let result = import_file(engine.store(), &args.file, args.dry_run)
        .await
        .map_err(switchboard_engine::EngineError::from)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &result).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        print_report(&mut out, &result)?;
    }
    Ok(())
}

fn print_report(out: &mut impl Write, result: &ImportResult) -> std::io::Result<()> {
    let r = &result.report;
    for e in &r.entries {
        let action = match (e.action, r.dry_run) {
            (MergeAction::Add, true) => "would add",
            (MergeAction::Add, false) => "added",
            (MergeAction::Merge, true) => "would merge",
            (MergeAction::Merge, false) => "merged",
            (MergeAction::Skip, _) => "skipped",
            (MergeAction::Conflict, _) => "conflict",
        };
        let title = if e.title.is_empty() {
            "(untitled)"
        } else {
            e.title.as_str()
        };
        writeln!(
            out,
            "{action:<12} {}  {title}  (+{} messages, {} same, {} conflicting)",
            e.id, e.messages_added, e.messages_skipped, e.messages_conflicted
        )?;
        for c in &e.conflicts {
            writeln!(out, "             {c}")?;
        }
    }
    let (add, merge, note) = if r.dry_run {
        ("to add", "to merge", " (dry run: nothing was changed)")
    } else {
        ("added", "merged", "")
    };
    writeln!(
        out,
        "{} export{note}: {} {add}, {} {merge}, {} skipped, {} with conflicts; {} new messages",
        source_name(result),
        r.added,
        r.merged,
        r.skipped,
        r.conflicted,
        r.messages_added
    )
}

fn source_name(result: &ImportResult) -> &'static str {
    match result.source {
        switchboard_engine::export::ImportSource::Switchboard => "Switchboard",
        switchboard_engine::export::ImportSource::Chatgpt => "ChatGPT",
        switchboard_engine::export::ImportSource::Claude => "Claude",
    }
}
