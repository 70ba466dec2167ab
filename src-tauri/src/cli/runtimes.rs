//! `switchboard runtimes`: the runtimes Switchboard brings for MCP servers (`uv`, Node.js) —
//! list them, install one from the package index (PyPI unless `runtimes index` set a mirror),
//! remove one.

use std::io::Write;

use clap::Subcommand;
use serde_json::json;
use switchboard_engine::Engine;
use switchboard_engine::runtimes::{self, Runtime};

use super::CliError;

/// `switchboard runtimes …`.
#[derive(Debug, Subcommand)]
pub enum RuntimesCmd {
    /// List the runtimes installed, their versions and where they came from.
    List,
    /// Fetch a runtime (`uv` or `node`) from the package index, check it and install it for
    /// servers only (never on your own PATH).
    Install {
        /// `uv` (for uvx servers) or `node` (for npx servers).
        name: String,
        /// The package index, for this install (default: the `runtimes index` setting, else
        /// https://pypi.org).
        #[arg(long)]
        index: Option<String>,
    },
    /// Remove a runtime.
    Remove {
        /// `uv` or `node`.
        name: String,
    },
    /// Show or set the package index runtimes come from (a PyPI mirror, e.g.
    /// https://pypi.tuna.tsinghua.edu.cn); `--default` goes back to PyPI.
    Index {
        /// The index's URL.
        url: Option<String>,
        /// Use PyPI again.
        #[arg(long, conflicts_with = "url")]
        default: bool,
    },
}

fn runtime(name: &str) -> Result<Runtime, CliError> {
    Runtime::parse(name).ok_or_else(|| {
        CliError::Usage(format!(
            "{name:?} is not a runtime Switchboard brings: say uv or node"
        ))
    })
}

/// Runs one `runtimes` subcommand.
pub(super) async fn run(engine: &Engine, cmd: &RuntimesCmd) -> Result<(), CliError> {
    let brought = engine.runtimes();
    let mut out = std::io::stdout().lock();
    let failed = |e: runtimes::RuntimeError| CliError::Engine(e.into());
    match cmd {
        RuntimesCmd::List => {
            let installed = brought.list();
            if installed.is_empty() {
                writeln!(
                    out,
                    "no runtimes installed (switchboard runtimes install uv|node)"
                )?;
            }
            for r in installed {
                let mb = r.bytes.div_ceil(1024 * 1024);
                writeln!(
                    out,
                    "{}  {}  {}  ({mb} MB wheel, sha256 {})",
                    r.runtime.name(),
                    r.version,
                    r.bin.display(),
                    &r.sha256[..12]
                )?;
            }
        }
        RuntimesCmd::Install { name, index } => {
            let runtime = runtime(name)?;
            let index = match index {
                Some(index) => index.clone(),
                None => runtimes::index(engine.store()).await.map_err(failed)?,
            };
            writeln!(out, "fetching {} from {index} …", runtime.name())?;
            out.flush()?;
            let installed = brought.install(runtime, &index).await.map_err(failed)?;
            writeln!(
                out,
                "installed {} {} in {} (checked against the index's SHA-256); servers find {} there",
                runtime.name(),
                installed.version,
                installed.bin.display(),
                runtime.programs().join(", ")
            )?;
        }
        RuntimesCmd::Remove { name } => {
            let runtime = runtime(name)?;
            match brought.remove(runtime).map_err(failed)? {
                true => writeln!(out, "removed {}", runtime.name())?,
                false => writeln!(out, "{} was not installed", runtime.name())?,
            }
        }
        RuntimesCmd::Index { url, default } => {
            let store = engine.store();
            if *default {
                store
                    .set_setting(runtimes::INDEX_SETTING, &json!(null))
                    .await?;
            } else if let Some(url) = url {
                let parsed = url::Url::parse(url)
                    .ok()
                    .filter(|u| matches!(u.scheme(), "http" | "https"));
                if parsed.is_none() {
                    return Err(CliError::Usage(format!("{url:?} is not an http(s) URL")));
                }
                store
                    .set_setting(runtimes::INDEX_SETTING, &json!(url))
                    .await?;
            }
            let index = runtimes::index(store).await.map_err(failed)?;
            writeln!(out, "runtimes come from {index}")?;
        }
    }
    Ok(())
}
