//! Import: recognizes the file (our JSON export, ChatGPT's or Claude's `conversations.json`),
//! converts it to conversations, checks every reference (unique ids, parents and heads in the
//! same conversation, no cycles) and merges it into the store in one transaction — or, in a
//! dry run, reports what would change and writes nothing. A file that cannot be read imports
//! nothing.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};
use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::detect::ImportSource;
use super::detect::{detect, detect_reader};
use super::{ExportError, chatgpt, claude, json};
use serde_json::Value;

use super::json::Extras;
use crate::store::{ImportItem, MergeReport, NewBlob, Role, Store, image};
use crate::vocab::ContentPart;
use crate::vocab::content::ImageRef;

/// What an import did (or would do).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportResult {
    /// The kind of file.
    pub source: ImportSource,
    /// What changed, per conversation.
    pub report: MergeReport,
    /// The assistants the file carried (Switchboard's export: those its conversations started
    /// from), merged by id unless this was a dry run.
    pub assistants: u32,
    /// The projects the file carried (those its conversations are in), merged by id unless
    /// this was a dry run.
    #[serde(default)]
    pub projects: u32,
}

/// How many parsed conversations may wait for the store: the import's memory is this many
/// conversations plus the one being parsed and the one being merged, whatever the file's size.
const QUEUE: usize = 8;

/// Reads and imports the file at `path` (`dry_run`: only report), one conversation at a
/// time: a parser thread reads and checks each and hands it to the store's open transaction,
/// which commits only when the whole file was read and merged (a file that turns out broken
/// halfway imports nothing).
pub async fn import_file(
    store: &Store,
    path: &Path,
    dry_run: bool,
) -> Result<ImportResult, ExportError> {
    // Refused before reading when over the cap; the reads themselves stop at the cap.
    let cap = super::limits::max_bytes(store).await?;
    let file = super::limits::open_capped(path, cap)?;
    let source = blocking(move || detect_reader(file)).await?;
    let file = super::limits::open_capped(path, cap)?;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<(ImportItem, Vec<NewBlob>)>(QUEUE);
    // Spawned now (a future would start only when awaited, after the queue is drained).
    let parser = tokio::task::spawn_blocking(move || {
        let mut checker = Checker::default();
        read_items(source, file, &mut |item| {
            let item = without_apps_in(item);
            checker.check(&item)?;
            let (item, images) = images_stored_in(item);
            (tx.blocking_send((item, images)))
                .map_err(|_| ExportError::Invalid("the import stopped".into()))
        })
    });
    let mut session = store.begin_import(dry_run).await?;
    while let Some((item, images)) = rx.recv().await {
        session.add_images(&images).await?;
        session.add(&item).await?;
    }
    let extras = match parser.await {
        Ok(read) => read?,
        Err(e) => return Err(ExportError::Invalid(format!("the import stopped: {e}"))),
    };
    let links = session.project_links().to_vec();
    let report = session.finish().await?;
    if !dry_run {
        merge_extras(store, &extras, &links).await?;
    }
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(ImportResult {
        source,
        report,
        assistants: count(extras.assistants.len()),
        projects: count(extras.projects.len()),
    })
}

/// Merges the file's assistants and projects, then puts the conversations it added into the
/// projects it named (a project the file does not carry leaves them outside any project).
async fn merge_extras(
    store: &Store,
    extras: &Extras,
    links: &[(String, String)],
) -> Result<(), ExportError> {
    for a in &extras.assistants {
        store.merge_assistant(a).await?;
    }
    for p in &extras.projects {
        store.merge_project(p).await?;
    }
    let mut by_project: HashMap<&str, Vec<String>> = HashMap::new();
    for (conversation, project) in links {
        by_project
            .entry(project.as_str())
            .or_default()
            .push(conversation.clone());
    }
    for (project, ids) in by_project {
        if store.find_project(project).await.is_ok() {
            store.move_conversations(&ids, Some(project)).await?;
        }
    }
    Ok(())
}

/// Runs `f` on a blocking thread.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ExportError> + Send + 'static,
) -> Result<T, ExportError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(result) => result,
        Err(e) => Err(ExportError::Invalid(format!("the import stopped: {e}"))),
    }
}

/// Hands each conversation of a `source` file in `reader` to `each`; returns the assistants
/// and projects the file carries (only ours carries any).
fn read_items(
    source: ImportSource,
    reader: impl std::io::Read,
    each: &mut dyn FnMut(ImportItem) -> Result<(), ExportError>,
) -> Result<Extras, ExportError> {
    match source {
        ImportSource::Switchboard => json::stream(reader, each),
        ImportSource::Chatgpt => chatgpt::stream(reader, each).map(|()| Extras::default()),
        ImportSource::Claude => claude::stream(reader, each).map(|()| Extras::default()),
    }
}

