//! The store's side of sync between machines, what comes in: applying a peer's batch of
//! records in one transaction with the peer's cursor, so an interrupted pull resumes at the
//! batch it had not finished and nothing applies twice.
//!
//! Rules, per record: a change older than what is here is ignored; a record that changed only
//! there takes the remote version; a record both sides changed is merged field by field
//! against the record as last synced (`base`), and a field both changed to different values
//! is a real conflict — the newer edit wins and the other value is kept in `sync_conflicts`.
//! A deletion loses to an edit made on the other side since the last sync: the record stays
//! (or comes back, with the messages deleted with it) and the conflict says so. A message
//! whose conversation or parent has not arrived waits in `sync_waiting`.

use serde_json::{Map, Value};
use sqlx::{Row as _, SqliteConnection};

use super::sync_log::{KINDS, Kind, SyncRecord};
use super::{Store, StoreError, now_ms};

/// What applying a batch did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Records written here.
    pub applied: u64,
    /// Records older than what is here (or of a kind this version does not know).
    pub ignored: u64,
    /// Real conflicts found (both sides kept).
    pub conflicts: u64,
    /// Records waiting for their conversation or parent.
    pub waiting: u64,
}

/// One application's state: what it did, and the ids it wrote (a message's parent written
/// earlier in the batch is not looked up again).
#[derive(Default)]
pub(super) struct Pass {
    pub(super) report: Applied,
    pub(super) known: std::collections::HashSet<String>,
    /// The batch's records the sync log has (`kind/id`), read at once: a record it does not
    /// have is not looked up.
    pub(super) logged: Option<std::collections::HashSet<String>>,
    /// Records new here, to be written together (see `sync_rows.rs`).
    pub(super) fresh: Vec<super::sync_rows::Fresh>,
}

/// The sync log's row of a record here.
pub(super) struct Local {
    pub(super) version: i64,
    pub(super) device: String,
    pub(super) dirty: i64,
    pub(super) deleted: bool,
    pub(super) base: Option<Value>,
}

impl Local {
    fn older_than(&self, r: &SyncRecord) -> bool {
        (r.version, r.device.as_str()) > (self.version, self.device.as_str())
    }
}

