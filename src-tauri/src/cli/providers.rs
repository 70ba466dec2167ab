//! `switchboard providers presets|add|list|models|test|key|remove`.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use clap::Subcommand;
use switchboard_engine::Engine;
use switchboard_engine::providers::{NewProvider, ProviderView};

use super::CliError;

/// What to do with model providers.
#[derive(Debug, Subcommand)]
pub enum ProvidersCmd {
    /// List the presets a provider can be made from.
    Presets,
    /// Add a provider from a preset.
    Add {
        /// A unique name for it.
        name: String,
        /// The preset: local (the built-in model), openai, anthropic, gemini, ollama,
        /// dashscope, deepseek, openrouter, lmstudio, vllm or openai-compatible.
        #[arg(long)]
        preset: String,
        /// The base URL, when not the preset's.
        #[arg(long)]
        base_url: Option<String>,
        /// Read the API key from the first line of standard input (kept in the keychain).
        #[arg(long)]
        api_key_stdin: bool,
        /// An extra header, `Name: value` (repeatable).
        #[arg(long = "header", value_name = "NAME: VALUE")]
        headers: Vec<String>,
    },
    /// List the configured providers.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the models a provider offers.
    Models {
        /// The provider's name or id.
        name: String,
    },
    /// Check that a provider answers with its credentials.
    Test {
        /// The provider's name or id.
        name: String,
    },
    /// Set the API key from standard input, or forget it with --clear.
    Key {
        /// The provider's name or id.
        name: String,
        /// Forget the stored key.
        #[arg(long)]
        clear: bool,
    },
    /// Remove a provider and its stored key.
    Remove {
        /// The provider's name or id.
        name: String,
    },
}

/// Runs one providers subcommand.
pub(super) async fn run(engine: &Engine, cmd: &ProvidersCmd) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match cmd {
        ProvidersCmd::Presets => {
            for p in engine.providers().presets() {
                let url = if p.base_url.is_empty() {
                    "(your URL)"
                } else {
                    &p.base_url
                };
                writeln!(out, "{:<18} {:<26} {url}", p.id, p.name)?;
            }
        }
        ProvidersCmd::Add {
            name,
            preset,
            base_url,
            api_key_stdin,
            headers,
        } => {
            let new = NewProvider {
                name: name.clone(),
                preset: preset.clone(),
                base_url: base_url.clone(),
                api_key: if *api_key_stdin {
                    Some(read_line()?)
                } else {
                    None
                },
                headers: parse_headers(headers)?,
            };
            let view = engine.providers().add_provider(new).await?;
            writeln!(out, "added {}", describe(&view))?;
        }
        ProvidersCmd::List { json } => {
            let views = engine.providers().list_providers().await?;
            if *json {
                serde_json::to_writer_pretty(&mut out, &views).map_err(std::io::Error::from)?;
                writeln!(out)?;
            } else if views.is_empty() {
                writeln!(
                    out,
                    "no providers; add one with `switchboard providers add NAME --preset ollama`"
                )?;
            }
            for v in views.iter().filter(|_| !*json) {
                writeln!(out, "{}", describe(v))?;
            }
        }
        ProvidersCmd::Models { name } => {
            for m in engine.providers().provider_models(name).await? {
                writeln!(out, "{}", m.id)?;
            }
        }
        ProvidersCmd::Test { name } => {
            let t = engine.providers().test_provider(name).await?;
            writeln!(out, "ok: {} models in {} ms", t.models, t.latency_ms)?;
        }
        ProvidersCmd::Key { name, clear } => {
            let key = if *clear { None } else { Some(read_line()?) };
            let view = engine.providers().set_provider_key(name, key).await?;
            writeln!(out, "{}", describe(&view))?;
        }
        ProvidersCmd::Remove { name } => {
            engine.providers().remove_provider(name).await?;
            writeln!(out, "removed {name}")?;
        }
    }
    Ok(())
}

/// `name (kind) url key: …` in one line.
fn describe(v: &ProviderView) -> String {
    let p = &v.provider;
    let key = match (&v.key.source, &v.key.masked) {
        (Some(src), Some(m)) => format!(
            "key {m} from {}",
            serde_json::to_string(src)
                .unwrap_or_default()
                .trim_matches('"')
        ),
        _ => "no key".into(),
    };
    let kind = serde_json::to_string(&p.kind).unwrap_or_default();
    format!(
        "{} ({}) {} — {key}",
        p.name,
        kind.trim_matches('"'),
        p.base_url
    )
}

fn read_line() -> Result<String, CliError> {
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim().to_owned())
}

fn parse_headers(raw: &[String]) -> Result<BTreeMap<String, String>, CliError> {
    raw.iter()
        .map(|h| match h.split_once(':') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
            _ => Err(CliError::Usage(format!(
                "a header must look like `Name: value`, not {h:?}"
            ))),
        })
        .collect()
}
