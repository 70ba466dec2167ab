//! The knowledge-base tables: bases (name, the embedder chosen and the one its vectors came
//! from, vector width) and their sources (folders
//! and files). The files and chunks an index holds, and the keyword search over them, are in
//! `knowledge_index.rs`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::page::now_ms;
use super::{Store, StoreError};
use crate::vocab::knowledge::EmbedderChoice;

/// The longest name a knowledge base may have (its MCP server, `knowledge-<name>`, may have 64).
pub const MAX_BASE_NAME: usize = 54;

/// One knowledge base and how much it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeBase {
    /// Its row id.
    #[ts(type = "number")]
    pub id: i64,
    /// Its name, unique.
    pub name: String,
    /// The embedder its vectors come from ("builtin:<file name>"; "none": keywords only).
    pub embedder: String,
    /// The embedder the user chose; when its identity is not [`KnowledgeBase::embedder`], the
    /// next run embeds every file again.
    pub choice: EmbedderChoice,
    /// The length of its vectors (0 until the first is made).
    pub dimensions: u32,
    /// The folders and files it indexes.
    pub sources: Vec<String>,
    /// Files indexed, with or without an error.
    pub files: u32,
    /// Files that could not be indexed.
    pub failed: u32,
    /// Chunks indexed.
    pub chunks: u32,
    /// When it was created, Unix milliseconds.
    #[ts(type = "number")]
    pub created_at: i64,
}

type BaseRow = (i64, String, String, String, i64, i64, i64, i64, i64);

const BASE_QUERY: &str =
    "SELECT b.id, b.name, b.embedder, b.embedder_choice, b.dimensions, b.created_at,
        (SELECT count(*) FROM knowledge_files f WHERE f.base_id = b.id),
        (SELECT count(*) FROM knowledge_files f WHERE f.base_id = b.id AND f.error IS NOT NULL),
        (SELECT coalesce(sum(f.chunks), 0) FROM knowledge_files f WHERE f.base_id = b.id)
    FROM knowledge_bases b";

impl Store {
    /// Creates the knowledge base `name` (trimmed; unique, case-insensitively) for `embedder`.
    pub async fn create_knowledge_base(
        &self,
        name: &str,
        embedder: &str,
    ) -> Result<KnowledgeBase, StoreError> {
        let name = check_base_name(name)?;
        if self.knowledge_base_named(&name).await?.is_some() {
            return Err(StoreError::Invalid(format!(
                "a knowledge base named {name:?} exists already"
            )));
        }
        let now = now_ms();
        sqlx::query(
            "INSERT INTO knowledge_bases (name, embedder, created_at, updated_at) VALUES (?, ?, ?, ?)",
        )
        .bind(&name)
        .bind(embedder)
        .bind(now)
        .bind(now)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        self.knowledge_base_named(&name)
            .await?
            .ok_or_else(|| StoreError::Invalid(format!("{name:?} was not created")))
    }

