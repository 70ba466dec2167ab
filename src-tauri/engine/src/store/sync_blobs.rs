//! Attached images and sync: a message's `image_ref` names a blob by its SHA-256, and the
//! blob travels as its own file in the sync folder, sent once before the first batch that
//! shows it and fetched with the first batch that shows it here. This side of the store reads
//! a blob whole, and remembers which blobs are known to be in the sync folder.

use std::collections::HashSet;

use sqlx::Row as _;

use super::{NewBlob, Store, StoreError};

impl Store {
    /// The stored image `hash` whole (to send it), if it is stored.
    pub async fn blob_whole(&self, hash: &str) -> Result<Option<NewBlob>, StoreError> {
        let row = sqlx::query(
            "SELECT mime_type, width, height, data, thumb, thumb_mime FROM blobs WHERE hash = ?",
        )
        .bind(hash)
        .fetch_optional(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(row.map(|row| NewBlob {
            hash: hash.to_owned(),
            mime_type: row.get(0),
            width: u32::try_from(row.get::<i64, _>(1)).unwrap_or(0),
            height: u32::try_from(row.get::<i64, _>(2)).unwrap_or(0),
            data: row.get(3),
            thumb: row.get(4),
            thumb_mime: row.get(5),
        }))
    }

    /// Which of `hashes` are known to be in the sync folder.
    pub async fn synced_blobs(&self, hashes: &[String]) -> Result<HashSet<String>, StoreError> {
        let found: Vec<String> = sqlx::query_scalar(
            "SELECT hash FROM sync_blobs WHERE hash IN (SELECT value FROM json_each(?))",
        )
        .bind(serde_json::to_string(hashes)?)
        .fetch_all(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(found.into_iter().collect())
    }

    /// Records that blob `hash` is in the sync folder.
    pub async fn mark_blob_synced(&self, hash: &str) -> Result<(), StoreError> {
        sqlx::query("INSERT OR IGNORE INTO sync_blobs (hash) VALUES (?)")
            .bind(hash)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(())
    }
}
