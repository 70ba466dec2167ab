//! Carries out an export request: resolves the conversations, then writes them one at a
//! time (memory bounded by the largest conversation) as one JSON file, or as Markdown or
//! HTML files (one file, or a folder with one file per conversation and an index).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::assets::{Assets, DirAssets};
use super::highlight::escape;
use super::json::JsonWriter;
use super::markdown::title_line;
use super::names::{UniqueNames, encode_link};
use super::{ExportError, ExportFormat, ExportRequest, ExportScope, RenderOptions, format_time};
use crate::store::{Conversation, Message, PageRequest, Store, StoreError};

/// What an export wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportSummary {
    /// Conversations exported.
    pub conversations: u32,
    /// Messages exported (every branch).
    pub messages: u32,
    /// Files written, images and index included.
    pub files: u32,
    /// The file or folder written.
    pub path: String,
}

/// How far a bulk export is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportProgress {
    /// Conversations written.
    pub done: u32,
    /// Conversations to write.
    pub total: u32,
}

impl ExportProgress {
    /// Whether this step is worth reporting: about every 1% of the work, and the end.
    pub fn worth_reporting(&self) -> bool {
        let step = (self.total / 100).max(1);
        self.done == self.total || self.done.is_multiple_of(step)
    }
}

/// Exports what `req` asks for; `progress(done, total)` is called after each conversation.
pub async fn export(
    store: &Store,
    req: &ExportRequest,
    mut progress: impl FnMut(u32, u32),
) -> Result<ExportSummary, ExportError> {
    let ids = resolve(store, &req.scope).await?;
    if ids.is_empty() {
        return Err(ExportError::Invalid(
            "no conversation matches; nothing was exported".into(),
        ));
    }
    let out = PathBuf::from(&req.out);
    let total = u32::try_from(ids.len()).unwrap_or(u32::MAX);
    let mut summary = ExportSummary {
        conversations: 0,
        messages: 0,
        files: 0,
        path: out.display().to_string(),
    };
    let mut sink = Sink::open(req.format, &out, ids.len(), req.render_options())?;
    let mut batches = ids.chunks(BATCH);
    let mut next = batches.next().map(|b| read_ahead(store, b));
    while let Some(pending) = next.take() {
        let batch = pending.await.map_err(|e| {
            ExportError::Invalid(format!("reading the conversations failed: {e}"))
        })??;
        next = batches.next().map(|b| read_ahead(store, b));
        for (c, messages) in &batch {
            sink.write(c, messages)?;
            summary.conversations += 1;
            summary.messages += u32::try_from(messages.len()).unwrap_or(u32::MAX);
            progress(summary.conversations, total);
        }
    }
    if let Sink::Json { writer, .. } = &mut sink {
        let mut extras = super::json::Extras::default();
        let ids: Vec<String> = writer.referenced_assistants().map(str::to_owned).collect();
        for id in ids {
            // An assistant deleted since is left out; its conversations keep their copies.
            if let Ok(a) = store.find_assistant(&id).await {
                extras.assistants.push(a);
            }
        }
        let ids: Vec<String> = writer.referenced_projects().map(str::to_owned).collect();
        for id in ids {
            if let Ok(p) = store.find_project(&id).await {
                extras.projects.push(p);
            }
        }
        writer.set_extras(extras);
    }
    summary.files = sink.finish()?;
    Ok(summary)
}

/// Conversations read per query: a few thousand messages at most in memory at once (the
/// batch being written and the next one, read meanwhile).
const BATCH: usize = 32;

type Batch = Vec<(Conversation, Vec<Message>)>;

/// Starts reading the conversations `ids` while the previous batch is written.
fn read_ahead(store: &Store, ids: &[String]) -> tokio::task::JoinHandle<Result<Batch, StoreError>> {
    let store = store.clone();
    let ids = ids.to_vec();
    tokio::spawn(async move {
        let mut batch = store.conversations_with_messages(&ids).await?;
        for (_, messages) in &mut batch {
            store.inline_images(messages).await?;
        }
        Ok(batch)
    })
}

/// The ids a scope names: all (oldest first), the given ones, or those with a search hit.
async fn resolve(store: &Store, scope: &ExportScope) -> Result<Vec<String>, ExportError> {
    match scope {
        ExportScope::All => Ok(store.all_conversation_ids().await?),
        ExportScope::Project { project } => {
            let project = store.find_project(project).await?;
            Ok(store.project_conversation_ids(&project.id).await?)
        }
        ExportScope::Ids { ids } => {
            let mut seen = HashSet::new();
            let mut out: Vec<String> = Vec::new();
            for id in ids {
                store.get_conversation(id).await?;
                if seen.insert(id.clone()) {
                    out.push(id.clone());
                }
            }
            Ok(out)
        }
        ExportScope::Search { query } => {
            let mut seen = HashSet::new();
            let mut out: Vec<String> = Vec::new();
            let mut page = PageRequest::first(500);
            loop {
                let hits = store.search_messages(query, &page).await?;
                for h in hits.items {
                    if seen.insert(h.conversation_id.clone()) {
                        out.push(h.conversation_id);
                    }
                }
                match hits.next_cursor {
                    Some(c) => page.cursor = Some(c),
                    None => break,
                }
            }
            Ok(out)
        }
    }
}

/// Where conversations go.
enum Sink {
    Json {
        path: PathBuf,
        writer: JsonWriter<BufWriter<File>>,
    },
    OneFile {
        format: ExportFormat,
        path: PathBuf,
        opts: RenderOptions,
        files: u32,
    },
    Folder {
        format: ExportFormat,
        dir: PathBuf,
        opts: RenderOptions,
        names: UniqueNames,
        index: Vec<(String, String, i64, usize)>,
        files: u32,
    },
}

