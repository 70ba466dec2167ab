//! Bringing a knowledge base's index up to date with its sources, incrementally: the sources
//! are walked; a file whose size and time are as recorded is left alone; a changed one is read
//! and, when its SHA-256 differs (or it had an error, or the embedder changed), cut into chunks
//! sized by the embedder's tokenizer, embedded, and written with its keyword rows in one
//! transaction; a file gone from the sources leaves the index. Each file that cannot be read is
//! recorded with its error and the rest goes on. Reading, hashing and chunking run off the
//! async workers; progress is reported file by file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use text_splitter::ChunkSizer;

use super::document::{Document, read_document};
use super::embedder::{Embedder, Purpose};
use super::keywords::indexed_text;
use super::vectors::quantize;
use super::walk::{Found, walk};
use super::{Chunk, KnowledgeError, chunks};
use crate::store::{ChunkWrite, FileWrite, KnowledgeBase, KnowledgeFile, Store};

/// The most tokens in one chunk (fewer when the embedder takes fewer).
pub const CHUNK_TOKENS: usize = 384;

/// How an error from the embedder begins (such a file is tried again at every run; one that
/// could not be read is tried again only when it changes).
const EMBED_FAILED: &str = "cannot be embedded";

/// A file whose reader panicked (a parser's bug on hostile content): its error, and the run
/// goes on.
const READER_FAILED: &str = "cannot be read (the reader failed on its content)";

/// Chunks embedded in one request to the embedder.
const EMBED_GROUP: usize = 32;

/// How far an indexing run is.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgress {
    /// The base.
    pub base: String,
    /// Files looked at so far.
    pub done: u32,
    /// Files to look at.
    pub total: u32,
    /// The file being read, if any.
    pub current: Option<String>,
}

/// What an indexing run did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexReport {
    /// The base.
    pub base: String,
    /// Files read and indexed (new or changed).
    pub indexed: u32,
    /// Files left as they were.
    pub unchanged: u32,
    /// Files that left the index.
    pub removed: u32,
    /// Files recorded with an error.
    pub failed: u32,
    /// Chunks written.
    pub chunks: u32,
}

/// Brings `base`'s index up to date; `embedder` none: keywords only. `progress` is called after
/// each file.
pub async fn index_base(
    store: &Store,
    base: &KnowledgeBase,
    embedder: Option<Arc<dyn Embedder>>,
    progress: &(dyn Fn(IndexProgress) + Send + Sync),
) -> Result<IndexReport, KnowledgeError> {
    let sources: Vec<PathBuf> = base.sources.iter().map(PathBuf::from).collect();
    let found = tokio::task::spawn_blocking(move || walk(&sources))
        .await
        .map_err(|e| KnowledgeError::Internal(e.to_string()))?;
    let stored: BTreeMap<String, KnowledgeFile> = store
        .knowledge_files(base.id)
        .await?
        .into_iter()
        .map(|f| (f.path.clone(), f))
        .collect();
    let mut report = IndexReport {
        base: base.name.clone(),
        ..IndexReport::default()
    };
    // A file under a folder that could not be read at all (an unmounted drive, a share that
    // is offline) is kept as it was, not dropped with everything under it.
    let gone: Vec<String> = stored
        .keys()
        .filter(|p| {
            let p = Path::new(p.as_str());
            !found.files.contains_key(p) && !found.refused.keys().any(|r| p.starts_with(r))
        })
        .cloned()
        .collect();
    store.remove_knowledge_files(base.id, &gone).await?;
    report.removed = gone.len() as u32;
    for (path, why) in &found.refused {
        let path = path.to_string_lossy().into_owned();
        if stored.get(&path).and_then(|f| f.error.as_deref()) != Some(why.as_str()) {
            let file = FileWrite {
                path,
                error: Some(why.clone()),
                ..FileWrite::default()
            };
            store.put_knowledge_file(base.id, &file, &[]).await?;
        }
        report.failed += 1;
    }
    let total = found.files.len() as u32;
    for (done, (path, facts)) in found.files.iter().enumerate() {
        let key = path.to_string_lossy().into_owned();
        progress(IndexProgress {
            base: base.name.clone(),
            done: done as u32,
            total,
            current: Some(key.clone()),
        });
        let before = stored.get(&key);
        if before.is_some_and(|f| unchanged(f, facts)) {
            report.unchanged += 1;
            report.failed += u32::from(before.is_some_and(|f| f.error.is_some()));
            continue;
        }
        let outcome = index_file(store, base.id, path, facts, before, embedder.clone()).await?;
        match outcome {
            Outcome::Unchanged => report.unchanged += 1,
            Outcome::Indexed(n) => {
                report.indexed += 1;
                report.chunks += n;
            }
            Outcome::Failed => report.failed += 1,
        }
    }
    progress(IndexProgress {
        base: base.name.clone(),
        done: total,
        total,
        current: None,
    });
    Ok(report)
}

/// Whether `stored` is as the walk found the file: same size and time, and either read whole
/// (a hash) or refused for its content (an error other than the embedder's).
fn unchanged(stored: &KnowledgeFile, facts: &Found) -> bool {
    let read = stored.sha256.is_some()
        || (stored.error.as_deref()).is_some_and(|e| !e.starts_with(EMBED_FAILED));
    stored.size == facts.size && stored.modified_ns == facts.modified_ns && read
}

