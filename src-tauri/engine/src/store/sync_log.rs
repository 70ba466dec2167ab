//! The store's side of sync between machines, what goes out: the kinds of records that sync
//! and their columns, turning change tracking on (every record already here is logged as a
//! change to push) and off, reading the changes to push as records, marking them pushed, and
//! the cursors (this device's id, batches pushed, each peer's batches applied).
//!
//! The triggers of migration 0014 keep the log; see `sync_apply.rs` for what comes in.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::Row as _;

use super::{Store, StoreError};

/// One kind of synced record: its table, key column, columns, and which of them are JSON.
pub(super) struct Kind {
    pub name: &'static str,
    pub table: &'static str,
    pub key: &'static str,
    pub columns: &'static [&'static str],
    pub json: &'static [&'static str],
    /// Columns that change with every edit and never make a conflict (the newer side's win).
    pub derived: &'static [&'static str],
}

/// The synced kinds in the order a batch applies them (a project before the conversations in
/// it, a conversation before its messages).
pub(super) const KINDS: &[Kind] = &[
    Kind {
        name: "project",
        table: "projects",
        key: "id",
        columns: &[
            "id",
            "name",
            "icon",
            "instructions",
            "assistant_id",
            "servers",
            "created_at",
            "updated_at",
        ],
        json: &["servers"],
        derived: &["updated_at"],
    },
    Kind {
        name: "assistant",
        table: "assistants",
        key: "id",
        columns: &[
            "id",
            "name",
            "icon",
            "system_prompt",
            "provider_id",
            "model",
            "settings",
            "created_at",
            "updated_at",
        ],
        json: &["settings"],
        derived: &["updated_at"],
    },
    Kind {
        name: "conversation",
        table: "conversations",
        key: "id",
        columns: &[
            "id",
            "title",
            "created_at",
            "updated_at",
            "pinned",
            "archived",
            "provider_id",
            "model",
            "system_prompt",
            "settings",
            "head_id",
            "project_id",
        ],
        json: &["settings"],
        derived: &["updated_at", "head_id"],
    },
    Kind {
        name: "message",
        table: "messages",
        key: "id",
        columns: &[
            "id",
            "conversation_id",
            "parent_id",
            "role",
            "content",
            "status",
            "model",
            "input_tokens",
            "output_tokens",
            "error",
            "created_at",
            "updated_at",
        ],
        json: &["content"],
        derived: &["updated_at"],
    },
    Kind {
        name: "setting",
        table: "settings",
        key: "key",
        columns: &["key", "value"],
        json: &["value"],
        derived: &[],
    },
    Kind {
        name: "conflict",
        table: "sync_conflicts",
        key: "id",
        columns: &[
            "id",
            "kind",
            "record_id",
            "label",
            "other",
            "other_device",
            "deleted",
            "at",
        ],
        json: &["other"],
        derived: &[],
    },
];

/// The settings that sync (the rest belong to one machine: paths, ports, the sync target).
pub(super) const SYNCED_SETTINGS: &[&str] = &[
    "chat.auto_title",
    "chat.default_assistant",
    "chat.model_prices",
    "chat.server_wait_seconds",
    "tools.auto_allow_read_only",
];

impl Kind {
    /// The kind named `name`.
    pub(super) fn named(name: &str) -> Option<&'static Kind> {
        KINDS.iter().find(|k| k.name == name)
    }

    /// The columns read back out of the JSON object `source` (a parameter or `json_each`'s
    /// `value`), in column order, for an INSERT: JSON columns as JSON text (SQL NULL for
    /// null), the others as SQL values.
    pub(super) fn values_sql(&self, source: &str) -> String {
        let values: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                if self.json.contains(c) {
                    format!("NULLIF({source} -> '$.{c}', 'null')")
                } else {
                    format!("{source} ->> '$.{c}'")
                }
            })
            .collect();
        values.join(", ")
    }

    /// `json_object(...)` of the row aliased `t`.
    pub(super) fn object_sql(&self) -> String {
        let fields: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                if self.json.contains(c) {
                    format!("'{c}', json(t.{c})")
                } else {
                    format!("'{c}', t.{c}")
                }
            })
            .collect();
        format!("json_object({})", fields.join(", "))
    }
}

/// One record as it travels between devices: a row of a synced table (or its tombstone) with
/// the version and device of its last change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SyncRecord {
    /// `conversation`, `message`, `assistant`, `project`, `setting` or `conflict`.
    pub kind: String,
    /// The record's id (a setting's key).
    pub id: String,
    /// When it last changed (Unix ms).
    pub version: i64,
    /// The device that changed it.
    pub device: String,
    /// Deleted (then `data` is absent).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
    /// The row, column by column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// A record pushed: cleared from the log unless it changed again meanwhile.
pub type PushedKey = (String, String, i64);

