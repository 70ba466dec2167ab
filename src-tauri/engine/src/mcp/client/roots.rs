//! [`Roots`]: the folders the user lets MCP servers work in, advertised with the `roots`
//! capability (`listChanged`) and answered to `roots/list` as `file://` URIs. Stored as the
//! setting [`ROOTS_SETTING`] (a JSON array of absolute paths) and kept in memory for the
//! servers' requests.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// The setting holding the roots: a JSON array of absolute folder paths.
pub(crate) const ROOTS_SETTING: &str = "mcp.roots";

/// One root as a server sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RootInfo {
    /// The folder.
    #[ts(type = "string")]
    pub path: PathBuf,
    /// Its `file://` URI.
    pub uri: String,
    /// A short name (the folder's own name).
    pub name: String,
}

impl RootInfo {
    /// The root for absolute folder `path`; `None` for a relative path.
    pub fn of(path: &Path) -> Option<Self> {
        let uri = reqwest::Url::from_file_path(path).ok()?.to_string();
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Some(Self {
            path: path.to_owned(),
            uri,
            name,
        })
    }
}

/// The current roots. Cheap to clone; clones share them.
#[derive(Clone, Debug, Default)]
pub struct Roots {
    folders: Arc<RwLock<Vec<PathBuf>>>,
}

impl Roots {
    /// The folders, in the user's order.
    pub fn folders(&self) -> Vec<PathBuf> {
        match self.folders.read() {
            Ok(f) => f.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Each folder as a root.
    pub fn list(&self) -> Vec<RootInfo> {
        self.folders()
            .iter()
            .filter_map(|p| RootInfo::of(p))
            .collect()
    }

    /// Replaces the folders.
    pub fn set(&self, folders: Vec<PathBuf>) {
        match self.folders.write() {
            Ok(mut f) => *f = folders,
            Err(poisoned) => *poisoned.into_inner() = folders,
        }
    }
}

/// Checks folders the user chose: each absolute and an existing directory, no repeats.
/// Returns them cleaned (no trailing `/.`), or one message per problem.
pub(crate) fn check(folders: &[PathBuf]) -> Result<Vec<PathBuf>, Vec<String>> {
    let mut problems = Vec::new();
    let mut out: Vec<PathBuf> = Vec::new();
    for folder in folders {
        let clean: PathBuf = folder.components().collect();
        if !clean.is_absolute() {
            problems.push(format!("{} is not an absolute path", folder.display()));
        } else if !clean.is_dir() {
            problems.push(format!("{} is not an existing folder", folder.display()));
        } else if out.contains(&clean) {
            problems.push(format!("{} is listed twice", folder.display()));
        } else {
            out.push(clean);
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// The folders in a stored setting value (anything but an array of strings counts as none).
pub(crate) fn from_setting(value: Option<&Value>) -> Vec<PathBuf> {
    let Some(items) = value.and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(Value::as_str)
        .map(PathBuf::from)
        .collect()
}

/// The setting value for `folders`.
pub(crate) fn to_setting(folders: &[PathBuf]) -> Value {
    let items = folders
        .iter()
        .map(|p| Value::String(p.display().to_string()));
    Value::Array(items.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_is_its_folder_as_a_file_uri_named_by_the_last_component() {
        let root = RootInfo::of(Path::new("/home/ann/my notes")).unwrap();
        assert_eq!(
            root,
            RootInfo {
                path: PathBuf::from("/home/ann/my notes"),
                uri: "file:///home/ann/my%20notes".to_owned(),
                name: "my notes".to_owned(),
            }
        );
        assert_eq!(RootInfo::of(Path::new("relative/dir")), None);
    }

    #[test]
    fn checking_folders_names_every_relative_missing_or_repeated_one() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().to_owned();
        let missing = dir.path().join("nope");
        let input = vec![
            ok.clone(),
            PathBuf::from("rel"),
            missing.clone(),
            ok.join("."),
        ];
        let problems = check(&input).unwrap_err();
        assert_eq!(
            problems,
            vec![
                "rel is not an absolute path".to_owned(),
                format!("{} is not an existing folder", missing.display()),
                format!("{} is listed twice", ok.join(".").display()),
            ]
        );
        assert_eq!(check(std::slice::from_ref(&ok)).unwrap(), vec![ok]);
    }

    #[test]
    fn the_setting_round_trips_and_ignores_what_is_not_a_list_of_strings() {
        let folders = vec![PathBuf::from("/a"), PathBuf::from("/b c")];
        assert_eq!(from_setting(Some(&to_setting(&folders))), folders);
        assert!(from_setting(Some(&Value::Bool(true))).is_empty());
        assert!(from_setting(None).is_empty());
    }
}