enum Outcome {
    Unchanged,
    Indexed(u32),
    Failed,
}

/// Reads, cuts, embeds and stores one file.
async fn index_file(
    store: &Store,
    base: i64,
    path: &Path,
    facts: &Found,
    before: Option<&KnowledgeFile>,
    embedder: Option<Arc<dyn Embedder>>,
) -> Result<Outcome, KnowledgeError> {
    let mut file = FileWrite {
        path: path.to_string_lossy().into_owned(),
        size: facts.size,
        modified_ns: facts.modified_ns,
        ..FileWrite::default()
    };
    let owned = path.to_path_buf();
    let sizer = embedder.clone();
    let read = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read_and_cut(&owned, sizer.as_deref())
        }))
        .unwrap_or_else(|_| Err(READER_FAILED.to_owned()))
    })
    .await
    .unwrap_or_else(|_| Err(READER_FAILED.to_owned()));
    let (doc, pieces) = match read {
        Ok(read) => read,
        Err(why) => {
            file.error = Some(why);
            store.put_knowledge_file(base, &file, &[]).await?;
            return Ok(Outcome::Failed);
        }
    };
    if before.is_some_and(|f| f.error.is_none() && f.sha256.as_deref() == Some(doc.hash.as_str())) {
        store
            .touch_knowledge_file(base, &file.path, facts.size, facts.modified_ns)
            .await?;
        return Ok(Outcome::Unchanged);
    }
    file.sha256 = Some(doc.hash.clone());
    file.kind = Some(format!("{:?}", doc.kind).to_lowercase());
    file.title = title_of(&doc);
    let mut written: Vec<ChunkWrite> = pieces
        .iter()
        .map(|c| ChunkWrite {
            text: c.text.clone(),
            keywords: indexed_text(&in_context(c)),
            line: u32::try_from(c.line).ok().filter(|_| doc.pages.is_empty()),
            page: doc.page_at(c.start),
            heading: c.heading.clone(),
            ..ChunkWrite::default()
        })
        .collect();
    let texts: Vec<String> = pieces.iter().map(in_context).collect();
    if let Some(embedder) = embedder
        && let Err(why) = embed_chunks(embedder.as_ref(), &texts, &mut written).await
    {
        // Kept for keyword search; embedded at the next run.
        for chunk in &mut written {
            chunk.scale = 0.0;
            chunk.vector = None;
        }
        file.sha256 = None;
        file.error = Some(format!("{EMBED_FAILED}: {why}"));
        store.put_knowledge_file(base, &file, &written).await?;
        return Ok(Outcome::Failed);
    }
    store.put_knowledge_file(base, &file, &written).await?;
    Ok(Outcome::Indexed(written.len() as u32))
}

/// Gives `chunks` the quantized vectors of `texts` (one each), a group at a time; why not, at
/// the first failure.
async fn embed_chunks(
    embedder: &dyn Embedder,
    texts: &[String],
    chunks: &mut [ChunkWrite],
) -> Result<(), String> {
    for (texts, group) in texts
        .chunks(EMBED_GROUP)
        .zip(chunks.chunks_mut(EMBED_GROUP))
    {
        let vectors = embedder.embed(texts.to_vec(), Purpose::Passage).await?;
        for (chunk, vector) in group.iter_mut().zip(vectors) {
            let (scale, bytes) = quantize(&vector);
            chunk.scale = scale;
            chunk.vector = Some(bytes);
        }
    }
    Ok(())
}

/// The most characters of a chunk's headings put before it for the index and the embedder.
const CONTEXT_CHARS: usize = 200;

/// A chunk as the keyword index and the embedder see it: under its headings ("Dishwasher ›
/// Error codes"), so a passage that does not name its subject is still found by it.
fn in_context(chunk: &Chunk) -> String {
    match &chunk.heading {
        Some(heading) => {
            let heading: String = heading.chars().take(CONTEXT_CHARS).collect();
            format!("{heading}\n{}", chunk.text)
        }
        None => chunk.text.clone(),
    }
}

/// The document's title: its first Markdown heading of level 1, if any.
fn title_of(doc: &Document) -> Option<String> {
    doc.text
        .lines()
        .take(50)
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().chars().take(200).collect())
}

/// Counts tokens with the embedder (or, with none, estimated).
struct Sizer<'a>(Option<&'a dyn Embedder>);

impl ChunkSizer for Sizer<'_> {
    fn size(&self, chunk: &str) -> usize {
        match self.0 {
            Some(embedder) => embedder.count_tokens(chunk),
            None => super::chunk::estimated_tokens(chunk),
        }
    }
}

/// The file read and cut, or why it cannot be.
fn read_and_cut(
    path: &Path,
    embedder: Option<&dyn Embedder>,
) -> Result<(Document, Vec<Chunk>), String> {
    // The files list shows the path beside the error: the error says only what is wrong.
    let doc = read_document(path).map_err(|e| e.reason())?;
    let max = embedder.map_or(CHUNK_TOKENS, |e| e.max_tokens().min(CHUNK_TOKENS));
    let pieces = chunks(&doc, Sizer(embedder), max);
    Ok((doc, pieces))
}
