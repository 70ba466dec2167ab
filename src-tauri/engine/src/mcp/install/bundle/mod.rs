//! MCP Bundles (`.mcpb`): a zip with a `manifest.json` (the MCPB manifest: name, version,
//! author, server type and entry point, `mcp_config`, tools, prompts, `user_config`,
//! compatibility). [`preview`] reads and checks one without unpacking it; [`unpack()`] puts it
//! into `<bundles>/<name>/<version>/` with every path checked (nothing is left on disk when
//! it is refused); [`server_config`] makes the configured server from the manifest's
//! `mcp_config` with its substitutions (`${__dirname}`, `${user_config.KEY}`, `${HOME}`…).

mod manifest;
#[cfg(test)]
mod tests;
mod unpack;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub(crate) use manifest::Manifest;
pub use manifest::{NamedItem, UserConfigField};
pub(crate) use unpack::{Limits, MAX_TOTAL_BYTES, unpack};

use crate::vocab::error::InstallError;
use crate::vocab::server::ServerSource;
use crate::vocab::server::{ServerConfig, Transport};

/// This computer's platform as manifests name it (`darwin`, `win32`, `linux`).
pub(crate) const PLATFORM: &str = match std::env::consts::OS.as_bytes() {
    b"macos" => "darwin",
    b"windows" => "win32",
    _ => std::env::consts::OS,
};

/// What the bundle trailer written by `mcpb sign` starts and ends with.
const SIGNATURE_END: &[u8] = b"MCPB_SIG_END";

/// A bundle as shown before it is installed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BundlePreview {
    /// The manifest's name (its folder's name).
    pub name: String,
    /// Its display name, else its name.
    pub display_name: String,
    /// Its version.
    pub version: String,
    /// What it does.
    pub description: String,
    /// Who made it.
    pub author: String,
    /// `node`, `python`, `binary` or `uv`.
    pub server_type: String,
    /// The file the server starts from, inside the bundle.
    pub entry_point: String,
    /// The command it runs (before substitution), e.g. `node ${__dirname}/server/index.js`.
    pub command_line: String,
    /// The tools it declares.
    pub tools: Vec<NamedItem>,
    /// The prompts it declares.
    pub prompts: Vec<NamedItem>,
    /// What it asks the user for, by key.
    #[ts(type = "Record<string, UserConfigField>")]
    pub user_config: BTreeMap<String, UserConfigField>,
    /// The platforms it supports (empty: any).
    pub platforms: Vec<String>,
    /// The runtimes it needs, e.g. `node` → `>=18`.
    pub runtimes: BTreeMap<String, String>,
    /// Whether it carries a signature block (`mcpb sign`); it is not verified here.
    pub signed: bool,
    /// Files in it and their total unpacked size.
    pub files: usize,
    /// The total unpacked size in bytes.
    #[ts(type = "number")]
    pub unpacked_bytes: u64,
}

/// What the user gives when installing a bundle.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BundleInstall {
    /// The configured server's name; none: the manifest's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub server_name: Option<String>,
    /// `user_config` values by key.
    #[serde(default)]
    pub config: BTreeMap<String, String>,
}

/// Reads and checks the bundle at `file` (manifest, every entry's path, sizes, the entry
/// point) without unpacking it.
pub(crate) fn preview(file: &Path) -> Result<BundlePreview, InstallError> {
    let bytes = read_file(file)?;
    let listing = unpack::check(file, &bytes, Limits::default())?;
    let m = listing.manifest;
    Ok(BundlePreview {
        display_name: m.display_name.clone().unwrap_or_else(|| m.name.clone()),
        description: m.description.clone(),
        author: m.author.name.clone(),
        server_type: m.server.kind.clone(),
        entry_point: m.server.entry_point.clone(),
        command_line: std::iter::once(&m.server.mcp_config.command)
            .chain(&m.server.mcp_config.args)
            .cloned()
            .collect::<Vec<_>>()
            .join(" "),
        tools: m.tools.clone(),
        prompts: m.prompts.clone(),
        user_config: m.user_config.clone(),
        platforms: m.compatibility.platforms.clone(),
        runtimes: m.compatibility.runtimes.clone(),
        signed: bytes.ends_with(SIGNATURE_END),
        files: listing.files,
        unpacked_bytes: listing.total,
        name: m.name,
        version: m.version,
    })
}

