//! The `settings` table (global key → JSON value) and the `tool_policies` table (one approval
//! policy per server id and tool name).

use serde_json::Value;

use super::{Store, StoreError};
use crate::vocab::server::Approval;

impl Store {
    /// The value of setting `key`, if set.
    pub async fn setting(&self, key: &str) -> Result<Option<Value>, StoreError> {
        let value: Option<(String,)> = sqlx::query_as("SELECT value FROM settings WHERE key = ?")
            .bind(key)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        value
            .map(|(v,)| serde_json::from_str(&v))
            .transpose()
            .map_err(|e| StoreError::Invalid(format!("setting `{key}` is not JSON: {e}")))
    }

    /// Sets setting `key` to `value`.
    pub async fn set_setting(&self, key: &str, value: &Value) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO settings (key, value) VALUES (?, ?) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(key)
        .bind(value.to_string())
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// The policy set for `tool` of server `server_id`, if any.
    pub async fn tool_policy(
        &self,
        server_id: &str,
        tool: &str,
    ) -> Result<Option<Approval>, StoreError> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT policy FROM tool_policies WHERE server_id = ? AND tool = ?")
                .bind(server_id)
                .bind(tool)
                .fetch_optional(&self.reader)
                .await
                .map_err(|e| self.classify(e))?;
        Ok(row.and_then(|(p,)| approval(&p)))
    }

    /// Every tool policy the user set for server `server_id`, by tool name.
    pub async fn tool_policies(
        &self,
        server_id: &str,
    ) -> Result<std::collections::BTreeMap<String, Approval>, StoreError> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT tool, policy FROM tool_policies WHERE server_id = ?")
                .bind(server_id)
                .fetch_all(&self.reader)
                .await
                .map_err(|e| self.classify(e))?;
        Ok(rows
            .into_iter()
            .filter_map(|(tool, p)| approval(&p).map(|a| (tool, a)))
            .collect())
    }

    /// Sets (or with `None` clears) the policy of `tool` of server `server_id`.
    pub async fn set_tool_policy(
        &self,
        server_id: &str,
        tool: &str,
        policy: Option<Approval>,
    ) -> Result<(), StoreError> {
        let query = match policy {
            Some(p) => sqlx::query(
                "INSERT INTO tool_policies (server_id, tool, policy) VALUES (?, ?, ?) \
                 ON CONFLICT (server_id, tool) DO UPDATE SET policy = excluded.policy",
            )
            .bind(server_id)
            .bind(tool)
            .bind(policy_text(p)),
            None => sqlx::query("DELETE FROM tool_policies WHERE server_id = ? AND tool = ?")
                .bind(server_id)
                .bind(tool),
        };
        query
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(())
    }
}

fn policy_text(p: Approval) -> &'static str {
    match p {
        Approval::Ask => "ask",
        Approval::Allow => "allow",
        Approval::Deny => "deny",
    }
}

pub(super) fn approval(text: &str) -> Option<Approval> {
    match text {
        "ask" => Some(Approval::Ask),
        "allow" => Some(Approval::Allow),
        "deny" => Some(Approval::Deny),
        _ => None,
    }
}