fn create(path: &Path) -> Result<BufWriter<File>, ExportError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| ExportError::io(parent, e))?;
    }
    File::create(path)
        .map(BufWriter::new)
        .map_err(|e| ExportError::io(path, e))
}

fn extension_of(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Markdown => "md",
        ExportFormat::Json => "json",
        ExportFormat::Html => "html",
    }
}

impl Sink {
    fn open(
        format: ExportFormat,
        out: &Path,
        count: usize,
        opts: RenderOptions,
    ) -> Result<Self, ExportError> {
        if format == ExportFormat::Json {
            let writer = JsonWriter::start(create(out)?).map_err(|e| ExportError::io(out, e))?;
            return Ok(Self::Json {
                path: out.to_path_buf(),
                writer,
            });
        }
        let ext = out
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let is_file = matches!(
            (format, ext.as_deref()),
            (ExportFormat::Markdown, Some("md" | "markdown"))
                | (ExportFormat::Html, Some("html" | "htm"))
        );
        if is_file && count == 1 {
            return Ok(Self::OneFile {
                format,
                path: out.to_path_buf(),
                opts,
                files: 0,
            });
        }
        if is_file {
            return Err(ExportError::Invalid(format!(
                "{} names a file, but {count} conversations are exported; give a folder",
                out.display()
            )));
        }
        std::fs::create_dir_all(out).map_err(|e| ExportError::io(out, e))?;
        let mut names = UniqueNames::default();
        names.reserve("index");
        Ok(Self::Folder {
            format,
            dir: out.to_path_buf(),
            opts,
            names,
            index: Vec::new(),
            files: 0,
        })
    }

    fn write(&mut self, c: &Conversation, messages: &[Message]) -> Result<(), ExportError> {
        match self {
            Self::Json { path, writer } => writer
                .conversation(c, messages)
                .map_err(|e| ExportError::io(path.as_path(), e)),
            Self::OneFile {
                format,
                path,
                opts,
                files,
            } => {
                *files += render_file(*format, path, c, messages, *opts)?;
                Ok(())
            }
            Self::Folder {
                format,
                dir,
                opts,
                names,
                index,
                files,
            } => {
                let stem = names.next(&c.title);
                let name = format!("{stem}.{}", extension_of(*format));
                *files += render_file(*format, &dir.join(&name), c, messages, *opts)?;
                index.push((name, title_line(&c.title), c.updated_at, messages.len()));
                Ok(())
            }
        }
    }

    fn finish(self) -> Result<u32, ExportError> {
        match self {
            Self::Json { path, writer } => {
                writer.finish().map_err(|e| ExportError::io(&path, e))?;
                Ok(1)
            }
            Self::OneFile { files, .. } => Ok(files),
            Self::Folder {
                format,
                dir,
                index,
                files,
                ..
            } => {
                let (name, text) = match format {
                    ExportFormat::Html => ("index.html", index_html(&index)),
                    _ => ("index.md", index_md(&index)),
                };
                let path = dir.join(name);
                std::fs::write(&path, text).map_err(|e| ExportError::io(&path, e))?;
                Ok(files + 1)
            }
        }
    }
}

/// Writes one conversation's Markdown (images in `<stem>_files/` beside it) or HTML file;
/// returns the number of files written.
fn render_file(
    format: ExportFormat,
    path: &Path,
    c: &Conversation,
    messages: &[Message],
    opts: RenderOptions,
) -> Result<u32, ExportError> {
    let mut out = create(path)?;
    let io = |e| ExportError::io(path, e);
    let mut images = 0;
    match format {
        ExportFormat::Html => super::html::render(&mut out, c, messages, opts).map_err(io)?,
        _ => {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let folder = format!("{stem}_files");
            let dir = path.with_file_name(&folder);
            let mut assets = Counting {
                inner: DirAssets::new(dir, encode_link(&folder)),
                count: 0,
            };
            super::markdown::render(&mut out, c, messages, opts, &mut assets).map_err(io)?;
            images = assets.count;
        }
    }
    out.flush().map_err(io)?;
    Ok(1 + images)
}

/// Counts the images saved.
struct Counting<A> {
    inner: A,
    count: u32,
}

impl<A: Assets> Assets for Counting<A> {
    fn save(&mut self, mime: &str, bytes: &[u8]) -> std::io::Result<String> {
        self.count += 1;
        self.inner.save(mime, bytes)
    }
}

fn index_md(index: &[(String, String, i64, usize)]) -> String {
    let mut s = String::from("# Conversations\n\n");
    for (file, title, updated, count) in index {
        let t = title.replace('[', "\\[").replace(']', "\\]");
        let _ = writeln!(
            s,
            "- [{t}]({}) — {}, {count} messages",
            encode_link(file),
            format_time(*updated)
        );
    }
    s
}

fn index_html(index: &[(String, String, i64, usize)]) -> String {
    let mut s = String::new();
    super::html::page_start(&mut s, "Conversations");
    s.push_str("<h1>Conversations</h1>\n<ul class=\"index\">\n");
    for (file, title, updated, count) in index {
        let _ = writeln!(
            s,
            "<li><a href=\"{}\">{}</a> — {}, {count} messages</li>",
            escape(&encode_link(file)),
            escape(title),
            format_time(*updated)
        );
    }
    s.push_str("</ul>\n");
    super::html::page_end(&mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::ExportProgress;

    #[test]
    fn progress_is_reported_about_every_percent_and_at_the_end() {
        let reported = |total| {
            (1..=total)
                .filter(|&done| ExportProgress { done, total }.worth_reporting())
                .count()
        };
        assert_eq!(reported(7), 7);
        assert_eq!(reported(10_000), 100);
        assert_eq!(reported(250), 125);
    }
}
