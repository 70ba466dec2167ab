//! Assistants on their own as a file (`switchboard.assistants`, schema version 1): written
//! whole, and read back from such a file or from a conversation export (the assistants its
//! conversations started from), merged by id — one whose id a different assistant here has is
//! added beside it as a copy under a new id (never replacing it), a clashing name gets a
//! suffix.

use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::ExportError;
use crate::store::{Assistant, AssistantMerge, Store};

/// The value of the `format` field that marks an assistants file.
pub const FORMAT: &str = "switchboard.assistants";
/// The schema version this build writes and the newest it reads.
pub const SCHEMA_VERSION: u32 = 1;

/// An assistants file.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    format: String,
    #[serde(default)]
    schema_version: u32,
    #[serde(default)]
    assistants: Vec<Assistant>,
}

/// What an import of assistants did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AssistantImport {
    /// Assistants added.
    pub added: u32,
    /// Assistants whose id a different assistant here has: added beside it as a copy under a
    /// new id (the one here is kept as it was).
    pub copied: u32,
    /// Assistants already here exactly as in the file.
    pub unchanged: u32,
}

/// Writes the assistants `ids` (every one when empty) to `path`; returns how many.
pub async fn export_assistants(
    store: &Store,
    ids: &[String],
    path: &Path,
) -> Result<u32, ExportError> {
    let mut assistants = store.list_assistants().await?;
    if !ids.is_empty() {
        assistants.retain(|a| ids.contains(&a.id));
    }
    if assistants.is_empty() {
        return Err(ExportError::Invalid(
            "there is no assistant to export".into(),
        ));
    }
    let file = File {
        format: FORMAT.into(),
        schema_version: SCHEMA_VERSION,
        assistants,
    };
    let text = serde_json::to_string_pretty(&file)
        .map_err(|e| ExportError::Invalid(format!("cannot write the assistants: {e}")))?;
    std::fs::write(path, text).map_err(|e| ExportError::io(path, e))?;
    Ok(u32::try_from(file.assistants.len()).unwrap_or(u32::MAX))
}

/// Reads the assistants of `text`: an assistants file, or a conversation export.
pub fn parse_assistants(text: &str) -> Result<Vec<Assistant>, ExportError> {
    let file: File = serde_json::from_str(text).map_err(ExportError::from_json)?;
    let known = [FORMAT, super::json::FORMAT];
    if !known.contains(&file.format.as_str()) {
        return Err(ExportError::Format(format!(
            "this is not a Switchboard assistants file (its format is {:?})",
            file.format
        )));
    }
    if file.schema_version == 0 || file.schema_version > SCHEMA_VERSION {
        return Err(ExportError::Format(format!(
            "this file has schema version {}; this Switchboard reads version {SCHEMA_VERSION}",
            file.schema_version
        )));
    }
    Ok(file.assistants)
}

/// Imports the assistants in the file at `path`.
pub async fn import_assistants(store: &Store, path: &Path) -> Result<AssistantImport, ExportError> {
    let cap = super::limits::max_bytes(store).await?;
    let mut text = String::new();
    super::limits::open_capped(path, cap)?
        .read_to_string(&mut text)
        .map_err(|e| ExportError::io(path, e))?;
    let assistants = parse_assistants(&text)?;
    let mut done = AssistantImport::default();
    for a in &assistants {
        match store.merge_assistant(a).await? {
            AssistantMerge::Added => done.added += 1,
            AssistantMerge::Copied => done.copied += 1,
            AssistantMerge::Unchanged => done.unchanged += 1,
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::AssistantDraft;

    async fn store(dir: &Path, name: &str) -> Store {
        Store::open(&dir.join(name)).await.unwrap()
    }

    #[tokio::test]
    async fn assistants_written_to_a_file_come_back_the_same_elsewhere_and_again_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let from = store(dir.path(), "a.db").await;
        for name in ["Writer", "译者"] {
            let draft = AssistantDraft {
                name: name.into(),
                icon: "✍️".into(),
                system_prompt: format!("{name} prompt"),
                settings: serde_json::json!({"temperature": 0.4, "servers": ["fs"]}),
                ..Default::default()
            };
            from.insert_assistant(&draft).await.unwrap();
        }
        let file = dir.path().join("assistants.json");
        assert_eq!(export_assistants(&from, &[], &file).await.unwrap(), 2);
        let to = store(dir.path(), "b.db").await;
        let first = import_assistants(&to, &file).await.unwrap();
        assert_eq!(
            first,
            AssistantImport {
                added: 2,
                ..Default::default()
            }
        );
        assert_eq!(
            to.list_assistants().await.unwrap(),
            from.list_assistants().await.unwrap()
        );
        let again = import_assistants(&to, &file).await.unwrap();
        assert_eq!(
            again,
            AssistantImport {
                unchanged: 2,
                ..Default::default()
            }
        );
    }

    #[test]
    fn a_file_of_another_kind_or_a_newer_version_is_refused_in_words() {
        let other = parse_assistants(r#"{"format": "x", "schemaVersion": 1}"#).unwrap_err();
        assert!(
            other
                .to_string()
                .contains("this is not a Switchboard assistants file"),
            "{other}"
        );
        let newer = parse_assistants(r#"{"format": "switchboard.assistants", "schemaVersion": 9}"#)
            .unwrap_err();
        assert!(newer.to_string().contains("schema version 9"), "{newer}");
    }
}