/// Where this device stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncCursor {
    /// This device's id.
    pub device: String,
    /// Tracking changes (sync is set up).
    pub tracking: bool,
    /// The last batch this device wrote.
    pub pushed: u64,
    /// The last batch its head file names.
    pub head: u64,
    /// When it last finished a sync (Unix ms).
    pub last_sync: Option<i64>,
    /// Changes waiting to be pushed.
    pub pending: u64,
}

impl Store {
    /// Where this device stands.
    pub async fn sync_cursor(&self) -> Result<SyncCursor, StoreError> {
        let row = sqlx::query(
            "SELECT device, mode, pushed, head, last_sync, \
             (SELECT count(*) FROM sync_records WHERE dirty = 1) FROM sync_state",
        )
        .fetch_one(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(SyncCursor {
            device: row.get(0),
            tracking: row.get::<i64, _>(1) != 0,
            pushed: u64::try_from(row.get::<i64, _>(2)).unwrap_or(0),
            head: u64::try_from(row.get::<i64, _>(3)).unwrap_or(0),
            last_sync: row.get(4),
            pending: u64::try_from(row.get::<i64, _>(5)).unwrap_or(0),
        })
    }

    /// Turns change tracking on. The first time, every record already here is logged as a
    /// change to push (its version is its `updated_at`). Returns how many were logged.
    pub async fn start_sync_tracking(&self) -> Result<u64, StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        let mut logged = 0;
        for kind in KINDS.iter().filter(|k| k.name != "conflict") {
            let version = if kind.columns.contains(&"updated_at") {
                "t.updated_at"
            } else {
                "0"
            };
            let only = if kind.name == "setting" {
                let keys: Vec<String> = SYNCED_SETTINGS.iter().map(|k| format!("'{k}'")).collect();
                format!("WHERE t.key IN ({})", keys.join(", "))
            } else {
                String::new()
            };
            let sql = format!(
                "INSERT OR IGNORE INTO sync_records (kind, id, version, device, dirty, deleted) \
                 SELECT '{name}', t.{key}, {version}, (SELECT device FROM sync_state), 1, 0 \
                 FROM {table} t {only}",
                name = kind.name,
                key = kind.key,
                table = kind.table,
            );
            logged += sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&mut *tx)
                .await
                .map_err(|e| self.classify(e))?
                .rows_affected();
        }
        sqlx::query("UPDATE sync_state SET mode = 1")
            .execute(&mut *tx)
            .await
            .map_err(|e| self.classify(e))?;
        tx.commit().await.map_err(|e| self.classify(e))?;
        Ok(logged)
    }

    /// Turns tracking off and forgets the log, the peers' cursors and what was pushed: set up
    /// again, this device syncs as a new one (records merge by id, nothing is duplicated).
    pub async fn stop_sync_tracking(&self) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        for sql in [
            "UPDATE sync_state SET mode = 0, pushed = 0, head = 0, last_sync = NULL, \
             device = lower(hex(randomblob(16)))",
            "DELETE FROM sync_records",
            "DELETE FROM sync_peers",
            "DELETE FROM sync_waiting",
            "DELETE FROM sync_blobs",
        ] {
            sqlx::query(sql)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.classify(e))?;
        }
        tx.commit().await.map_err(|e| self.classify(e))
    }

    /// Up to `limit` changes to push, in the order they apply. A message still streaming
    /// waits for its end.
    pub async fn sync_changes(&self, limit: usize) -> Result<Vec<SyncRecord>, StoreError> {
        let mut keys = self.sync_change_keys().await?;
        keys.truncate(limit);
        self.sync_records_of(&keys).await
    }

    /// Every change to push as (kind, id), in the order they apply: kind by kind, a kind's
    /// records before its deletions, messages oldest first (a parent before its replies).
    /// Read once per push, so a push of many batches sorts once.
    pub async fn sync_change_keys(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut keys = Vec::new();
        for kind in KINDS {
            let (order, skip) = match kind.name {
                "message" => (
                    "ORDER BY r.deleted, t.created_at, r.id",
                    "AND (t.status IS NULL OR t.status <> 'streaming')",
                ),
                _ => ("ORDER BY r.deleted, r.id", ""),
            };
            let sql = format!(
                "SELECT r.id FROM sync_records r LEFT JOIN {table} t ON t.{key} = r.id \
                 WHERE r.kind = '{name}' AND r.dirty = 1 \
                 AND (r.deleted = 1 OR t.{key} IS NOT NULL) {skip} {order}",
                key = kind.key,
                table = kind.table,
                name = kind.name,
            );
            let ids: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .fetch_all(&self.reader)
                .await
                .map_err(|e| self.classify(e))?;
            keys.extend(ids.into_iter().map(|id| (kind.name.to_owned(), id)));
        }
        Ok(keys)
    }

    /// The records of `keys` as they are now, in that order (one that is no longer a change
    /// to push is left out).
    pub async fn sync_records_of(
        &self,
        keys: &[(String, String)],
    ) -> Result<Vec<SyncRecord>, StoreError> {
        let mut out = Vec::with_capacity(keys.len());
        for group in keys.chunk_by(|a, b| a.0 == b.0) {
            let Some(kind) = Kind::named(&group[0].0) else {
                continue;
            };
            let ids: Vec<&str> = group.iter().map(|(_, id)| id.as_str()).collect();
            let sql = format!(
                "SELECT r.id, r.version, r.device, r.deleted, \
                 CASE WHEN t.{key} IS NULL THEN NULL ELSE {object} END \
                 FROM json_each(?) j CROSS JOIN sync_records r ON r.kind = '{name}' AND r.id = j.value \
                 LEFT JOIN {table} t ON t.{key} = r.id \
                 WHERE r.dirty = 1 AND (r.deleted = 1 OR t.{key} IS NOT NULL) ORDER BY j.key",
                key = kind.key,
                object = kind.object_sql(),
                table = kind.table,
                name = kind.name,
            );
            let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(serde_json::to_string(&ids)?)
                .fetch_all(&self.reader)
                .await
                .map_err(|e| self.classify(e))?;
            for row in rows {
                let deleted = row.get::<i64, _>(3) != 0;
                let data: Option<String> = row.get(4);
                let data = match (deleted, data) {
                    (false, Some(text)) => Some(serde_json::from_str(&text)?),
                    _ => None,
                };
                out.push(SyncRecord {
                    kind: kind.name.to_owned(),
                    id: row.get(0),
                    version: row.get(1),
                    device: row.get(2),
                    deleted: data.is_none(),
                    data,
                });
            }
        }
        Ok(out)
    }

    /// Records batch `batch` as written: the changes in `pushed` leave the log unless they
    /// changed again since they were read, and messages deleted with a conversation whose
    /// deletion went out are forgotten.
    pub async fn mark_sync_pushed(
        &self,
        batch: u64,
        pushed: &[PushedKey],
    ) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        sqlx::query(
            "UPDATE sync_records SET dirty = 0, base = NULL WHERE dirty = 1 AND (kind, id, version) \
             IN (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?))",
        )
        .bind(serde_json::to_string(pushed)?)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.classify(e))?;
        sqlx::query(
            "DELETE FROM sync_records WHERE kind = 'message' AND dirty = 2 AND NOT EXISTS \
             (SELECT 1 FROM sync_records c WHERE c.kind = 'conversation' \
              AND c.id = json_extract(sync_records.base, '$.conversation_id') AND c.dirty = 1)",
        )
        .execute(&mut *tx)
        .await
        .map_err(|e| self.classify(e))?;
        sqlx::query("UPDATE sync_state SET pushed = ?")
            .bind(i64::try_from(batch).unwrap_or(i64::MAX))
            .execute(&mut *tx)
            .await
            .map_err(|e| self.classify(e))?;
        tx.commit().await.map_err(|e| self.classify(e))
    }

    /// Records that the head file now names batch `head`, and when the sync ended.
    pub async fn set_sync_head(&self, head: u64, finished: Option<i64>) -> Result<(), StoreError> {
        sqlx::query("UPDATE sync_state SET head = ?, last_sync = COALESCE(?, last_sync)")
            .bind(i64::try_from(head).unwrap_or(i64::MAX))
            .bind(finished)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// How far this device has applied `peer`'s batches.
    pub async fn sync_peer_applied(&self, peer: &str) -> Result<u64, StoreError> {
        let applied: Option<i64> =
            sqlx::query_scalar("SELECT applied FROM sync_peers WHERE device = ?")
                .bind(peer)
                .fetch_optional(&self.reader)
                .await
                .map_err(|e| self.classify(e))?;
        Ok(applied.and_then(|a| u64::try_from(a).ok()).unwrap_or(0))
    }
}

/// Another device seen in the sync folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SyncPeer {
    /// Its id.
    pub device: String,
    /// Its name, as it gives it.
    pub name: String,
    /// How many of its batches this device has applied.
    pub applied: u64,
}

impl Store {
    /// Records the name `peer` gives itself.
    pub async fn name_sync_peer(&self, peer: &str, name: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO sync_peers (device, name) VALUES (?, ?) \
             ON CONFLICT (device) DO UPDATE SET name = excluded.name",
        )
        .bind(peer)
        .bind(name)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// The other devices seen.
    pub async fn sync_peers(&self) -> Result<Vec<SyncPeer>, StoreError> {
        let rows = sqlx::query(
            "SELECT device, COALESCE(name, ''), applied FROM sync_peers ORDER BY name, device",
        )
        .fetch_all(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(rows
            .into_iter()
            .map(|row| SyncPeer {
                device: row.get(0),
                name: row.get(1),
                applied: u64::try_from(row.get::<i64, _>(2)).unwrap_or(0),
            })
            .collect())
    }
}
