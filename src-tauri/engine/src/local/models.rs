//! The models folder (`<data dir>/models`): the `.gguf` files the built-in provider offers,
//! imported from disk, listed and removed. A model's id is its file name.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::LocalError;

/// One model file of the folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LocalModel {
    /// The file name, which is the model's id.
    pub name: String,
    /// The file's size in bytes.
    pub size: u64,
    /// What its header says (none when it cannot be read).
    #[serde(default)]
    pub info: Option<super::gguf::GgufInfo>,
}

/// The folder of `.gguf` models.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelsDir {
    dir: PathBuf,
}

impl ModelsDir {
    /// The folder at `dir` (created when a model is imported).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The models, sorted by name; none when the folder does not exist yet.
    pub fn list(&self) -> Result<Vec<LocalModel>, LocalError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(LocalError::io("cannot list", &self.dir, &e)),
        };
        let mut models: Vec<LocalModel> = entries
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let meta = std::fs::metadata(entry.path()).ok()?;
                (is_gguf_name(&name) && meta.is_file()).then(|| LocalModel {
                    info: super::gguf::read_info(&entry.path()).ok(),
                    name,
                    size: meta.len(),
                })
            })
            .collect();
        models.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(models)
    }

    /// The file of the model `name` (with or without `.gguf`).
    pub fn resolve(&self, name: &str) -> Result<PathBuf, LocalError> {
        let unknown = || LocalError::UnknownModel {
            name: name.to_owned(),
            dir: self.dir.clone(),
        };
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return Err(unknown());
        }
        let file = if is_gguf_name(name) {
            name.to_owned()
        } else {
            format!("{name}.gguf")
        };
        let path = self.dir.join(file);
        if path.is_file() {
            Ok(path)
        } else {
            Err(unknown())
        }
    }

    /// Copies a `.gguf` file into the folder (it must start with the GGUF magic); returns it.
    pub fn import(&self, source: &Path) -> Result<LocalModel, LocalError> {
        check_magic(source)?;
        let name = source
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| is_gguf_name(n))
            .ok_or_else(|| LocalError::Io {
                action: "cannot import",
                path: source.to_path_buf(),
                reason: "the file name must end in .gguf".into(),
            })?
            .to_owned();
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| LocalError::io("cannot create", &self.dir, &e))?;
        let target = self.dir.join(&name);
        let partial = self.dir.join(format!(".{name}.part"));
        let size = std::fs::copy(source, &partial)
            .map_err(|e| LocalError::io("cannot copy", source, &e))?;
        std::fs::rename(&partial, &target)
            .map_err(|e| LocalError::io("cannot move into place", &target, &e))?;
        let info = super::gguf::read_info(&target).ok();
        Ok(LocalModel { name, size, info })
    }

    /// Puts a `.gguf` file into the folder as a hard link when the file system allows (no
    /// second copy of a large file), else as a copy.
    pub fn link_or_import(&self, source: &Path) -> Result<LocalModel, LocalError> {
        check_magic(source)?;
        let name = source
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if is_gguf_name(name) && std::fs::create_dir_all(&self.dir).is_ok() {
            let target = self.dir.join(name);
            if std::fs::hard_link(source, &target).is_ok() {
                let size = std::fs::metadata(&target).map_or(0, |m| m.len());
                return Ok(LocalModel {
                    name: name.to_owned(),
                    size,
                    info: super::gguf::read_info(&target).ok(),
                });
            }
        }
        self.import(source)
    }

    /// Deletes the model `name`.
    pub fn remove(&self, name: &str) -> Result<(), LocalError> {
        let path = self.resolve(name)?;
        std::fs::remove_file(&path).map_err(|e| LocalError::io("cannot delete", &path, &e))
    }
}

fn is_gguf_name(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".gguf") && !name.starts_with('.')
}

/// Refuses a file that does not start with `GGUF`.
fn check_magic(path: &Path) -> Result<(), LocalError> {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map_err(|e| LocalError::io("cannot read", path, &e))?;
    if &magic == b"GGUF" {
        Ok(())
    } else {
        Err(LocalError::Unloadable {
            path: path.to_path_buf(),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_imported_model_is_listed_resolved_and_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let source = tmp.path().join("tiny.gguf");
        std::fs::write(&source, b"GGUF\x03\0\0\0rest").unwrap();
        let dir = ModelsDir::new(tmp.path().join("models"));
        assert!(dir.list().unwrap().is_empty());
        let model = dir.import(&source).unwrap();
        assert_eq!((model.name.as_str(), model.size), ("tiny.gguf", 12));
        assert_eq!(model.info, None, "a header cut short tells nothing");
        assert_eq!(dir.list().unwrap(), vec![model]);
        assert_eq!(dir.resolve("tiny").unwrap(), dir.path().join("tiny.gguf"));
        dir.remove("tiny.gguf").unwrap();
        assert!(dir.list().unwrap().is_empty());
    }

    #[test]
    fn a_file_that_is_not_gguf_or_a_path_as_a_name_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let source = tmp.path().join("notes.gguf");
        std::fs::write(&source, b"hello").unwrap();
        let dir = ModelsDir::new(tmp.path().join("models"));
        let err = dir.import(&source).unwrap_err();
        assert!(err.to_string().contains("notes.gguf"), "{err}");
        assert!(matches!(
            dir.resolve("../notes.gguf"),
            Err(LocalError::UnknownModel { .. })
        ));
    }
}
