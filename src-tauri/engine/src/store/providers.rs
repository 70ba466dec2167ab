//! The providers repository: configured model providers (never their keys — see `secrets`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::page::{new_id, now_ms};
use super::{Store, StoreError};
use crate::vocab::{ProviderKind, ToolMode};

/// Per-provider settings kept as JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct ProviderSettings {
    /// The preset it was made from.
    #[ts(optional)]
    pub preset: Option<String>,
    /// The environment variable honoured for its key.
    #[ts(optional)]
    pub key_env: Option<String>,
    /// The model used when a conversation names none.
    #[ts(optional)]
    pub default_model: Option<String>,
    /// Tool mode per model id (absent: auto).
    pub tool_modes: BTreeMap<String, ToolMode>,
    /// Send tools in OpenAI strict mode when their schema allows it.
    pub strict_tools: bool,
}

/// A configured provider.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRecord {
    /// Time-ordered id.
    pub id: String,
    /// Unique display name, also used on the command line.
    pub name: String,
    /// The wire format.
    pub kind: ProviderKind,
    /// The base URL.
    pub base_url: String,
    /// Extra headers sent with every request.
    pub headers: BTreeMap<String, String>,
    /// Settings.
    pub settings: ProviderSettings,
    /// Creation time, Unix milliseconds.
    pub created_at: i64,
    /// Last change, Unix milliseconds.
    pub updated_at: i64,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    name: String,
    kind: String,
    base_url: Option<String>,
    headers: String,
    settings: String,
    created_at: i64,
    updated_at: i64,
}

impl TryFrom<Row> for ProviderRecord {
    type Error = StoreError;
    fn try_from(r: Row) -> Result<Self, StoreError> {
        let bad = |what: &str, e: serde_json::Error| {
            StoreError::Invalid(format!("provider {} has unreadable {what}: {e}", r.name))
        };
        Ok(Self {
            kind: serde_json::from_value(serde_json::Value::String(r.kind.clone()))
                .map_err(|e| bad("kind", e))?,
            headers: serde_json::from_str(&r.headers).map_err(|e| bad("headers", e))?,
            settings: serde_json::from_str(&r.settings).map_err(|e| bad("settings", e))?,
            id: r.id,
            name: r.name,
            base_url: r.base_url.unwrap_or_default(),
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

const COLUMNS: &str = "id, name, kind, base_url, headers, settings, created_at, updated_at";

fn json(v: &impl Serialize) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|e| StoreError::Invalid(e.to_string()))
}

fn kind_text(kind: ProviderKind) -> Result<String, StoreError> {
    match serde_json::to_value(kind) {
        Ok(serde_json::Value::String(s)) => Ok(s),
        _ => Err(StoreError::Invalid(format!(
            "unencodable provider kind {kind:?}"
        ))),
    }
}

impl Store {
    /// Saves a new provider; its name must be unique.
    pub async fn insert_provider(
        &self,
        name: &str,
        kind: ProviderKind,
        base_url: &str,
        headers: &BTreeMap<String, String>,
        settings: &ProviderSettings,
    ) -> Result<ProviderRecord, StoreError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(StoreError::Invalid("a provider needs a name".into()));
        }
        let now = now_ms();
        let sql = format!(
            "INSERT INTO providers (id, name, kind, base_url, headers, settings, created_at, \
             updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}"
        );
        let row: Result<Row, sqlx::Error> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(new_id())
            .bind(name)
            .bind(kind_text(kind)?)
            .bind(base_url)
            .bind(json(headers)?)
            .bind(json(settings)?)
            .bind(now)
            .bind(now)
            .fetch_one(&self.writer)
            .await;
        match row {
            Ok(row) => row.try_into(),
            Err(e) if is_unique_violation(&e) => Err(StoreError::Invalid(format!(
                "a provider named {name:?} already exists"
            ))),
            Err(e) => Err(self.classify(e)),
        }
    }

    /// Every provider, by name.
    pub async fn list_providers(&self) -> Result<Vec<ProviderRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM providers ORDER BY name COLLATE NOCASE");
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        rows.into_iter().map(ProviderRecord::try_from).collect()
    }

    /// The provider with this id or name.
    pub async fn find_provider(&self, id_or_name: &str) -> Result<ProviderRecord, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM providers WHERE id = ? OR name = ? LIMIT 1");
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id_or_name)
            .bind(id_or_name)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        row.ok_or_else(|| StoreError::NotFound {
            entity: "provider",
            id: id_or_name.to_owned(),
        })?
        .try_into()
    }

    /// Replaces a provider's settings.
    pub async fn update_provider_settings(
        &self,
        id: &str,
        settings: &ProviderSettings,
    ) -> Result<ProviderRecord, StoreError> {
        let sql = format!(
            "UPDATE providers SET settings = ?, updated_at = ? WHERE id = ? RETURNING {COLUMNS}"
        );
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(json(settings)?)
            .bind(now_ms())
            .bind(id)
            .fetch_optional(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        row.ok_or_else(|| StoreError::NotFound {
            entity: "provider",
            id: id.to_owned(),
        })?
        .try_into()
    }

    /// Deletes a provider.
    pub async fn delete_provider(&self, id: &str) -> Result<(), StoreError> {
        let done = sqlx::query("DELETE FROM providers WHERE id = ?")
            .bind(id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound {
                entity: "provider",
                id: id.to_owned(),
            });
        }
        Ok(())
    }
}

fn is_unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.is_unique_violation())
}
