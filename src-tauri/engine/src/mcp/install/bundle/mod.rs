//! MCP Bundles (`.mcpb`): a zip with a `manifest.json` (the MCPB manifest: name, version,
//! author, server type and entry point, `mcp_config`, tools, prompts, `user_config`,
//! compatibility). [`preview`] reads and checks one without unpacking it; [`unpack()`] puts it
//! into `<bundles>/<name>/<version>/` with every path checked (nothing is left on disk when
//! it is refused); [`server_config`] makes the configured server from the manifest's
//! `mcp_config` with its substitutions (`${__dirname}`, `${user_config.KEY}`, `${HOME}`…).
//! The preview carries the digest of the file's bytes; an install first copies the file into
//! a private one while hashing it ([`stage`]) and refuses when the digest is not the one the
//! preview showed, so a file swapped after the preview is never what installs.

mod eocd;
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
pub(crate) use unpack::{Limits, MAX_FILE_BYTES, unpack_as};
#[cfg(test)]
pub(crate) use unpack::{MAX_TOTAL_BYTES, unpack};

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use crate::mcp::install::digest;
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
    /// The digest of the file's bytes previewed: installing takes it back and refuses a file
    /// whose bytes have another.
    pub digest: String,
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
    preview_as(file, file)
}

/// [`preview`] of the file at `read`, named `file` in messages (a staged copy of it).
pub(crate) fn preview_as(read: &Path, file: &Path) -> Result<BundlePreview, InstallError> {
    let no = |why: &str| refused(file, why);
    let mut handle = File::open(read).map_err(|e| no(&e.to_string()))?;
    let before = Stamp::of(&handle).map_err(|e| no(&e.to_string()))?;
    // Sized up from its end records before a byte more is read.
    unpack::precheck(file, &mut handle, Limits::default())?;
    let (digest, signed) = hash_file(file, &handle)?;
    let again = handle.try_clone().map_err(|e| no(&e.to_string()))?;
    let mut zip = unpack::open_zip(file, again, Limits::default())?;
    let listing = unpack::check(file, &mut zip, Limits::default())?;
    if Stamp::of(&handle).map_err(|e| no(&e.to_string()))? != before {
        return Err(no("it changed while it was read; open it again"));
    }
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
        signed,
        files: listing.files,
        unpacked_bytes: listing.total,
        name: m.name,
        version: m.version,
        digest,
    })
}

/// What identifies a file's contents between two looks at it: its size, its inode, and its
/// modification and change times (a write changes the change time, which cannot be set).
#[derive(Debug, PartialEq, Eq)]
struct Stamp(u64, Option<std::time::SystemTime>, i64, i64, u64);

impl Stamp {
    fn of(file: &File) -> std::io::Result<Self> {
        let meta = file.metadata()?;
        #[cfg(unix)]
        let (ctime, nsec, ino) = {
            use std::os::unix::fs::MetadataExt;
            (meta.ctime(), meta.ctime_nsec(), meta.ino())
        };
        #[cfg(not(unix))]
        let (ctime, nsec, ino) = (0, 0, 0);
        Ok(Self(meta.len(), meta.modified().ok(), ctime, nsec, ino))
    }
}

/// The digest of `handle`'s bytes (at most [`MAX_FILE_BYTES`]) and whether they end with a
/// signature block, read from the start through a buffer.
fn hash_file(file: &Path, mut handle: &File) -> Result<(String, bool), InstallError> {
    let no = |why: &str| refused(file, why);
    let io = |e: std::io::Error| refused(file, &e.to_string());
    handle.rewind().map_err(io)?;
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let (mut total, mut tail) = (0u64, Vec::with_capacity(2 * SIGNATURE_END.len()));
    loop {
        let n = handle.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > MAX_FILE_BYTES {
            return Err(no(&format!("it is larger than {MAX_FILE_BYTES} bytes")));
        }
        hash.update(&buf[..n]);
        tail.extend_from_slice(&buf[n.saturating_sub(SIGNATURE_END.len())..n]);
        let cut = tail.len().saturating_sub(SIGNATURE_END.len());
        tail.drain(..cut);
    }
    Ok((digest::hex_of(hash), tail.ends_with(SIGNATURE_END)))
}

/// A private copy of a bundle file, made while hashing it; removed when dropped.
pub(crate) struct Staged {
    /// Where the copy is.
    pub path: PathBuf,
}

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Copies the bundle `file` into a private file in `dir` while hashing it, and refuses
/// ([`InstallError::NotAsShown`]) unless its digest is `expected`, the one the preview showed.
/// What is installed is then read from the copy, which nothing else writes.
pub(crate) fn stage(file: &Path, dir: &Path, expected: &str) -> Result<Staged, InstallError> {
    let io = |e: std::io::Error| refused(file, &e.to_string());
    let mut src = File::open(file).map_err(io)?;
    if src.metadata().map_err(io)?.len() > MAX_FILE_BYTES {
        return Err(refused(
            file,
            &format!("it is larger than {MAX_FILE_BYTES} bytes"),
        ));
    }
    let staged = Staged {
        path: dir.join(format!(".incoming-{}.mcpb", uuid::Uuid::now_v7())),
    };
    let write = |e: std::io::Error| {
        InstallError::Io(format!(
            "cannot copy the bundle into {}: {e}",
            dir.display()
        ))
    };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options.open(&staged.path).map_err(write)?;
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = src.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > MAX_FILE_BYTES {
            return Err(refused(
                file,
                &format!("it is larger than {MAX_FILE_BYTES} bytes"),
            ));
        }
        hash.update(&buf[..n]);
        out.write_all(&buf[..n]).map_err(write)?;
    }
    out.flush().map_err(write)?;
    digest::require("the bundle file", expected, &digest::hex_of(hash))?;
    Ok(staged)
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