    /// Every knowledge base, by name.
    pub async fn knowledge_bases(&self) -> Result<Vec<KnowledgeBase>, StoreError> {
        let rows: Vec<BaseRow> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("{BASE_QUERY} ORDER BY b.name")))
                .fetch_all(&self.reader)
                .await
                .map_err(|e| self.classify(e))?;
        // Every base's sources in one query, not one query a base.
        let paths: Vec<(i64, String)> =
            sqlx::query_as("SELECT base_id, path FROM knowledge_sources ORDER BY path")
                .fetch_all(&self.reader)
                .await
                .map_err(|e| self.classify(e))?;
        let mut sources: std::collections::HashMap<i64, Vec<String>> =
            std::collections::HashMap::new();
        for (base, path) in paths {
            sources.entry(base).or_default().push(path);
        }
        Ok(rows
            .into_iter()
            .map(|row| {
                let found = sources.remove(&row.0).unwrap_or_default();
                base_with(row, found)
            })
            .collect())
    }

    /// The knowledge base named `name` (case-insensitively), if any.
    pub async fn knowledge_base_named(
        &self,
        name: &str,
    ) -> Result<Option<KnowledgeBase>, StoreError> {
        let row: Option<BaseRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{BASE_QUERY} WHERE b.name = ? COLLATE NOCASE"
        )))
        .bind(name.trim())
        .fetch_optional(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        match row {
            Some(row) => Ok(Some(self.base_of(row).await?)),
            None => Ok(None),
        }
    }

    async fn base_of(&self, row: BaseRow) -> Result<KnowledgeBase, StoreError> {
        let sources = self.knowledge_sources(row.0).await?;
        Ok(base_with(row, sources))
    }

    /// Deletes the knowledge base `id` with its sources, files, chunks and their index rows.
    pub async fn delete_knowledge_base(&self, id: i64) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        sqlx::query("DELETE FROM knowledge_chunks WHERE base_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.classify(e))?;
        let gone = sqlx::query("DELETE FROM knowledge_bases WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.classify(e))?;
        if gone.rows_affected() == 0 {
            return Err(StoreError::NotFound {
                entity: "knowledge base",
                id: id.to_string(),
            });
        }
        tx.commit().await.map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// Records the embedder the user chose for base `id` (the next run uses it).
    pub async fn set_knowledge_choice(
        &self,
        id: i64,
        choice: &EmbedderChoice,
    ) -> Result<(), StoreError> {
        let json = serde_json::to_string(choice)
            .map_err(|e| StoreError::Invalid(format!("the embedder choice: {e}")))?;
        sqlx::query("UPDATE knowledge_bases SET embedder_choice = ?, updated_at = ? WHERE id = ?")
            .bind(json)
            .bind(now_ms())
            .bind(id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// Sets the embedder of base `id` and the width of its vectors; with a new embedder every
    /// file is marked for indexing again (its hash forgotten).
    pub async fn set_knowledge_embedder(
        &self,
        id: i64,
        embedder: &str,
        dimensions: u32,
    ) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        let changed = sqlx::query(
            "UPDATE knowledge_bases SET embedder = ?, dimensions = ?, updated_at = ?
             WHERE id = ? AND (embedder != ? OR dimensions != ?)",
        )
        .bind(embedder)
        .bind(i64::from(dimensions))
        .bind(now_ms())
        .bind(id)
        .bind(embedder)
        .bind(i64::from(dimensions))
        .execute(&mut *tx)
        .await
        .map_err(|e| self.classify(e))?;
        if changed.rows_affected() > 0 {
            sqlx::query("UPDATE knowledge_files SET sha256 = NULL WHERE base_id = ?")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.classify(e))?;
            // Vectors of two embedders are not comparable: until a file is embedded again it
            // is found by its keywords only.
            sqlx::query("UPDATE knowledge_chunks SET vector = NULL, scale = 0 WHERE base_id = ?")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.classify(e))?;
        }
        tx.commit().await.map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// The folders and files base `id` indexes, sorted.
    pub async fn knowledge_sources(&self, id: i64) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> =
            sqlx::query_as("SELECT path FROM knowledge_sources WHERE base_id = ? ORDER BY path")
                .bind(id)
                .fetch_all(&self.writer)
                .await
                .map_err(|e| self.classify(e))?;
        Ok(rows.into_iter().map(|(p,)| p).collect())
    }

    /// Adds `path` (absolute) to base `id`'s sources; false when it was there already.
    pub async fn add_knowledge_source(&self, id: i64, path: &str) -> Result<bool, StoreError> {
        let done =
            sqlx::query("INSERT OR IGNORE INTO knowledge_sources (base_id, path) VALUES (?, ?)")
                .bind(id)
                .bind(path)
                .execute(&self.writer)
                .await
                .map_err(|e| self.classify(e))?;
        Ok(done.rows_affected() > 0)
    }

    /// Removes `path` from base `id`'s sources; false when it was not one.
    pub async fn remove_knowledge_source(&self, id: i64, path: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM knowledge_sources WHERE base_id = ? AND path = ?")
            .bind(id)
            .bind(path)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(done.rows_affected() > 0)
    }
}

/// `name` trimmed, or why it cannot name a knowledge base.
fn check_base_name(name: &str) -> Result<String, StoreError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(StoreError::Invalid(
            "a knowledge base needs a name".to_owned(),
        ));
    }
    if name.chars().count() > MAX_BASE_NAME {
        return Err(StoreError::Invalid(format!(
            "a knowledge base's name is at most {MAX_BASE_NAME} characters"
        )));
    }
    if name.chars().any(|c| {
        c.is_control() || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
    }) {
        return Err(StoreError::Invalid(
            "a knowledge base's name cannot hold control or invisible characters".to_owned(),
        ));
    }
    Ok(name.to_owned())
}

/// A base from its row and its sources.
fn base_with(row: BaseRow, sources: Vec<String>) -> KnowledgeBase {
    let (id, name, embedder, choice, dimensions, created_at, files, failed, chunks) = row;
    KnowledgeBase {
        id,
        name,
        embedder,
        choice: serde_json::from_str(&choice).unwrap_or_default(),
        dimensions: u32::try_from(dimensions).unwrap_or(0),
        sources,
        files: u32::try_from(files).unwrap_or(u32::MAX),
        failed: u32::try_from(failed).unwrap_or(u32::MAX),
        chunks: u32::try_from(chunks).unwrap_or(u32::MAX),
        created_at,
    }
}
