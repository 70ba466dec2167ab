//! `switchboard runtimes`: the runtimes Switchboard brings for MCP servers (`uv`, Node.js) —
//! list them, install one from the package index (PyPI unless `runtimes index` set a mirror),
//! remove one — and where servers' packages come from (index, npm registry, proxy).

use std::io::Write;

use clap::Subcommand;
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
    /// Show or set the package index runtimes come from, which servers' uv and pip also use
    /// (a PyPI mirror, e.g. https://pypi.tuna.tsinghua.edu.cn); `--default` goes back to PyPI.
    Index {
        /// The index's URL.
        url: Option<String>,
        /// Use PyPI again.
        #[arg(long, conflicts_with = "url")]
        default: bool,
    },
    /// Show or set the npm registry servers' npm and npx use; `--default` clears it.
    NpmRegistry {
        /// The registry's URL (e.g. https://registry.npmmirror.com).
        url: Option<String>,
        /// Use npm's own default again.
        #[arg(long, conflicts_with = "url")]
        default: bool,
    },
    /// Show or set the HTTP proxy servers use; `--none` clears it.
    Proxy {
        /// The proxy's URL (e.g. http://127.0.0.1:7890).
        url: Option<String>,
        /// No proxy.
        #[arg(long, conflicts_with = "url")]
        none: bool,
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
            let set = set_source(engine, 0, url.as_deref(), *default).await?;
            writeln!(
                out,
                "runtimes and servers' packages come from {}",
                set.index
            )?;
        }
        RuntimesCmd::NpmRegistry { url, default } => {
            let set = set_source(engine, 1, url.as_deref(), *default).await?;
            let registry = set.npm_registry.as_deref();
            writeln!(
                out,
                "servers' npm uses {}",
                registry.unwrap_or("its own default registry")
            )?;
        }
        RuntimesCmd::Proxy { url, none } => {
            let set = set_source(engine, 2, url.as_deref(), *none).await?;
            writeln!(
                out,
                "servers' proxy: {}",
                set.proxy.as_deref().unwrap_or("none")
            )?;
        }
    }
    Ok(())
}

/// Sets package source `which` (0 the index, 1 the npm registry, 2 the proxy) to `url`, or
/// clears it, keeping the other two; with neither, only reads them.
async fn set_source(
    engine: &Engine,
    which: usize,
    url: Option<&str>,
    clear: bool,
) -> Result<runtimes::RuntimesOverview, CliError> {
    let now = runtimes::overview(engine.runtimes(), engine.store()).await;
    let now = now.map_err(|e| CliError::Engine(e.into()))?;
    let mut sources = [Some(now.index), now.npm_registry, now.proxy];
    if clear {
        sources[which] = None;
    } else if let Some(url) = url {
        sources[which] = Some(url.to_owned());
    }
    let [index, registry, proxy] = sources;
    let set = engine.set_package_sources(index.as_deref(), registry.as_deref(), proxy.as_deref());
    Ok(set.await?)
}
