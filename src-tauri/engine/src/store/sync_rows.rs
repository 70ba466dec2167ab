//! Rows of synced records in the store: reading a record and its sync-log row, writing a
//! record that came from another device (a message waits for its parents; a clashing name
//! gets a free one), the sync log's row of a record, and the fresh records of a batch written
//! together (a first sync brings thousands: one statement each for a kind's rows and their
//! log rows, not two per record).

use serde_json::Value;
use sqlx::{Row as _, SqliteConnection};

use super::sync_apply::{Local, Pass};
use super::sync_log::{Kind, SyncRecord};
use super::{Store, StoreError};

/// A record new here, queued to be written with the others of its kind.
pub(super) struct Fresh {
    kind: &'static Kind,
    data: Value,
    version: i64,
    device: String,
}

impl Store {
    /// Queues `data`, a record new here, to be written with the other new ones (a message
    /// whose conversation or parent is missing waits instead).
    pub(super) async fn queue_fresh(
        &self,
        conn: &mut SqliteConnection,
        kind: &'static Kind,
        r: &SyncRecord,
        data: &Value,
        pass: &mut Pass,
    ) -> Result<(), StoreError> {
        if kind.name == "message" && !self.parents_here(conn, data, &pass.known).await? {
            return self.wait(conn, kind, r, pass).await;
        }
        let mut data = data.clone();
        if kind.name == "conversation"
            && let Some(project) = data["project_id"].as_str()
            && !self.exists(conn, "projects", "id", project).await?
        {
            data["project_id"] = Value::Null;
        }
        pass.known.insert(r.id.clone());
        pass.report.applied += 1;
        pass.fresh.push(Fresh {
            kind,
            data,
            version: r.version,
            device: r.device.clone(),
        });
        Ok(())
    }

    /// Writes the queued new records, kind by kind in the order they came, with their log
    /// rows: two statements a kind.
    pub(super) async fn write_fresh(
        &self,
        conn: &mut SqliteConnection,
        pass: &mut Pass,
    ) -> Result<(), StoreError> {
        let queued = std::mem::take(&mut pass.fresh);
        for group in queued.chunk_by(|a, b| a.kind.name == b.kind.name) {
            let kind = group[0].kind;
            let rows: Vec<&Value> = group.iter().map(|f| &f.data).collect();
            let values = kind.values_sql("value");
            let sql = format!(
                "INSERT INTO {table} ({cols}) SELECT {values} FROM json_each(?) WHERE true \
                 ON CONFLICT ({key}) DO NOTHING",
                table = kind.table,
                cols = kind.columns.join(", "),
                key = kind.key,
            );
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(serde_json::to_string(&rows)?)
                .execute(&mut *conn)
                .await
                .map_err(|e| self.classify(e))?;
            let logs: Vec<(&str, i64, &str)> = group
                .iter()
                .map(|f| {
                    (
                        f.data[kind.key].as_str().unwrap_or_default(),
                        f.version,
                        f.device.as_str(),
                    )
                })
                .collect();
            sqlx::query(
                "INSERT INTO sync_records (kind, id, version, device, dirty, deleted) \
                 SELECT ?, value ->> 0, value ->> 1, value ->> 2, 0, 0 FROM json_each(?) WHERE true \
                 ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, \
                 device = excluded.device, dirty = 0, deleted = 0, base = NULL",
            )
            .bind(kind.name)
            .bind(serde_json::to_string(&logs)?)
            .execute(&mut *conn)
            .await
            .map_err(|e| self.classify(e))?;
        }
        Ok(())
    }

    /// Keeps record `r` until its conversation or parent arrives.
    async fn wait(
        &self,
        conn: &mut SqliteConnection,
        kind: &Kind,
        r: &SyncRecord,
        pass: &mut Pass,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT OR REPLACE INTO sync_waiting (kind, id, record) VALUES (?, ?, ?)")
            .bind(kind.name)
            .bind(&r.id)
            .bind(serde_json::to_string(r)?)
            .execute(conn)
            .await
            .map_err(|e| self.classify(e))?;
        pass.report.waiting += 1;
        Ok(())
    }
    /// Writes `data` as a row of `kind`. A message whose conversation or parent is missing
    /// is not written (false) and, when it came as record `wait`, waits for them; a
    /// conversation's project that is gone is left out; a name taken here by another record
    /// gets a free one.
    pub(super) async fn write_row(
        &self,
        conn: &mut SqliteConnection,
        kind: &Kind,
        data: &Value,
        wait: Option<&SyncRecord>,
        pass: &mut Pass,
    ) -> Result<bool, StoreError> {
        let mut data = data.clone();
        let id = data[kind.key].as_str().unwrap_or_default().to_owned();
        if kind.name == "message" && !self.parents_here(conn, &data, &pass.known).await? {
            if let Some(record) = wait {
                self.wait(conn, kind, record, pass).await?;
            }
            return Ok(false);
        }
        if kind.name == "conversation"
            && let Some(project) = data["project_id"].as_str()
            && !self.exists(conn, "projects", "id", project).await?
        {
            data["project_id"] = Value::Null;
        }
        let mut tries = 0;
        loop {
            match self.upsert(conn, kind, &data).await {
                Ok(()) => break,
                Err(e)
                    if tries < 3
                        && data.get("name").is_some()
                        && e.as_database_error()
                            .is_some_and(|d| d.is_unique_violation()) =>
                {
                    tries += 1;
                    let name = data["name"].as_str().unwrap_or_default();
                    data["name"] = Value::String(format!("{name} ({})", tries + 1));
                }
                Err(e) => return Err(self.classify(e)),
            }
        }
        pass.report.applied += 1;
        pass.known.insert(id);
        Ok(true)
    }

