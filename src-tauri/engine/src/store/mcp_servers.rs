//! The MCP servers repository: each configured server's name, transport kind, enabled flag and
//! its configuration as JSON.
//!
//! Env and header values may be secrets: they never reach the database. The `config` column
//! holds the config with those values blanked (their names kept); the values live in the OS
//! keychain (see `mcp::host::server_secrets`). A database written before that keeps them under
//! the column's `"secrets"` key: they are read back (as [`ServerRecord`] values) so the host
//! can move them to the keychain at start, and every write drops that key.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sqlx::SqliteConnection;
use ts_rs::TS;

use super::page::{new_id, now_ms};
use super::{Store, StoreError};
use crate::vocab::server::secrets_of_mut;
use crate::vocab::server::{Approval, ServerConfig, Transport};
use serde_json::Value;

/// A configured MCP server as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ServerRecord {
    /// Time-ordered id.
    pub id: String,
    /// The configuration.
    pub config: ServerConfig,
    /// Creation time, Unix milliseconds.
    pub created_at: i64,
    /// Last change, Unix milliseconds.
    pub updated_at: i64,
}

/// The `config` column: the config with env/header values blanked.
#[derive(Serialize, Deserialize)]
struct Stored {
    #[serde(flatten)]
    config: ServerConfig,
    /// Only in rows written by an older version: the env (stdio) or header (remote) values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    secrets: BTreeMap<String, String>,
}

impl Stored {
    fn of(config: &ServerConfig) -> Self {
        Self {
            secrets: BTreeMap::new(),
            config: config.without_secrets(),
        }
    }

    fn into_config(self) -> ServerConfig {
        let mut config = self.config;
        secrets_of_mut(&mut config.transport).extend(self.secrets);
        config
    }
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    name: String,
    config: String,
    enabled: i64,
    created_at: i64,
    updated_at: i64,
}

