//! Where Switchboard keeps its data, configuration and logs.
//!
//! The rules match Tauri's path resolver for the app identifier, so the GUI and the CLI share
//! one profile: `<data dir>/<identifier>`, `<config dir>/<identifier>`, and
//! `<local data dir>/<identifier>/logs`. `--data-dir` or `SWITCHBOARD_DATA_DIR` put all three
//! under one folder instead, so tests and users can keep separate profiles.

use std::path::{Path, PathBuf};

pub mod modes;

/// The app identifier (also in `tauri.conf.json`).
pub const IDENTIFIER: &str = "app.switchboard.desktop";
/// The environment variable that overrides the data directory.
pub const DATA_DIR_ENV: &str = "SWITCHBOARD_DATA_DIR";
/// The database file's name inside the data directory.
pub const DATABASE_FILE: &str = "switchboard.db";

/// A problem with the directories.
#[derive(Debug, thiserror::Error)]
pub enum PathsError {
    /// The platform has no home or data directory.
    #[error("cannot find a home directory for Switchboard's data; pass --data-dir")]
    NoHome,
    /// A directory cannot be created or written.
    #[error("cannot use {dir} as the {role} directory: {reason}")]
    Unusable {
        /// Which directory: "data", "config", "log".
        role: &'static str,
        /// The directory.
        dir: PathBuf,
        /// What the operating system said.
        reason: String,
    },
}

/// The three directories of one profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paths {
    /// The database and other data.
    pub data_dir: PathBuf,
    /// Configuration files.
    pub config_dir: PathBuf,
    /// Log files.
    pub log_dir: PathBuf,
}

impl Paths {
    /// All three directories under one root: `root`, `root/config`, `root/logs`.
    pub fn under(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        Self {
            config_dir: root.join("config"),
            log_dir: root.join("logs"),
            data_dir: root,
        }
    }

    /// The platform's directories for Switchboard, as Tauri's resolver computes them.
    pub fn platform() -> Result<Self, PathsError> {
        let base = directories::BaseDirs::new().ok_or(PathsError::NoHome)?;
        Ok(Self {
            data_dir: base.data_dir().join(IDENTIFIER),
            config_dir: base.config_dir().join(IDENTIFIER),
            log_dir: base.data_local_dir().join(IDENTIFIER).join("logs"),
        })
    }

    /// The explicit directory if given, else `SWITCHBOARD_DATA_DIR` (`env_value`) when set and
    /// not empty, else the platform's.
    pub fn resolve(explicit: Option<&Path>, env_value: Option<&str>) -> Result<Self, PathsError> {
        match (explicit, env_value.filter(|v| !v.trim().is_empty())) {
            (Some(dir), _) => Ok(Self::under(dir)),
            (None, Some(dir)) => Ok(Self::under(dir)),
            (None, None) => Self::platform(),
        }
    }

    /// The database file.
    pub fn database(&self) -> PathBuf {
        self.data_dir.join(DATABASE_FILE)
    }

    /// The folder of the built-in provider's GGUF models.
    pub fn models_dir(&self) -> PathBuf {
        self.data_dir.join("models")
    }

    /// The folder of the runtimes Switchboard brings for servers (`uv`, Node.js).
    pub fn runtimes_dir(&self) -> PathBuf {
        self.data_dir.join("runtimes")
    }

    /// The folder MCP Bundles are unpacked into, one `<name>/<version>/` each.
    pub fn bundles_dir(&self) -> PathBuf {
        self.data_dir.join("bundles")
    }

    /// Creates the directories and proves each one writable, then makes the profile
    /// owner-only (folders 0700, database and secret files 0600: see [`modes`]), repairing
    /// what a loose umask or a copy left open.
    pub fn ensure(&self) -> Result<(), PathsError> {
        for (role, dir) in [
            ("data", &self.data_dir),
            ("config", &self.config_dir),
            ("log", &self.log_dir),
        ] {
            ensure_writable(role, dir)?;
        }
        match modes::harden(self) {
            Ok(repaired) if !repaired.is_empty() => {
                tracing::warn!(?repaired, "tightened the permissions of the profile");
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "cannot make the profile owner-only"),
        }
        Ok(())
    }
}

fn ensure_writable(role: &'static str, dir: &Path) -> Result<(), PathsError> {
    let unusable = |e: std::io::Error| PathsError::Unusable {
        role,
        dir: dir.to_path_buf(),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(unusable)?;
    tempfile_probe(dir).map_err(unusable)
}

/// Writes and removes a small file, so a read-only directory is found now, not mid-session.
fn tempfile_probe(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".write-probe-{}", std::process::id()));
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_directory_wins_over_the_environment() {
        let p = Paths::resolve(Some(Path::new("/a")), Some("/b")).unwrap();
        assert_eq!(p, Paths::under("/a"));
    }

    #[test]
    fn the_environment_is_used_when_no_directory_is_given() {
        let p = Paths::resolve(None, Some("/b")).unwrap();
        assert_eq!(
            p,
            Paths {
                data_dir: "/b".into(),
                config_dir: "/b/config".into(),
                log_dir: "/b/logs".into()
            }
        );
    }

    #[test]
    fn an_empty_environment_value_means_the_platform_directories() {
        assert_eq!(
            Paths::resolve(None, Some(" ")).unwrap(),
            Paths::platform().unwrap()
        );
    }

    #[test]
    fn a_data_dir_below_a_file_is_reported_with_its_path() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let err = Paths::under(file.join("sub")).ensure().unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("cannot use "), "{msg}");
        assert!(msg.contains("file/sub as the data directory"), "{msg}");
    }
}
