//! Commands over knowledge bases: list, create (with its folders), delete, add and remove a
//! folder, choose its embedder, the files of one with their errors, index again, and a search to
//! try one. Indexing runs in the background; its progress arrives as `knowledge` events.

use std::path::PathBuf;

use switchboard_engine::Engine;
use switchboard_engine::knowledge::{IndexReport, Mode};
use switchboard_engine::store::{FilesPage, FilesQuery, KnowledgeBase};
use switchboard_engine::vocab::knowledge::{EmbedderChoice, Passage};
use tauri::State;

use super::CmdResult;

/// Every knowledge base, by name.
#[tauri::command]
pub async fn list_knowledge_bases(engine: State<'_, Engine>) -> CmdResult<Vec<KnowledgeBase>> {
    Ok(engine.knowledge().list().await?)
}

/// Creates a knowledge base over `sources` (absolute folders or files) and starts indexing it.
#[tauri::command]
pub async fn create_knowledge_base(
    engine: State<'_, Engine>,
    name: String,
    sources: Vec<String>,
) -> CmdResult<KnowledgeBase> {
    let paths: Vec<PathBuf> = sources.iter().map(PathBuf::from).collect();
    let refs: Vec<&std::path::Path> = paths.iter().map(PathBuf::as_path).collect();
    let base = engine.create_knowledge_base(&name, &refs).await?;
    engine.knowledge().index_in_background(&base.name);
    Ok(base)
}

/// Deletes a knowledge base (the files stay) and its MCP server.
#[tauri::command]
pub async fn delete_knowledge_base(engine: State<'_, Engine>, name: String) -> CmdResult<()> {
    Ok(engine.delete_knowledge_base(&name).await?)
}

/// Adds a folder or file to a knowledge base and indexes it.
#[tauri::command]
pub async fn add_knowledge_source(
    engine: State<'_, Engine>,
    name: String,
    source: String,
) -> CmdResult<KnowledgeBase> {
    let base = engine
        .add_knowledge_source(&name, std::path::Path::new(&source))
        .await?;
    engine.knowledge().index_in_background(&base.name);
    Ok(base)
}

/// Removes a folder or file from a knowledge base.
#[tauri::command]
pub async fn remove_knowledge_source(
    engine: State<'_, Engine>,
    name: String,
    source: String,
) -> CmdResult<KnowledgeBase> {
    let base = engine.remove_knowledge_source(&name, &source).await?;
    engine.knowledge().index_in_background(&base.name);
    Ok(base)
}

/// A page of a knowledge base's files, with their chunks and errors, and how many match.
#[tauri::command]
pub async fn knowledge_files(
    engine: State<'_, Engine>,
    name: String,
    query: FilesQuery,
) -> CmdResult<FilesPage> {
    Ok(engine.knowledge().files_page(&name, &query).await?)
}

/// Brings a knowledge base up to date now and says what changed.
#[tauri::command]
pub async fn reindex_knowledge_base(
    engine: State<'_, Engine>,
    name: String,
) -> CmdResult<IndexReport> {
    Ok(engine.knowledge().index(&name).await?)
}

/// The best passages of a knowledge base for a question (hybrid search).
#[tauri::command]
pub async fn search_knowledge_base(
    engine: State<'_, Engine>,
    name: String,
    query: String,
    count: u32,
) -> CmdResult<Vec<Passage>> {
    Ok(engine
        .knowledge()
        .search(&name, &query, count as usize, Mode::Hybrid)
        .await?)
}

/// Chooses a knowledge base's embedder — the built-in one or a provider's embedding model
/// (checked to answer first) — and embeds every file again in the background.
#[tauri::command]
pub async fn set_knowledge_embedder(
    engine: State<'_, Engine>,
    name: String,
    choice: EmbedderChoice,
) -> CmdResult<KnowledgeBase> {
    let base = engine.knowledge().set_embedder(&name, &choice).await?;
    engine.knowledge().index_in_background(&base.name);
    Ok(base)
}