/// Recognizes and converts a file's text, checking every reference.
pub fn parse_import(text: &str) -> Result<(ImportSource, Vec<ImportItem>), ExportError> {
    let source = detect(text)?;
    let (mut items, mut checker) = (Vec::new(), Checker::default());
    read_items(source, text.as_bytes(), &mut |item| {
        let item = without_apps_in(item);
        checker.check(&item)?;
        items.push(item);
        Ok(())
    })?;
    Ok((source, items))
}

/// Checks conversations one by one as a file is read: every id is unique in the file, every
/// parent and head is a message of the same conversation, and no message is its own
/// ancestor. Ids already seen are kept as 128-bit keyed hashes, not as text.
struct Checker {
    index: usize,
    keys: (RandomState, RandomState),
    conversations: HashSet<u128>,
    messages: HashSet<u128>,
}

impl Default for Checker {
    fn default() -> Self {
        Self {
            index: 0,
            keys: (RandomState::new(), RandomState::new()),
            conversations: HashSet::new(),
            messages: HashSet::new(),
        }
    }
}

impl Checker {
    fn key(&self, id: &str) -> u128 {
        let (a, b) = (self.keys.0.hash_one(id), self.keys.1.hash_one(id));
        (u128::from(a) << 64) | u128::from(b)
    }

    fn check(&mut self, item: &ImportItem) -> Result<(), ExportError> {
        self.index += 1;
        let c = &item.conversation;
        let index = self.index;
        let at = |what: String| {
            ExportError::Format(format!(
                "conversation #{index} ({}) in the file: {what}",
                c.id
            ))
        };
        if !self.conversations.insert(self.key(&c.id)) {
            return Err(at("the conversation appears twice".into()));
        }
        let parents: HashMap<&str, Option<&str>> = item
            .messages
            .iter()
            .map(|m| (m.id.as_str(), m.parent_id.as_deref()))
            .collect();
        for m in &item.messages {
            if !self.messages.insert(self.key(&m.id)) {
                return Err(at(format!("message {} appears twice", m.id)));
            }
            if let Some(p) = &m.parent_id
                && !parents.contains_key(p.as_str())
            {
                return Err(at(format!(
                    "message {} follows {p}, which is not in this conversation",
                    m.id
                )));
            }
        }
        if let Some(h) = &c.head_id
            && !parents.contains_key(h.as_str())
        {
            return Err(at(format!(
                "its head {h} is not a message of this conversation"
            )));
        }
        if let Some(id) = cycle(&parents) {
            return Err(at(format!("message {id} is its own ancestor")));
        }
        Ok(())
    }
}

/// A message on a parent cycle, if there is one.
fn cycle<'a>(parents: &HashMap<&'a str, Option<&'a str>>) -> Option<&'a str> {
    let mut done: HashSet<&str> = HashSet::new();
    for start in parents.keys() {
        let mut path: HashSet<&str> = HashSet::new();
        let mut at = Some(*start);
        while let Some(id) = at {
            if done.contains(id) {
                break;
            }
            if !path.insert(id) {
                return Some(id);
            }
            at = parents.get(id).copied().flatten();
        }
        done.extend(path);
    }
    None
}

/// `item` without the MCP Apps stored with its tool results: an imported file is untrusted,
/// and an App in it would run bound to whichever server it names.
pub(crate) fn without_apps_in(mut item: ImportItem) -> ImportItem {
    let parts = item.messages.iter_mut().flat_map(|m| m.content.iter_mut());
    for part in parts {
        if let ContentPart::ToolResult {
            content: Value::Object(result),
            ..
        } = part
        {
            result.remove("app");
        }
    }
    item
}

/// `item` with the images its users attached stored once by content hash, as a message sent
/// from the composer has them (an image part becomes a reference; the same image in many
/// messages is stored once). An image already the size a provider takes comes back byte for
/// byte, so a Switchboard export imported again names the same stored image. Data that does
/// not decode as an image stays inline as it was: nothing is lost.
pub(crate) fn images_stored_in(mut item: ImportItem) -> (ImportItem, Vec<NewBlob>) {
    use base64::Engine as _;
    let mut blobs: Vec<NewBlob> = Vec::new();
    let user = item.messages.iter_mut().filter(|m| m.role == Role::User);
    for part in user.flat_map(|m| m.content.iter_mut()) {
        let ContentPart::Image { data, name, .. } = part else {
            continue;
        };
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data.as_bytes()) else {
            continue;
        };
        let label = name.clone().unwrap_or_else(|| "image".into());
        let Ok(blob) = image::process(&label, &bytes, image::MAX_SIDE) else {
            continue;
        };
        *part = ContentPart::ImageRef(ImageRef {
            hash: blob.hash.clone(),
            mime_type: blob.mime_type.clone(),
            width: blob.width,
            height: blob.height,
            name: name.clone(),
        });
        if blobs.iter().all(|b| b.hash != blob.hash) {
            blobs.push(blob);
        }
    }
    (item, blobs)
}