    /// Whether a message's conversation and parent are here.
    async fn parents_here(
        &self,
        conn: &mut SqliteConnection,
        data: &Value,
        known: &std::collections::HashSet<String>,
    ) -> Result<bool, StoreError> {
        let conversation = data["conversation_id"].as_str().unwrap_or_default();
        if !known.contains(conversation)
            && !self
                .exists(conn, "conversations", "id", conversation)
                .await?
        {
            return Ok(false);
        }
        match data["parent_id"].as_str() {
            Some(parent) if !known.contains(parent) => {
                self.exists(conn, "messages", "id", parent).await
            }
            _ => Ok(true),
        }
    }

    async fn exists(
        &self,
        conn: &mut SqliteConnection,
        table: &'static str,
        key: &'static str,
        id: &str,
    ) -> Result<bool, StoreError> {
        let sql = format!("SELECT EXISTS (SELECT 1 FROM {table} WHERE {key} = ?)");
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_one(conn)
            .await
            .map_err(|e| self.classify(e))
    }

    async fn upsert(
        &self,
        conn: &mut SqliteConnection,
        kind: &Kind,
        data: &Value,
    ) -> Result<(), sqlx::Error> {
        let values = kind.values_sql("?1");
        let sets: Vec<String> = kind
            .columns
            .iter()
            .filter(|c| **c != kind.key)
            .map(|c| format!("{c} = excluded.{c}"))
            .collect();
        let sql = format!(
            "INSERT INTO {table} ({cols}) VALUES ({values}) ON CONFLICT ({key}) DO UPDATE SET {sets}",
            table = kind.table,
            cols = kind.columns.join(", "),
            key = kind.key,
            sets = sets.join(", "),
        );
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(data.to_string())
            .execute(conn)
            .await?;
        Ok(())
    }

    /// The sync log's row of record `id` of `kind`.
    pub(super) async fn local_of(
        &self,
        conn: &mut SqliteConnection,
        kind: &Kind,
        id: &str,
    ) -> Result<Option<Local>, StoreError> {
        let row = sqlx::query(
            "SELECT version, device, dirty, deleted, base FROM sync_records WHERE kind = ? AND id = ?",
        )
        .bind(kind.name)
        .bind(id)
        .fetch_optional(conn)
        .await
        .map_err(|e| self.classify(e))?;
        row.map(|row| {
            let base: Option<String> = row.get(4);
            Ok(Local {
                version: row.get(0),
                device: row.get(1),
                dirty: row.get(2),
                deleted: row.get::<i64, _>(3) != 0,
                base: base.map(|b| serde_json::from_str(&b)).transpose()?,
            })
        })
        .transpose()
    }

    /// Record `id` of `kind` as it is here, column by column.
    pub(super) async fn row_of(
        &self,
        conn: &mut SqliteConnection,
        kind: &Kind,
        id: &str,
    ) -> Result<Option<Value>, StoreError> {
        let sql = format!(
            "SELECT {} FROM {} t WHERE t.{} = ?",
            kind.object_sql(),
            kind.table,
            kind.key
        );
        let text: Option<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(conn)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(text.map(|t| serde_json::from_str(&t)).transpose()?)
    }

    /// Writes the sync log's row of a record.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn log_record(
        &self,
        conn: &mut SqliteConnection,
        kind: &Kind,
        id: &str,
        version: i64,
        device: &str,
        dirty: i64,
        deleted: bool,
        base: Option<&Value>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base) \
             VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, id) DO UPDATE SET \
             version = excluded.version, device = excluded.device, dirty = excluded.dirty, \
             deleted = excluded.deleted, base = excluded.base",
        )
        .bind(kind.name)
        .bind(id)
        .bind(version)
        .bind(device)
        .bind(dirty)
        .bind(deleted)
        .bind(base.map(Value::to_string))
        .execute(conn)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(())
    }
}