impl TryFrom<Row> for ServerRecord {
    type Error = StoreError;
    fn try_from(r: Row) -> Result<Self, StoreError> {
        let stored: Stored = serde_json::from_str(&r.config).map_err(|e| {
            StoreError::Invalid(format!("server {:?} has an unreadable config: {e}", r.name))
        })?;
        let mut config = stored.into_config();
        config.name = r.name;
        config.enabled = r.enabled != 0;
        Ok(Self {
            id: r.id,
            config,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

const COLUMNS: &str = "id, name, config, enabled, created_at, updated_at";

/// The `transport` column's value.
fn kind_text(t: &Transport) -> &'static str {
    match t {
        Transport::Stdio { .. } => "stdio",
        Transport::Http { .. } => "http",
        Transport::Sse { .. } => "sse",
        Transport::Builtin { .. } => "builtin",
    }
}

fn config_json(config: &ServerConfig) -> Result<String, StoreError> {
    serde_json::to_string(&Stored::of(config)).map_err(|e| StoreError::Invalid(e.to_string()))
}

fn not_found(id: &str) -> StoreError {
    StoreError::NotFound {
        entity: "server",
        id: id.to_owned(),
    }
}

fn exists(name: &str) -> StoreError {
    StoreError::Invalid(format!("a server named {name:?} already exists"))
}

async fn insert(conn: &mut SqliteConnection, config: &ServerConfig) -> Result<Row, sqlx::Error> {
    let now = now_ms();
    let sql = format!(
        "INSERT INTO mcp_servers (id, name, transport, config, enabled, created_at, updated_at) \
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}"
    );
    let json = config_json(config).map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(new_id())
        .bind(&config.name)
        .bind(kind_text(&config.transport))
        .bind(json)
        .bind(i64::from(config.enabled))
        .bind(now)
        .bind(now)
        .fetch_one(conn)
        .await
}

async fn update(
    conn: &mut SqliteConnection,
    id: &str,
    config: &ServerConfig,
) -> Result<Option<Row>, sqlx::Error> {
    let sql = format!(
        "UPDATE mcp_servers SET name = ?, transport = ?, config = ?, enabled = ?, \
         updated_at = ? WHERE id = ? RETURNING {COLUMNS}"
    );
    let json = config_json(config).map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(&config.name)
        .bind(kind_text(&config.transport))
        .bind(json)
        .bind(i64::from(config.enabled))
        .bind(now_ms())
        .bind(id)
        .fetch_optional(conn)
        .await
}

impl Store {
    /// Saves a new server; its name must be unique.
    pub async fn insert_server(&self, config: &ServerConfig) -> Result<ServerRecord, StoreError> {
        let mut conn = self.writer.acquire().await.map_err(|e| self.classify(e))?;
        match insert(&mut conn, config).await {
            Ok(row) => row.try_into(),
            Err(e) if is_unique_violation(&e) => Err(exists(&config.name)),
            Err(e) => Err(self.classify(e)),
        }
    }

    /// Every server, by name.
    pub async fn list_servers(&self) -> Result<Vec<ServerRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM mcp_servers ORDER BY name COLLATE NOCASE, name");
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        rows.into_iter().map(ServerRecord::try_from).collect()
    }

    /// The server with this id or, failing that, this name.
    pub async fn find_server(&self, id_or_name: &str) -> Result<ServerRecord, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM mcp_servers WHERE id = ? OR name = ? \
             ORDER BY id = ? DESC LIMIT 1"
        );
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id_or_name)
            .bind(id_or_name)
            .bind(id_or_name)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        row.ok_or_else(|| not_found(id_or_name))?.try_into()
    }

    /// What a tool call's approval reads, in one query: the server with this id or name (as
    /// [`Store::find_server`]), the user's policy for its `tool` (as [`Store::tool_policy`])
    /// and the value of setting `setting` (as [`Store::setting`]).
    /// Kept between calls while the database is unchanged (`policy_cache`).
    pub async fn server_with_policy(
        &self,
        id_or_name: &str,
        tool: &str,
        setting: &str,
    ) -> Result<(ServerRecord, Option<Approval>, Option<Value>), StoreError> {
        let key = (id_or_name.to_owned(), tool.to_owned(), setting.to_owned());
        let stamp = self.policy.stamp(&self.path);
        if let Some(stamp) = &stamp
            && let Some(kept) = self.policy.get(&key, stamp)
        {
            return Ok(kept);
        }
        let read = self
            .read_server_with_policy(id_or_name, tool, setting)
            .await?;
        if let Some(stamp) = stamp {
            self.policy.put(key, stamp, read.clone());
        }
        Ok(read)
    }

    /// [`Store::server_with_policy`] from the database.
    async fn read_server_with_policy(
        &self,
        id_or_name: &str,
        tool: &str,
        setting: &str,
    ) -> Result<(ServerRecord, Option<Approval>, Option<Value>), StoreError> {
        #[derive(sqlx::FromRow)]
        struct WithPolicy {
            #[sqlx(flatten)]
            row: Row,
            policy: Option<String>,
            setting: Option<String>,
        }
        let sql = format!(
            "SELECT {COLUMNS}, \
             (SELECT policy FROM tool_policies p WHERE p.server_id = s.id AND p.tool = ?) AS policy, \
             (SELECT value FROM settings WHERE key = ?) AS setting \
             FROM mcp_servers s WHERE id = ? OR name = ? ORDER BY id = ? DESC LIMIT 1"
        );
        let found: Option<WithPolicy> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(tool)
            .bind(setting)
            .bind(id_or_name)
            .bind(id_or_name)
            .bind(id_or_name)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        let found = found.ok_or_else(|| not_found(id_or_name))?;
        let value = found
            .setting
            .map(|v| serde_json::from_str(&v))
            .transpose()
            .map_err(|e| StoreError::Invalid(format!("setting `{setting}` is not JSON: {e}")))?;
        let policy = found.policy.as_deref().and_then(super::settings::approval);
        Ok((found.row.try_into()?, policy, value))
    }

    /// Replaces a server's configuration (name, transport, settings and enabled flag).
    pub async fn update_server(
        &self,
        id: &str,
        config: &ServerConfig,
    ) -> Result<ServerRecord, StoreError> {
        let mut conn = self.writer.acquire().await.map_err(|e| self.classify(e))?;
        match update(&mut conn, id, config).await {
            Ok(row) => row.ok_or_else(|| not_found(id))?.try_into(),
            Err(e) if is_unique_violation(&e) => Err(exists(&config.name)),
            Err(e) => Err(self.classify(e)),
        }
    }

    /// Turns a server on or off.
    pub async fn set_server_enabled(
        &self,
        id: &str,
        enabled: bool,
    ) -> Result<ServerRecord, StoreError> {
        let sql = format!(
            "UPDATE mcp_servers SET enabled = ?, updated_at = ? WHERE id = ? RETURNING {COLUMNS}"
        );
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(i64::from(enabled))
            .bind(now_ms())
            .bind(id)
            .fetch_optional(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        row.ok_or_else(|| not_found(id))?.try_into()
    }

    /// Deletes a server (and its tool policies).
    pub async fn delete_server(&self, id: &str) -> Result<(), StoreError> {
        let done = sqlx::query("DELETE FROM mcp_servers WHERE id = ?")
            .bind(id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        if done.rows_affected() == 0 {
            return Err(not_found(id));
        }
        Ok(())
    }

    /// Adds `added` and replaces the configs of the servers with the ids in `replaced`, all or
    /// nothing. Returns the ids of the added servers, in order.
    pub async fn import_servers(
        &self,
        added: &[ServerConfig],
        replaced: &[(String, ServerConfig)],
    ) -> Result<Vec<String>, StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        let mut ids = Vec::with_capacity(added.len());
        for config in added {
            match insert(&mut tx, config).await {
                Ok(row) => ids.push(row.id),
                Err(e) if is_unique_violation(&e) => return Err(exists(&config.name)),
                Err(e) => return Err(self.classify(e)),
            }
        }
        for (id, config) in replaced {
            let row = update(&mut tx, id, config)
                .await
                .map_err(|e| self.classify(e))?;
            row.ok_or_else(|| not_found(id))?;
        }
        tx.commit().await.map_err(|e| self.classify(e))?;
        Ok(ids)
    }
}

fn is_unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.is_unique_violation())
}
