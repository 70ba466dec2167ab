//! What a knowledge base's index holds: its files (with what was last read of each and its
//! error) and their chunks (text, place, int8 vector with its scale), written one file at a
//! time in a transaction with their keyword-index rows; the keyword search (FTS5 BM25) and
//! the vectors read back for the vector search.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::page::now_ms;
use super::{Store, StoreError};

/// One file of a knowledge base as last indexed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeFile {
    /// The file's absolute path.
    pub path: String,
    /// Its size in bytes when read.
    #[ts(type = "number")]
    pub size: i64,
    /// Its modification time when read, nanoseconds since the Unix epoch.
    #[ts(type = "number")]
    pub modified_ns: i64,
    /// The SHA-256 of its bytes (none: never read whole, or to be read again).
    pub sha256: Option<String>,
    /// Its title (a document's own, else none).
    pub title: Option<String>,
    /// Its chunks.
    pub chunks: u32,
    /// Why it could not be indexed.
    pub error: Option<String>,
    /// When it was last indexed, Unix milliseconds.
    #[ts(type = "number")]
    pub indexed_at: i64,
}

/// The most files one page holds.
pub const MAX_FILES_PAGE: u32 = 500;

/// Which of a base's files to list, a page at a time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct FilesQuery {
    /// Only paths containing this text (ASCII letters in either case); empty: all.
    pub contains: String,
    /// Only files that could not be indexed.
    pub failed_only: bool,
    /// How many matching files to skip.
    pub offset: u32,
    /// How many to give (1 to [`MAX_FILES_PAGE`]).
    pub limit: u32,
}

/// A page of a base's files and how many match in all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FilesPage {
    /// How many files match the query.
    pub total: u32,
    /// This page's files, by path.
    pub files: Vec<KnowledgeFile>,
}

fn file_of(r: FileRow) -> KnowledgeFile {
    KnowledgeFile {
        path: r.0,
        size: r.1,
        modified_ns: r.2,
        sha256: r.3,
        title: r.4,
        chunks: u32::try_from(r.5).unwrap_or(0),
        error: r.6,
        indexed_at: r.7,
    }
}

/// A file's facts to record with its chunks (or its error).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileWrite {
    /// The file's absolute path.
    pub path: String,
    /// Its size in bytes.
    pub size: i64,
    /// Its modification time, nanoseconds since the Unix epoch.
    pub modified_ns: i64,
    /// The SHA-256 of its bytes.
    pub sha256: Option<String>,
    /// Its kind ("markdown", "pdf", …).
    pub kind: Option<String>,
    /// Its title.
    pub title: Option<String>,
    /// Why it could not be indexed (then it has no chunks).
    pub error: Option<String>,
}

/// One chunk to store.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkWrite {
    /// Its text.
    pub text: String,
    /// What the keyword index holds of it (its text with CJK characters spaced).
    pub keywords: String,
    /// Its first line, from 1.
    pub line: Option<u32>,
    /// Its page (PDF), from 1.
    pub page: Option<u32>,
    /// Its heading path.
    pub heading: Option<String>,
    /// The int8 vector's scale (value = byte × scale).
    pub scale: f32,
    /// The int8 vector (none: keywords only).
    pub vector: Option<Vec<u8>>,
}

/// A stored chunk with its file, as a search shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkHit {
    /// The chunk's id.
    pub id: i64,
    /// The file's path.
    pub path: String,
    /// The file's title.
    pub title: Option<String>,
    /// The chunk's text.
    pub text: String,
    /// Its first line.
    pub line: Option<u32>,
    /// Its page.
    pub page: Option<u32>,
    /// Its heading path.
    pub heading: Option<String>,
}

/// The vectors of one base, read back for the vector search: ids, scales, and the int8
/// values of all of them end to end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoredVectors {
    /// Chunk ids.
    pub ids: Vec<i64>,
    /// One scale per chunk.
    pub scales: Vec<f32>,
    /// `ids.len() × width` int8 values.
    pub values: Vec<i8>,
}

