//! `switchboard knowledge create|add|remove|embedder|list|files|index|search`: knowledge bases from the
//! terminal. Indexing runs in the foreground here (the command returns when the base is up to
//! date) and prints what changed.

use std::io::Write;
use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};
use switchboard_engine::Engine;
use switchboard_engine::knowledge::{IndexReport, Mode};
use switchboard_engine::vocab::knowledge::EmbedderChoice;

use super::CliError;

/// What to do with knowledge bases.
#[derive(Debug, Subcommand)]
pub enum KnowledgeCmd {
    /// Create a knowledge base over folders or files, and index it.
    Create {
        /// Its name.
        name: String,
        /// Folders or files it holds.
        paths: Vec<PathBuf>,
        /// Its embedder: `builtin` (the default) or PROVIDER/MODEL, a configured provider's
        /// embedding model (e.g. `ollama/nomic-embed-text`).
        #[arg(long)]
        embedder: Option<String>,
    },
    /// Choose a knowledge base's embedder and embed every file again.
    Embedder {
        /// The base's name.
        name: String,
        /// `builtin` or PROVIDER/MODEL.
        embedder: String,
    },
    /// Add a folder or file to a knowledge base, and index it.
    Add {
        /// The base's name.
        name: String,
        /// The folder or file.
        path: PathBuf,
    },
    /// Remove a folder or file from a knowledge base (with --source), else the whole base
    /// (the files themselves are never touched).
    Remove {
        /// The base's name.
        name: String,
        /// Only this folder or file.
        #[arg(long)]
        source: Option<String>,
    },
    /// List the knowledge bases.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List a knowledge base's files, with their errors.
    Files {
        /// The base's name.
        name: String,
    },
    /// Bring a knowledge base up to date with its folders.
    Index {
        /// The base's name.
        name: String,
    },
    /// Search a knowledge base.
    Search {
        /// The base's name.
        name: String,
        /// The question.
        query: String,
        /// How many passages.
        #[arg(long, default_value_t = 5)]
        count: usize,
        /// Which ranking: hybrid (default), keywords or vectors.
        #[arg(long, value_enum, default_value_t = SearchMode::Hybrid)]
        mode: SearchMode,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// A search's ranking.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SearchMode {
    /// Keywords and vectors, fused.
    Hybrid,
    /// The keyword index alone.
    Keywords,
    /// The vectors alone.
    Vectors,
}

/// Runs one knowledge command.
pub(super) async fn run(engine: &Engine, cmd: &KnowledgeCmd) -> Result<(), CliError> {
    let out = &mut std::io::stdout();
    let kb = engine.knowledge();
    match cmd {
        KnowledgeCmd::Create {
            name,
            paths,
            embedder,
        } => {
            let choice = embedder.as_deref().map(choice).transpose()?;
            let absolute = absolute(paths)?;
            let refs: Vec<&std::path::Path> = absolute.iter().map(PathBuf::as_path).collect();
            let base = engine.create_knowledge_base(name, &refs).await?;
            if let Some(choice) = choice
                && let Err(error) = kb.set_embedder(&base.name, &choice).await
            {
                // Nothing half made: a base whose embedder cannot be had goes again.
                engine.delete_knowledge_base(&base.name).await?;
                return Err(engine_error(error));
            }
            report(out, &kb.index(&base.name).await.map_err(engine_error)?)?;
        }
        KnowledgeCmd::Embedder { name, embedder } => {
            let base = (kb.set_embedder(name, &choice(embedder)?).await).map_err(engine_error)?;
            report(out, &kb.index(&base.name).await.map_err(engine_error)?)?;
        }
        KnowledgeCmd::Add { name, path } => {
            let path = absolute(std::slice::from_ref(path))?.remove(0);
            let base = engine.add_knowledge_source(name, &path).await?;
            report(out, &kb.index(&base.name).await.map_err(engine_error)?)?;
        }
        KnowledgeCmd::Remove {
            name,
            source: Some(source),
        } => {
            // As stored: absolute and with links resolved, when it still exists.
            let given = std::path::absolute(source).unwrap_or_else(|_| PathBuf::from(source));
            let stored = std::fs::canonicalize(&given).unwrap_or(given);
            let source = stored.to_string_lossy();
            let base = engine.remove_knowledge_source(name, &source).await?;
            report(out, &kb.index(&base.name).await.map_err(engine_error)?)?;
        }
        KnowledgeCmd::Remove { name, source: None } => {
            engine.delete_knowledge_base(name).await?;
            writeln!(out, "removed the knowledge base {name:?}")?;
        }
        KnowledgeCmd::List { json } => {
            let bases = kb.list().await.map_err(engine_error)?;
            if *json {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&bases).unwrap_or_default()
                )?;
            }
            for b in bases.iter().filter(|_| !json) {
                writeln!(
                    out,
                    "{}\t{} files ({} failed)\t{} passages\t{}\t{}",
                    b.name,
                    b.files,
                    b.failed,
                    b.chunks,
                    b.embedder,
                    b.sources.join(", ")
                )?;
            }
        }
        KnowledgeCmd::Files { name } => {
            for f in kb.files(name).await.map_err(engine_error)? {
                match &f.error {
                    Some(error) => writeln!(out, "{}\terror: {error}", f.path)?,
                    None => writeln!(out, "{}\t{} passages", f.path, f.chunks)?,
                }
            }
        }
        KnowledgeCmd::Index { name } => report(out, &kb.index(name).await.map_err(engine_error)?)?,
        KnowledgeCmd::Search {
            name,
            query,
            count,
            mode,
            json,
        } => {
            let mode = match mode {
                SearchMode::Hybrid => Mode::Hybrid,
                SearchMode::Keywords => Mode::Keywords,
                SearchMode::Vectors => Mode::Vectors,
            };
            let found = kb
                .search(name, query, *count, mode)
                .await
                .map_err(engine_error)?;
            if *json {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&found).unwrap_or_default()
                )?;
                return Ok(());
            }
            for (i, p) in found.iter().enumerate() {
                let place = match (p.page, p.line) {
                    (Some(page), _) => format!(", page {page}"),
                    (None, Some(line)) => format!(":{line}"),
                    _ => String::new(),
                };
                writeln!(out, "[{}] {}{place}\n{}\n", i + 1, p.path, p.text)?;
            }
        }
    }
    Ok(())
}

