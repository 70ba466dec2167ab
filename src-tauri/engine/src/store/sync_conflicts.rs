//! Real sync conflicts: both devices changed the same fields of a record, or one deleted what
//! the other edited. The newer edit won when the batch was applied; the other side's values
//! are kept here (and synced, so every device lists them) until the user takes them back or
//! dismisses the conflict (which syncs too).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sqlx::{Row as _, SqliteConnection};
use ts_rs::TS;

use super::sync_log::Kind;
use super::{Store, StoreError, now_ms};

/// A conflict a sync resolved, with what it set aside.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SyncConflict {
    /// The conflict's id.
    pub id: String,
    /// The record's kind: `conversation`, `message`, `assistant`, `project` or `setting`.
    pub kind: String,
    /// The record's id (a setting's key).
    pub record_id: String,
    /// The record's title or name when the conflict was found.
    pub label: String,
    /// The values set aside, field by field (empty when the other side deleted the record).
    #[ts(type = "Record<string, unknown>")]
    pub other: Value,
    /// The device whose change was set aside.
    pub other_device: String,
    /// The change set aside was a deletion: the record was kept because it was edited.
    pub deleted: bool,
    /// When it was found (Unix ms).
    pub at: i64,
}

/// The words a record is known by.
fn label_of(kind: &Kind, row: &Value) -> String {
    let text = match kind.name {
        "conversation" => row["title"].as_str(),
        "assistant" | "project" => row["name"].as_str(),
        "setting" => row["key"].as_str(),
        "message" => row["content"]
            .as_array()
            .and_then(|parts| parts.iter().find_map(|p| p["text"].as_str())),
        _ => None,
    };
    text.unwrap_or_default().chars().take(80).collect()
}

impl Store {
    /// Keeps a conflict on record `id` (as `row` now reads) and logs it to push.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn conflict(
        &self,
        conn: &mut SqliteConnection,
        me: &str,
        kind: &Kind,
        id: &str,
        row: &Value,
        other: &Value,
        other_device: &str,
        deleted: bool,
    ) -> Result<(), StoreError> {
        let conflict_id = uuid::Uuid::now_v7().to_string();
        let at = now_ms();
        sqlx::query(
            "INSERT INTO sync_conflicts (id, kind, record_id, label, other, other_device, deleted, at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&conflict_id)
        .bind(kind.name)
        .bind(id)
        .bind(label_of(kind, row))
        .bind(other.to_string())
        .bind(other_device)
        .bind(deleted)
        .bind(at)
        .execute(&mut *conn)
        .await
        .map_err(|e| self.classify(e))?;
        let conflicts = Kind::named("conflict")
            .ok_or_else(|| StoreError::Invalid("conflict is a synced kind".into()))?;
        self.log_record(conn, conflicts, &conflict_id, at, me, 1, false, None)
            .await
    }

    /// The conflicts kept, newest first.
    pub async fn sync_conflicts(&self) -> Result<Vec<SyncConflict>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, kind, record_id, label, other, other_device, deleted, at \
             FROM sync_conflicts ORDER BY at DESC, id DESC",
        )
        .fetch_all(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        rows.into_iter()
            .map(|row| {
                Ok(SyncConflict {
                    id: row.get(0),
                    kind: row.get(1),
                    record_id: row.get(2),
                    label: row.get(3),
                    other: serde_json::from_str(row.get::<&str, _>(4))?,
                    other_device: row.get(5),
                    deleted: row.get::<i64, _>(6) != 0,
                    at: row.get(7),
                })
            })
            .collect()
    }

    /// Forgets conflict `id` (what it set aside is dropped, on every synced computer).
    pub async fn dismiss_sync_conflict(&self, id: &str) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        let done = sqlx::query("DELETE FROM sync_conflicts WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.classify(e))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound {
                entity: "sync conflict",
                id: id.to_owned(),
            });
        }
        // While sync is on, the dismissal goes out too: every computer stops listing it.
        sqlx::query(
            "INSERT INTO sync_records (kind, id, version, device, dirty, deleted) \
             SELECT 'conflict', ?, ?, device, 1, 1 FROM sync_state WHERE mode = 1 \
             ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, \
             device = excluded.device, dirty = 1, deleted = 1, base = NULL",
        )
        .bind(id)
        .bind(now_ms())
        .execute(&mut *tx)
        .await
        .map_err(|e| self.classify(e))?;
        tx.commit().await.map_err(|e| self.classify(e))
    }

    /// Takes back what conflict `id` set aside: its values become a new edit here (synced
    /// like any other), and the conflict is forgotten.
    pub async fn use_sync_conflict(&self, id: &str) -> Result<(), StoreError> {
        let conflict = self
            .sync_conflicts()
            .await?
            .into_iter()
            .find(|c| c.id == id)
            .ok_or_else(|| StoreError::NotFound {
                entity: "sync conflict",
                id: id.to_owned(),
            })?;
        let kind = Kind::named(&conflict.kind)
            .ok_or_else(|| StoreError::Invalid(format!("unknown kind {}", conflict.kind)))?;
        let mut conn = self.writer.acquire().await.map_err(|e| self.classify(e))?;
        let Some(mut row) = self.row_of(&mut conn, kind, &conflict.record_id).await? else {
            return Err(StoreError::NotFound {
                entity: "record",
                id: conflict.record_id,
            });
        };
        let other = conflict.other.as_object().cloned().unwrap_or_else(Map::new);
        for (field, value) in other {
            if kind.columns.contains(&field.as_str()) && field != kind.key {
                row[field.as_str()] = value;
            }
        }
        if kind.columns.contains(&"updated_at") {
            row["updated_at"] = Value::from(now_ms());
        }
        let mut pass = super::sync_apply::Pass::default();
        self.write_row(&mut conn, kind, &row, None, &mut pass)
            .await?;
        drop(conn);
        self.dismiss_sync_conflict(id).await
    }
}