/// A chunk row joined with its file: id, path, title, text, line, page, heading.
type HitRow = (
    i64,
    String,
    Option<String>,
    String,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

type FileRow = (
    String,
    i64,
    i64,
    Option<String>,
    Option<String>,
    i64,
    Option<String>,
    i64,
);

/// The files of base `?1` whose path contains `?2` (all when empty), only failed ones when `?3`.
macro_rules! files_matching {
    () => {
        "base_id = ?1 AND (?2 = '' OR instr(lower(path), lower(?2)) > 0)
         AND (?3 = 0 OR error IS NOT NULL)"
    };
}

impl Store {
    /// Every file of base `id`, by path.
    pub async fn knowledge_files(&self, id: i64) -> Result<Vec<KnowledgeFile>, StoreError> {
        let rows: Vec<FileRow> = sqlx::query_as(
            "SELECT path, size, modified_ns, sha256, title, chunks, error, indexed_at
             FROM knowledge_files WHERE base_id = ? ORDER BY path",
        )
        .bind(id)
        .fetch_all(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(rows.into_iter().map(file_of).collect())
    }

    /// One page of base `id`'s files, by path: those whose path contains `query.contains`
    /// (ASCII letters in either case) and, with `query.failed_only`, only those with an
    /// error; with how many match in all.
    pub async fn knowledge_files_page(
        &self,
        id: i64,
        query: &FilesQuery,
    ) -> Result<FilesPage, StoreError> {
        let contains = query.contains.trim();
        let total: i64 = sqlx::query_scalar(concat!(
            "SELECT COUNT(*) FROM knowledge_files WHERE ",
            files_matching!()
        ))
        .bind(id)
        .bind(contains)
        .bind(query.failed_only)
        .fetch_one(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        let rows: Vec<FileRow> = sqlx::query_as(concat!(
            "SELECT path, size, modified_ns, sha256, title, chunks, error, indexed_at
             FROM knowledge_files WHERE ",
            files_matching!(),
            " ORDER BY path LIMIT ?4 OFFSET ?5"
        ))
        .bind(id)
        .bind(contains)
        .bind(query.failed_only)
        .bind(i64::from(query.limit.clamp(1, MAX_FILES_PAGE)))
        .bind(i64::from(query.offset))
        .fetch_all(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(FilesPage {
            total: u32::try_from(total).unwrap_or(u32::MAX),
            files: rows.into_iter().map(file_of).collect(),
        })
    }

    /// Replaces what base `id` holds of `file` with `file` and `chunks` (their keyword rows
    /// too), in one transaction.
    pub async fn put_knowledge_file(
        &self,
        id: i64,
        file: &FileWrite,
        chunks: &[ChunkWrite],
    ) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        sqlx::query(
            "DELETE FROM knowledge_chunks WHERE file_id =
                (SELECT id FROM knowledge_files WHERE base_id = ? AND path = ?)",
        )
        .bind(id)
        .bind(&file.path)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.classify(e))?;
        let (file_id,): (i64,) = sqlx::query_as(
            "INSERT INTO knowledge_files
                (base_id, path, size, modified_ns, sha256, kind, title, chunks, error, indexed_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (base_id, path) DO UPDATE SET size = excluded.size,
                modified_ns = excluded.modified_ns, sha256 = excluded.sha256,
                kind = excluded.kind, title = excluded.title, chunks = excluded.chunks,
                error = excluded.error, indexed_at = excluded.indexed_at
             RETURNING id",
        )
        .bind(id)
        .bind(&file.path)
        .bind(file.size)
        .bind(file.modified_ns)
        .bind(&file.sha256)
        .bind(&file.kind)
        .bind(&file.title)
        .bind(chunks.len() as i64)
        .bind(&file.error)
        .bind(now_ms())
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| self.classify(e))?;
        for (seq, chunk) in chunks.iter().enumerate() {
            let (chunk_id,): (i64,) = sqlx::query_as(
                "INSERT INTO knowledge_chunks
                    (file_id, base_id, seq, text, line, page, heading, scale, vector)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            )
            .bind(file_id)
            .bind(id)
            .bind(seq as i64)
            .bind(&chunk.text)
            .bind(chunk.line.map(i64::from))
            .bind(chunk.page.map(i64::from))
            .bind(&chunk.heading)
            .bind(f64::from(chunk.scale))
            .bind(&chunk.vector)
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| self.classify(e))?;
            sqlx::query("INSERT INTO knowledge_fts (rowid, body) VALUES (?, ?)")
                .bind(chunk_id)
                .bind(&chunk.keywords)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.classify(e))?;
        }
        tx.commit().await.map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// Whether `path` is a file some knowledge base indexed (read without an error).
    pub async fn is_knowledge_file(&self, path: &str) -> Result<bool, StoreError> {
        let found: Option<(i64,)> = sqlx::query_as(
            "SELECT 1 FROM knowledge_files WHERE path = ? AND error IS NULL LIMIT 1",
        )
        .bind(path)
        .fetch_optional(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(found.is_some())
    }

    /// Records that `path` in base `id` is unchanged but for its size or time.
    pub async fn touch_knowledge_file(
        &self,
        id: i64,
        path: &str,
        size: i64,
        modified_ns: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE knowledge_files SET size = ?, modified_ns = ? WHERE base_id = ? AND path = ?",
        )
        .bind(size)
        .bind(modified_ns)
        .bind(id)
        .bind(path)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// Removes `paths` (with their chunks) from base `id`.
    pub async fn remove_knowledge_files(
        &self,
        id: i64,
        paths: &[String],
    ) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        for path in paths {
            sqlx::query(
                "DELETE FROM knowledge_chunks WHERE file_id =
                    (SELECT id FROM knowledge_files WHERE base_id = ? AND path = ?)",
            )
            .bind(id)
            .bind(path)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.classify(e))?;
            sqlx::query("DELETE FROM knowledge_files WHERE base_id = ? AND path = ?")
                .bind(id)
                .bind(path)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.classify(e))?;
        }
        tx.commit().await.map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// The `limit` chunks of base `id` that best match the FTS5 expression `query`, best
    /// first, with their BM25 scores (lower is better, as FTS5 gives them).
    pub async fn knowledge_keyword_search(
        &self,
        id: i64,
        query: &str,
        limit: usize,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        sqlx::query_as(
            // CROSS JOIN keeps the full-text match as the outer loop: with a plain JOIN the
            // planner may walk every chunk of the base and test the match row by row, seconds
            // per search at 100,000 chunks.
            "SELECT f.rowid, f.rank FROM knowledge_fts f
             CROSS JOIN knowledge_chunks c ON c.id = f.rowid
             WHERE knowledge_fts MATCH ? AND c.base_id = ?
             ORDER BY f.rank LIMIT ?",
        )
        .bind(query)
        .bind(id)
        .bind(limit as i64)
        .fetch_all(&self.reader)
        .await
        .map_err(|e| self.classify(e))
    }

    /// Base `id`'s vectors of width `width` (chunks without one, or of another width, left out).
    pub async fn knowledge_vectors(
        &self,
        id: i64,
        width: usize,
    ) -> Result<StoredVectors, StoreError> {
        use futures::TryStreamExt;
        let count: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM knowledge_chunks WHERE base_id = ? AND vector IS NOT NULL",
        )
        .bind(id)
        .fetch_one(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        let count = usize::try_from(count).unwrap_or(0);
        let mut out = StoredVectors::default();
        out.ids.reserve(count);
        out.scales.reserve(count);
        out.values.reserve(count * width);
        // Row by row into the one buffer: 100,000 rows held at once would take as much memory
        // again, which the allocator keeps after the read.
        let mut rows = sqlx::query_as::<_, (i64, f64, Vec<u8>)>(
            "SELECT id, scale, vector FROM knowledge_chunks
             WHERE base_id = ? AND vector IS NOT NULL ORDER BY id",
        )
        .bind(id)
        .fetch(&self.reader);
        while let Some((chunk, scale, vector)) =
            rows.try_next().await.map_err(|e| self.classify(e))?
        {
            if vector.len() != width {
                continue;
            }
            out.ids.push(chunk);
            out.scales.push(scale as f32);
            out.values.extend(vector.iter().map(|&b| b as i8));
        }
        Ok(out)
    }

    /// The chunks `ids` with their files, in the order asked (ids no longer stored left out),
    /// read in one query.
    pub async fn knowledge_chunks(&self, ids: &[i64]) -> Result<Vec<ChunkHit>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; ids.len()].join(", ");
        let sql = format!(
            "SELECT c.id, f.path, f.title, c.text, c.line, c.page, c.heading
             FROM knowledge_chunks c JOIN knowledge_files f ON f.id = c.file_id
             WHERE c.id IN ({marks})"
        );
        let mut query = sqlx::query_as::<_, HitRow>(sqlx::AssertSqlSafe(sql));
        for id in ids {
            query = query.bind(id);
        }
        let rows = query
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        let mut by_id: std::collections::HashMap<i64, ChunkHit> = rows
            .into_iter()
            .map(|(id, path, title, text, line, page, heading)| {
                let hit = ChunkHit {
                    id,
                    path,
                    title,
                    text,
                    line: line.and_then(|n| u32::try_from(n).ok()),
                    page: page.and_then(|n| u32::try_from(n).ok()),
                    heading,
                };
                (id, hit)
            })
            .collect();
        Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
    }
}
