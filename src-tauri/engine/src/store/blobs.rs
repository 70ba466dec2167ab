//! The blob repository: attached images stored once by the SHA-256 of their bytes (a message
//! names the hash), read back whole or as a thumbnail, and dropped when no message names them.

use std::collections::HashMap;

use base64::Engine as _;

use super::page::now_ms;
use super::{Message, Store, StoreError};
use crate::vocab::content::ContentPart;

/// What a model and an export see for an image whose bytes are no longer stored.
pub(crate) const MISSING_IMAGE: &str = "[an attached image that is no longer stored]";

/// An image to store: the bytes a model is sent and a thumbnail for lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewBlob {
    /// Lowercase hex SHA-256 of `data`.
    pub hash: String,
    /// MIME type of `data`.
    pub mime_type: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The image's bytes.
    pub data: Vec<u8>,
    /// A small version of it.
    pub thumb: Vec<u8>,
    /// MIME type of `thumb`.
    pub thumb_mime: String,
}

/// Stored image bytes and their MIME type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobBytes {
    /// MIME type.
    pub mime_type: String,
    /// The bytes.
    pub data: Vec<u8>,
}

impl Store {
    /// Stores `blob` unless its hash is stored already; true when it was new.
    pub async fn put_blob(&self, blob: &NewBlob) -> Result<bool, StoreError> {
        let mut conn = self.writer.acquire().await.map_err(|e| self.classify(e))?;
        self.put_blob_on(&mut conn, blob).await
    }

    /// [`Store::put_blob`] inside the open transaction `tx` (an import's).
    pub(crate) async fn put_blob_in(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
        blob: &NewBlob,
    ) -> Result<bool, StoreError> {
        self.put_blob_on(tx, blob).await
    }

    async fn put_blob_on(
        &self,
        conn: &mut sqlx::SqliteConnection,
        blob: &NewBlob,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "INSERT OR IGNORE INTO blobs \
             (hash, mime_type, width, height, data, thumb, thumb_mime, created_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&blob.hash)
        .bind(&blob.mime_type)
        .bind(i64::from(blob.width))
        .bind(i64::from(blob.height))
        .bind(&blob.data)
        .bind(&blob.thumb)
        .bind(&blob.thumb_mime)
        .bind(now_ms())
        .execute(conn)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(done.rows_affected() == 1)
    }

    /// Whether an image with `hash` is stored.
    pub async fn has_blob(&self, hash: &str) -> Result<bool, StoreError> {
        let found: Option<i64> = sqlx::query_scalar("SELECT 1 FROM blobs WHERE hash = ?")
            .bind(hash)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(found.is_some())
    }

    /// The stored image with `hash`.
    pub async fn blob(&self, hash: &str) -> Result<BlobBytes, StoreError> {
        self.blob_column(hash, "mime_type, data").await
    }

    /// The thumbnail of the stored image with `hash`.
    pub async fn blob_thumb(&self, hash: &str) -> Result<BlobBytes, StoreError> {
        self.blob_column(hash, "thumb_mime, thumb").await
    }

    async fn blob_column(&self, hash: &str, columns: &str) -> Result<BlobBytes, StoreError> {
        let sql = format!("SELECT {columns} FROM blobs WHERE hash = ?");
        let row: Option<(String, Vec<u8>)> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(hash)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        let (mime_type, data) = row.ok_or_else(|| StoreError::NotFound {
            entity: "image",
            id: hash.to_owned(),
        })?;
        Ok(BlobBytes { mime_type, data })
    }

    /// How many images are stored and their bytes (data and thumbnails).
    pub async fn blob_totals(&self) -> Result<(i64, i64), StoreError> {
        sqlx::query_as("SELECT COUNT(*), COALESCE(SUM(length(data) + length(thumb)), 0) FROM blobs")
            .fetch_one(&self.reader)
            .await
            .map_err(|e| self.classify(e))
    }

    /// Deletes the images no message names and that were stored before `older_than_ms` (so an
    /// image attached in the composer but not sent yet is kept a while); returns how many.
    pub async fn delete_unused_blobs(&self, older_than_ms: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "DELETE FROM blobs WHERE created_at < ? AND NOT EXISTS \
             (SELECT 1 FROM messages m WHERE instr(m.content, blobs.hash) > 0)",
        )
        .bind(older_than_ms)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(done.rows_affected())
    }

    /// Puts each stored image's bytes in place of its reference in `messages` (an `image`
    /// part with base64 data; an image no longer stored becomes a note), for a model request
    /// or an export. Each image is read once however many messages show it.
    pub async fn inline_images(&self, messages: &mut [Message]) -> Result<(), StoreError> {
        // Per hash: the MIME type and base64 bytes, or None when no longer stored.
        let mut cache: HashMap<String, Option<(String, String)>> = HashMap::new();
        for part in messages.iter_mut().flat_map(|m| m.content.iter_mut()) {
            let ContentPart::ImageRef(r) = part else {
                continue;
            };
            if !cache.contains_key(&r.hash) {
                let found = match self.blob(&r.hash).await {
                    Ok(b) => Some((
                        b.mime_type,
                        base64::engine::general_purpose::STANDARD.encode(&b.data),
                    )),
                    Err(StoreError::NotFound { .. }) => None,
                    Err(e) => return Err(e),
                };
                cache.insert(r.hash.clone(), found);
            }
            *part = match cache.get(&r.hash).cloned().flatten() {
                Some((mime_type, data)) => ContentPart::Image {
                    mime_type,
                    data,
                    name: r.name.clone(),
                },
                None => ContentPart::text(MISSING_IMAGE),
            };
        }
        Ok(())
    }
}