impl Store {
    /// Applies batch `batch` of `peer`'s changes and records it applied, all or nothing.
    pub async fn apply_sync_batch(
        &self,
        peer: &str,
        batch: u64,
        records: &[SyncRecord],
    ) -> Result<Applied, StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        let me: String = sqlx::query_scalar("SELECT device FROM sync_state")
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| self.classify(e))?;
        self.exec(&mut tx, "UPDATE sync_state SET mode = 2").await?;
        let mut sorted: Vec<&SyncRecord> = records.iter().collect();
        sorted.sort_by_key(|r| {
            KINDS
                .iter()
                .position(|k| k.name == r.kind)
                .unwrap_or(KINDS.len())
        });
        let mut pass = Pass {
            logged: Some(self.logged_of(&mut tx, records).await?),
            ..Pass::default()
        };
        for r in sorted {
            self.apply_one(&mut tx, &me, r, &mut pass).await?;
        }
        self.write_fresh(&mut tx, &mut pass).await?;
        self.retry_waiting(&mut tx, &me, &mut pass).await?;
        self.exec(&mut tx, "UPDATE sync_state SET mode = 1").await?;
        sqlx::query(
            "INSERT INTO sync_peers (device, applied) VALUES (?, ?) \
             ON CONFLICT (device) DO UPDATE SET applied = excluded.applied",
        )
        .bind(peer)
        .bind(i64::try_from(batch).unwrap_or(i64::MAX))
        .execute(&mut *tx)
        .await
        .map_err(|e| self.classify(e))?;
        tx.commit().await.map_err(|e| self.classify(e))?;
        Ok(pass.report)
    }

    async fn exec(&self, conn: &mut SqliteConnection, sql: &'static str) -> Result<(), StoreError> {
        sqlx::query(sql)
            .execute(conn)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(())
    }

    async fn apply_one(
        &self,
        conn: &mut SqliteConnection,
        me: &str,
        r: &SyncRecord,
        pass: &mut Pass,
    ) -> Result<(), StoreError> {
        // A kind this version does not know, or a setting that belongs to each machine (a
        // sync folder must not turn on the local server or change where servers run).
        let Some(kind) = Kind::named(&r.kind).filter(|k| {
            k.name != "setting" || super::sync_log::SYNCED_SETTINGS.contains(&r.id.as_str())
        }) else {
            pass.report.ignored += 1;
            return Ok(());
        };
        let unlogged = pass
            .logged
            .as_ref()
            .is_some_and(|l| !l.contains(&format!("{}/{}", r.kind, r.id)));
        let local = if unlogged {
            None
        } else {
            self.local_of(conn, kind, &r.id).await?
        };
        // Tracking logged every record here, so a record the log does not know is not here
        // (a setting may be: only the synced ones are logged).
        let current = if local.is_none() && kind.name != "setting" {
            None
        } else {
            self.row_of(conn, kind, &r.id).await?
        };
        let fresh = r.data.is_some()
            && current.is_none()
            && local.is_none()
            && matches!(kind.name, "conversation" | "message");
        if !fresh {
            self.write_fresh(conn, pass).await?;
        }
        match (&r.data, current, local) {
            (None, None, local) => {
                if local.as_ref().is_none_or(|l| l.older_than(r)) {
                    self.log_record(conn, kind, &r.id, r.version, &r.device, 0, true, None)
                        .await?;
                }
                pass.report.ignored += 1;
            }
            (None, Some(row), Some(l))
                if l.dirty == 1 || self.edited_inside(conn, kind, &r.id).await? =>
            {
                // Edited here, deleted there: the edit stays and goes out again.
                self.conflict(
                    conn,
                    me,
                    kind,
                    &r.id,
                    &row,
                    &Value::Object(Map::new()),
                    &r.device,
                    true,
                )
                .await?;
                self.bump(conn, me, kind, &r.id, r.version.max(now_ms()) + 1)
                    .await?;
                pass.report.conflicts += 1;
            }
            (None, Some(_), local) if local.as_ref().is_none_or(|l| l.older_than(r)) => {
                if kind.name == "conversation" {
                    sqlx::query(
                        "DELETE FROM sync_records WHERE kind = 'message' AND id IN \
                         (SELECT id FROM messages WHERE conversation_id = ?)",
                    )
                    .bind(&r.id)
                    .execute(&mut *conn)
                    .await
                    .map_err(|e| self.classify(e))?;
                }
                let sql = format!("DELETE FROM {} WHERE {} = ?", kind.table, kind.key);
                sqlx::query(sqlx::AssertSqlSafe(sql))
                    .bind(&r.id)
                    .execute(&mut *conn)
                    .await
                    .map_err(|e| self.classify(e))?;
                self.log_record(conn, kind, &r.id, r.version, &r.device, 0, true, None)
                    .await?;
                pass.report.applied += 1;
            }
            (None, Some(_), _) => pass.report.ignored += 1,
            (Some(data), None, Some(l)) if l.deleted && l.dirty == 1 => {
                // Deleted here, edited there: the record comes back.
                if self.write_row(conn, kind, data, Some(r), pass).await? {
                    if kind.name == "conversation" {
                        self.restore_messages(conn, &r.id, pass).await?;
                    }
                    self.conflict(
                        conn,
                        me,
                        kind,
                        &r.id,
                        data,
                        &Value::Object(Map::new()),
                        me,
                        true,
                    )
                    .await?;
                    self.log_record(conn, kind, &r.id, r.version, &r.device, 0, false, None)
                        .await?;
                    pass.report.conflicts += 1;
                }
            }
            (Some(_), None, Some(l)) if !l.older_than(r) => pass.report.ignored += 1,
            (Some(data), None, None) if matches!(kind.name, "conversation" | "message") => {
                self.queue_fresh(conn, kind, r, data, pass).await?;
            }
            (Some(data), None, _) => {
                if self.write_row(conn, kind, data, Some(r), pass).await? {
                    self.log_record(conn, kind, &r.id, r.version, &r.device, 0, false, None)
                        .await?;
                }
            }
            (Some(data), Some(row), Some(l)) if l.dirty == 1 => {
                self.merge(conn, me, kind, r, data, &row, &l, pass).await?;
            }
            (Some(_), Some(_), Some(l)) if !l.older_than(r) => pass.report.ignored += 1,
            (Some(data), Some(_), _) => {
                if self.write_row(conn, kind, data, Some(r), pass).await? {
                    self.log_record(conn, kind, &r.id, r.version, &r.device, 0, false, None)
                        .await?;
                }
            }
        }
        Ok(())
    }

    /// Both sides changed the record: field by field against the base, the newer edit
    /// winning a field both changed (the other value kept as a conflict).
    #[allow(clippy::too_many_arguments)]
    async fn merge(
        &self,
        conn: &mut SqliteConnection,
        me: &str,
        kind: &Kind,
        r: &SyncRecord,
        remote: &Value,
        current: &Value,
        l: &Local,
        pass: &mut Pass,
    ) -> Result<(), StoreError> {
        let local_newer = !l.older_than(r);
        let mut merged = current.clone();
        let mut other = Map::new();
        for col in kind.columns.iter().filter(|c| **c != kind.key) {
            let (here, there) = (&current[*col], &remote[*col]);
            if here == there {
                continue;
            }
            if kind.derived.contains(col) {
                let take_there = match (*col, here.as_i64(), there.as_i64()) {
                    ("updated_at", Some(a), Some(b)) => b > a,
                    _ => !local_newer,
                };
                if take_there {
                    merged[*col] = there.clone();
                }
                continue;
            }
            let base = l.base.as_ref().map(|b| &b[*col]);
            let changed_here = base.is_none_or(|b| b != here);
            let changed_there = base.is_none_or(|b| b != there);
            match (changed_here, changed_there) {
                (false, _) => merged[*col] = there.clone(),
                (true, false) => {}
                (true, true) if local_newer => {
                    other.insert((*col).to_owned(), there.clone());
                }
                (true, true) => {
                    other.insert((*col).to_owned(), here.clone());
                    merged[*col] = there.clone();
                }
            }
        }
        if !other.is_empty() {
            let loser = if local_newer { r.device.as_str() } else { me };
            self.conflict(
                conn,
                me,
                kind,
                &r.id,
                &merged,
                &Value::Object(other),
                loser,
                false,
            )
            .await?;
            pass.report.conflicts += 1;
        }
        if !self.write_row(conn, kind, &merged, None, pass).await? {
            return Ok(());
        }
        if &merged == remote {
            self.log_record(conn, kind, &r.id, r.version, &r.device, 0, false, None)
                .await
        } else {
            let version = l.version.max(r.version) + 1;
            self.log_record(conn, kind, &r.id, version, me, 1, false, Some(remote))
                .await
        }
    }

    /// Whether a conversation has messages changed here since the last push.
    async fn edited_inside(
        &self,
        conn: &mut SqliteConnection,
        kind: &Kind,
        id: &str,
    ) -> Result<bool, StoreError> {
        if kind.name != "conversation" {
            return Ok(false);
        }
        sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM sync_records r JOIN messages m ON m.id = r.id \
             WHERE r.kind = 'message' AND r.dirty = 1 AND m.conversation_id = ?)",
        )
        .bind(id)
        .fetch_one(conn)
        .await
        .map_err(|e| self.classify(e))
    }

    /// Marks a record (and a conversation's messages) changed here at `version`, so it goes
    /// out again and wins over the deletion it survived.
    async fn bump(
        &self,
        conn: &mut SqliteConnection,
        me: &str,
        kind: &Kind,
        id: &str,
        version: i64,
    ) -> Result<(), StoreError> {
        self.log_record(conn, kind, id, version, me, 1, false, None)
            .await?;
        if kind.name == "conversation" {
            sqlx::query(
                "INSERT INTO sync_records (kind, id, version, device, dirty, deleted) \
                 SELECT 'message', id, ?, ?, 1, 0 FROM messages WHERE conversation_id = ? \
                 ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, \
                 device = excluded.device, dirty = 1, deleted = 0",
            )
            .bind(version)
            .bind(me)
            .bind(id)
            .execute(conn)
            .await
            .map_err(|e| self.classify(e))?;
        }
        Ok(())
    }

    /// Puts back the messages deleted here with conversation `id`.
    async fn restore_messages(
        &self,
        conn: &mut SqliteConnection,
        id: &str,
        pass: &mut Pass,
    ) -> Result<(), StoreError> {
        let rows = sqlx::query(
            "SELECT id, version, device, base FROM sync_records WHERE kind = 'message' \
             AND dirty = 2 AND json_extract(base, '$.conversation_id') = ? \
             ORDER BY json_extract(base, '$.created_at'), id",
        )
        .bind(id)
        .fetch_all(&mut *conn)
        .await
        .map_err(|e| self.classify(e))?;
        let kind = Kind::named("message")
            .ok_or_else(|| StoreError::Invalid("message is a synced kind".into()))?;
        for row in rows {
            let base: String = row.get(3);
            let data: Value = serde_json::from_str(&base)?;
            if self.write_row(conn, kind, &data, None, pass).await? {
                let (mid, version, device): (String, i64, String) =
                    (row.get(0), row.get(1), row.get(2));
                self.log_record(conn, kind, &mid, version, &device, 0, false, None)
                    .await?;
            }
        }
        Ok(())
    }

    /// Which of `records` the sync log has, as `kind/id`.
    async fn logged_of(
        &self,
        conn: &mut SqliteConnection,
        records: &[SyncRecord],
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        let keys: Vec<[&str; 2]> = records
            .iter()
            .map(|r| [r.kind.as_str(), r.id.as_str()])
            .collect();
        let found: Vec<String> = sqlx::query_scalar(
            "SELECT kind || '/' || id FROM sync_records WHERE (kind, id) IN \
             (SELECT value ->> 0, value ->> 1 FROM json_each(?))",
        )
        .bind(serde_json::to_string(&keys)?)
        .fetch_all(conn)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(found.into_iter().collect())
    }

    /// Applies the records waiting for a parent, as long as one more can be applied.
    async fn retry_waiting(
        &self,
        conn: &mut SqliteConnection,
        me: &str,
        pass: &mut Pass,
    ) -> Result<(), StoreError> {
        loop {
            let rows = sqlx::query("SELECT kind, id, record FROM sync_waiting")
                .fetch_all(&mut *conn)
                .await
                .map_err(|e| self.classify(e))?;
            let before = rows.len();
            if before == 0 {
                return Ok(());
            }
            self.exec(conn, "DELETE FROM sync_waiting").await?;
            pass.report.waiting = 0;
            for row in rows {
                let record: SyncRecord = serde_json::from_str(row.get::<&str, _>(2))?;
                self.apply_one(conn, me, &record, pass).await?;
            }
            self.write_fresh(conn, pass).await?;
            if pass.report.waiting as usize >= before {
                return Ok(());
            }
        }
    }
}
