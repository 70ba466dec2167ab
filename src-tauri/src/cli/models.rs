//! `switchboard models list|catalogue|import PATH|download URL-OR-ID|remove NAME`: the
//! built-in model's GGUF files in the profile's `models/` folder, and the recommended ones. Importing or downloading a model also adds the
//! built-in provider ("On this computer") when there is none, so `switchboard chat --provider
//! local --model NAME …` works next.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;
use switchboard_engine::Engine;
use switchboard_engine::local::catalogue;
use switchboard_engine::local::download::{DownloadRequest, download};
use switchboard_engine::local::{LocalModel, ModelsDir};
use switchboard_engine::provider::ProviderError;
use tokio_util::sync::CancellationToken;

use super::CliError;

/// What to do with the built-in model's files.
#[derive(Debug, Subcommand)]
pub enum ModelsCmd {
    /// List the models in the models folder (name and size).
    List,
    /// List the recommended models (the one for this machine's memory marked `*`).
    Catalogue,
    /// Copy a `.gguf` file into the models folder.
    Import {
        /// The GGUF file.
        path: PathBuf,
    },
    /// Download a `.gguf` into the models folder (resumes a cut-off download; Ctrl-C cancels).
    Download {
        /// The file's http(s) URL (e.g. a Hugging Face `resolve/` link), or the id of a model
        /// of `switchboard models catalogue` (its URL and SHA-256 are used).
        url: String,
        /// The file's SHA-256 (hex); a file that does not match is deleted.
        #[arg(long)]
        sha256: Option<String>,
    },
    /// Delete a model from the models folder.
    Remove {
        /// The model's name (its file name, with or without `.gguf`).
        name: String,
    },
}

/// Runs one models subcommand.
pub(super) async fn run(engine: &Engine, cmd: &ModelsCmd) -> Result<(), CliError> {
    let models = engine.providers().models_dir();
    let local = |e| CliError::Engine(ProviderError::from(e).into());
    let mut out = std::io::stdout().lock();
    match cmd {
        ModelsCmd::List => {
            let list = models.list().map_err(local)?;
            if list.is_empty() {
                writeln!(
                    out,
                    "no models in {}; add one with `switchboard models import FILE.gguf`",
                    models.path().display()
                )?;
            }
            for m in list {
                writeln!(
                    out,
                    "{:<48} {:>10}  {}",
                    m.name,
                    megabytes(m.size),
                    facts(&m)
                )?;
            }
        }
        ModelsCmd::Import { path } => {
            let source = path.clone();
            let dir = models.clone();
            let model = tokio::task::spawn_blocking(move || dir.import(&source))
                .await
                .map_err(|e| CliError::Runtime(e.to_string()))?
                .map_err(local)?;
            let provider = engine.providers().ensure_local_provider().await?;
            writeln!(
                out,
                "imported {} ({}) for the provider {:?}; chat with it: switchboard chat \
                 --provider local --model {} …",
                model.name,
                megabytes(model.size),
                provider.provider.name,
                model.name
            )?;
        }
        ModelsCmd::Catalogue => {
            for m in catalogue::for_this_machine() {
                let mark = if m.recommended { "*" } else { " " };
                writeln!(
                    out,
                    "{mark} {:<24} {:<24} {:>10}  {} · {} · {}-token context · needs {} GiB",
                    m.id,
                    m.name,
                    megabytes(m.size),
                    m.quantization,
                    m.parameters,
                    m.context_length,
                    m.min_memory_gib
                )?;
            }
            writeln!(
                out,
                "* recommended for this machine; get one: switchboard models download ID"
            )?;
        }
        ModelsCmd::Download { url, sha256 } => {
            let request = download_request(url, sha256.as_deref())?;
            let model = fetch(engine, &models, &request).await?;
            engine.providers().ensure_local_provider().await?;
            writeln!(out, "downloaded {} ({})", model.name, megabytes(model.size))?;
        }
        ModelsCmd::Remove { name } => {
            models.remove(name).map_err(local)?;
            writeln!(out, "removed {name}")?;
        }
    }
    Ok(())
}

/// The download of `url`, or of the catalogue model with that id (with its SHA-256).
fn download_request(url: &str, sha256: Option<&str>) -> Result<DownloadRequest, CliError> {
    if url.contains("://") {
        return Ok(DownloadRequest {
            url: url.to_owned(),
            sha256: sha256.map(str::to_owned),
        });
    }
    let known = catalogue::catalogue();
    let model = known.iter().find(|m| m.id == url).ok_or_else(|| {
        let ids: Vec<&str> = known.iter().map(|m| m.id.as_str()).collect();
        CliError::Usage(format!(
            "{url:?} is neither a URL nor a catalogue model; the catalogue has: {}",
            ids.join(", ")
        ))
    })?;
    Ok(DownloadRequest {
        url: model.url.clone(),
        sha256: Some(sha256.unwrap_or(&model.sha256).to_owned()),
    })
}

/// Downloads with a progress line on stderr; Ctrl-C cancels.
async fn fetch(
    engine: &Engine,
    models: &ModelsDir,
    request: &DownloadRequest,
) -> Result<LocalModel, CliError> {
    let client = engine.providers().http_client()?;
    let cancel = CancellationToken::new();
    let on_ctrl_c = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        })
    };
    let mut shown = 0u64;
    let result = download(&client, models, request, &cancel, |p| {
        if p.received >= shown + 10_000_000 || Some(p.received) == p.total {
            shown = p.received;
            let total = p.total.map(megabytes).unwrap_or_else(|| "?".into());
            eprint!("\r{} of {total}", megabytes(p.received));
        }
    })
    .await;
    on_ctrl_c.abort();
    eprintln!();
    result.map_err(|e| CliError::Engine(ProviderError::from(e).into()))
}

/// `Q4_1 · 135M · 8192-token context · tools`, from the file's header.
fn facts(m: &LocalModel) -> String {
    let Some(info) = &m.info else {
        return "(unreadable header)".into();
    };
    let mut parts: Vec<String> = Vec::new();
    parts.extend(info.quantization.clone());
    parts.extend(info.size_label.clone());
    parts.extend(info.context_length.map(|n| format!("{n}-token context")));
    parts.push(
        if info.supports_tools {
            "tools"
        } else {
            "no tool template"
        }
        .into(),
    );
    parts.join(" · ")
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}