fn engine_error(e: switchboard_engine::knowledge::KnowledgeError) -> CliError {
    CliError::Engine(e.into())
}

/// `builtin` or PROVIDER/MODEL as an embedder choice.
fn choice(given: &str) -> Result<EmbedderChoice, CliError> {
    if given.trim().eq_ignore_ascii_case("builtin") {
        return Ok(EmbedderChoice::Builtin);
    }
    match given.split_once('/') {
        Some((provider, model)) if !provider.trim().is_empty() && !model.trim().is_empty() => {
            Ok(EmbedderChoice::Provider {
                provider: provider.trim().to_owned(),
                model: model.trim().to_owned(),
            })
        }
        _ => Err(CliError::Usage(format!(
            "--embedder {given:?}: give `builtin` or PROVIDER/MODEL, e.g. ollama/nomic-embed-text"
        ))),
    }
}

/// `paths` made absolute against the working directory.
fn absolute(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    paths
        .iter()
        .map(|p| std::path::absolute(p).map_err(CliError::Output))
        .collect()
}

fn report(out: &mut impl Write, r: &IndexReport) -> Result<(), CliError> {
    writeln!(
        out,
        "{}: {} indexed ({} passages), {} unchanged, {} removed, {} failed",
        r.base, r.indexed, r.chunks, r.unchanged, r.removed, r.failed
    )?;
    Ok(())
}