/// The bundle file's bytes.
pub(crate) fn read_file(file: &Path) -> Result<Vec<u8>, InstallError> {
    let meta = std::fs::metadata(file).map_err(|e| refused(file, &e.to_string()))?;
    if meta.len() > MAX_TOTAL_BYTES {
        return Err(refused(
            file,
            &format!("it is larger than {MAX_TOTAL_BYTES} bytes"),
        ));
    }
    std::fs::read(file).map_err(|e| refused(file, &e.to_string()))
}

/// A refusal of the bundle `file`, saying why.
pub(crate) fn refused(file: &Path, reason: &str) -> InstallError {
    InstallError::Bundle {
        file: file.display().to_string(),
        reason: reason.to_owned(),
    }
}

/// The configured server for `manifest` unpacked in `dir`, with `values` for its
/// `user_config` (defaults for the rest; a required one missing is an error).
pub(crate) fn server_config(
    manifest: &Manifest,
    dir: &Path,
    request: &BundleInstall,
) -> Result<ServerConfig, InstallError> {
    let values = manifest.user_values(&request.config)?;
    let subst = Substitution {
        dir,
        values: &values,
    };
    let mcp = &manifest.server.mcp_config;
    let command = subst.one(&mcp.command);
    let args = mcp.args.iter().flat_map(|a| subst.expand(a)).collect();
    let env = (mcp.env.iter())
        .map(|(k, v)| (k.clone(), subst.one(v)))
        .collect();
    let transport = Transport::Stdio {
        command,
        args,
        env,
        cwd: Some(dir.to_path_buf()),
    };
    let name = request
        .server_name
        .clone()
        .unwrap_or_else(|| manifest.name.clone());
    let mut config = ServerConfig::new(name, transport);
    // Sensitive values placed in the arguments are kept with the env values (the keychain).
    let sensitive: Vec<(String, String)> = (manifest.user_config.iter())
        .filter(|(_, field)| field.sensitive)
        .flat_map(|(key, _)| {
            let values = values.get(key).cloned().unwrap_or_default();
            values.into_iter().map(move |v| (key.clone(), v))
        })
        .collect();
    crate::mcp::host::secret_args::seal_secret_args(&mut config, &sensitive);
    config.source = Some(ServerSource::Bundle {
        name: manifest.name.clone(),
        version: manifest.version.clone(),
        dir: dir.to_path_buf(),
    });
    Ok(config)
}

/// The manifest's `${…}` substitutions.
struct Substitution<'a> {
    dir: &'a Path,
    values: &'a BTreeMap<String, Vec<String>>,
}

impl Substitution<'_> {
    /// `arg` substituted; a whole-argument `${user_config.KEY}` of several values becomes
    /// one argument each.
    fn expand(&self, arg: &str) -> Vec<String> {
        let whole = (arg.strip_prefix("${user_config."))
            .and_then(|rest| rest.strip_suffix('}'))
            .and_then(|key| self.values.get(key));
        match whole {
            Some(values) => values.clone(),
            None => vec![self.one(arg)],
        }
    }

    fn one(&self, text: &str) -> String {
        let user = directories::UserDirs::new();
        let home = user.as_ref().map(|u| u.home_dir().display().to_string());
        let dir_of = |f: fn(&directories::UserDirs) -> Option<&Path>| {
            user.as_ref().and_then(f).map(|p| p.display().to_string())
        };
        let sep = std::path::MAIN_SEPARATOR.to_string();
        let mut out = text.replace("${__dirname}", &self.dir.display().to_string());
        for (var, value) in [
            ("${HOME}", home),
            ("${DESKTOP}", dir_of(directories::UserDirs::desktop_dir)),
            ("${DOCUMENTS}", dir_of(directories::UserDirs::document_dir)),
            ("${DOWNLOADS}", dir_of(directories::UserDirs::download_dir)),
            ("${pathSeparator}", Some(sep.clone())),
            ("${/}", Some(sep.clone())),
        ] {
            if let Some(value) = value {
                out = out.replace(var, &value);
            }
        }
        for (key, values) in self.values {
            out = out.replace(&format!("${{user_config.{key}}}"), &values.join(","));
        }
        out
    }
}
