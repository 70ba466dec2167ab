//! The `serve_clients` and `serve_calls` tables: the apps allowed to use the local MCP
//! endpoint, each known by the SHA-256 of its bearer token (the token is shown once when the
//! client is made and never kept), the servers it may reach and the tools of each it may
//! call, and the calls it made.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use ts_rs::TS;

use super::{Store, StoreError, now_ms};

/// The longest client name.
pub const MAX_CLIENT_NAME: usize = 80;
/// Calls kept per client (older ones are dropped as new ones come).
pub(crate) const KEPT_CALLS: i64 = 1000;

/// An app allowed to use the local endpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ServeClient {
    /// Its id.
    pub id: String,
    /// The name the user gave it ("Claude Desktop").
    pub name: String,
    /// The servers it may reach by name; `None`: every enabled server.
    pub servers: Option<Vec<String>>,
    /// The tools it may see and call, by server name: a server named here offers it only the
    /// tools listed; a server not named here (or `None`) all its tools.
    pub tools: Option<BTreeMap<String, Vec<String>>>,
    /// When it was made, Unix milliseconds.
    pub created_at: i64,
    /// When its token was last used, Unix milliseconds.
    pub last_used_at: Option<i64>,
}

impl ServeClient {
    /// Whether it may reach the server named `server`.
    pub fn reaches(&self, server: &str) -> bool {
        (self.servers.as_deref()).is_none_or(|servers| servers.iter().any(|s| s == server))
    }

    /// Whether it may see and call `tool` of the server named `server`: the server within
    /// reach, and the tool among the server's listed ones when its tools are listed.
    pub fn may_call(&self, server: &str, tool: &str) -> bool {
        self.reaches(server)
            && (self.tools.as_ref().and_then(|t| t.get(server)))
                .is_none_or(|tools| tools.iter().any(|t| t == tool))
    }
}

/// How a client's call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// The tool ran and answered (its answer may itself be an error result).
    Done,
    /// The call could not be made (the server failed, timed out or is gone).
    Failed,
    /// The approval policy or the user said no.
    Refused,
    /// It needed the user's approval and nobody could be asked.
    Unanswered,
}

impl CallOutcome {
    fn as_str(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Refused => "refused",
            Self::Unanswered => "unanswered",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "done" => Self::Done,
            "refused" => Self::Refused,
            "unanswered" => Self::Unanswered,
            _ => Self::Failed,
        }
    }
}

/// One call a client made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ServeCall {
    /// The server's name.
    pub server: String,
    /// The tool's name on its server.
    pub tool: String,
    /// How it ended.
    pub outcome: CallOutcome,
    /// How long it took, milliseconds.
    pub duration_ms: u32,
    /// When it ended, Unix milliseconds.
    pub at: i64,
}

/// The stored form of a token: its SHA-256, hex.
pub fn token_digest(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new bearer token: `sb_` and 244 random bits from the system's generator (two v4 UUIDs).
fn new_token() -> String {
    let a = uuid::Uuid::new_v4().simple().to_string();
    let b = uuid::Uuid::new_v4().simple().to_string();
    format!("sb_{a}{b}")
}

type Row = (
    String,
    String,
    Option<String>,
    Option<String>,
    i64,
    Option<i64>,
);

const COLUMNS: &str = "id, name, servers, tools, created_at, last_used_at";

fn client_of(row: Row) -> ServeClient {
    let (id, name, servers, tools, created_at, last_used_at) = row;
    ServeClient {
        id,
        name,
        servers: servers.and_then(|s| serde_json::from_str(&s).ok()),
        tools: tools.and_then(|t| serde_json::from_str(&t).ok()),
        created_at,
        last_used_at,
    }
}

/// `name` trimmed, or why it cannot name a client.
fn checked_name(name: &str) -> Result<String, StoreError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(StoreError::Invalid("a client needs a name".into()));
    }
    if name.chars().count() > MAX_CLIENT_NAME || name.chars().any(char::is_control) {
        return Err(StoreError::Invalid(format!(
            "a client's name is one line of at most {MAX_CLIENT_NAME} characters"
        )));
    }
    Ok(name.to_owned())
}

/// `NotFound` for the client `id` when a statement changed no row.
fn found(rows: u64, id: &str) -> Result<(), StoreError> {
    if rows == 0 {
        return Err(StoreError::NotFound {
            entity: "client",
            id: id.to_owned(),
        });
    }
    Ok(())
}

impl Store {
    /// Makes a client named `name` that may reach `servers` (`None`: all), and returns it with
    /// its token — the only time the token exists outside the client's own config.
    pub async fn add_serve_client(
        &self,
        name: &str,
        servers: Option<Vec<String>>,
    ) -> Result<(ServeClient, String), StoreError> {
        let name = checked_name(name)?;
        if self.serve_client_named(&name).await?.is_some() {
            return Err(StoreError::Invalid(format!(
                "a client named {name:?} exists already"
            )));
        }
        let token = new_token();
        let client = ServeClient {
            id: uuid::Uuid::now_v7().to_string(),
            name,
            servers,
            tools: None,
            created_at: now_ms(),
            last_used_at: None,
        };
        let servers = (client.servers.as_ref()).map(|s| serde_json::json!(s).to_string());
        sqlx::query(
            "INSERT INTO serve_clients (id, name, token_sha256, servers, created_at) \
             VALUES (?, ?, ?, ?, ?)",
        )
        .bind(&client.id)
        .bind(&client.name)
        .bind(token_digest(&token))
        .bind(servers)
        .bind(client.created_at)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok((client, token))
    }

    /// Every client, by name.
    pub async fn serve_clients(&self) -> Result<Vec<ServeClient>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM serve_clients ORDER BY name COLLATE NOCASE");
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(rows.into_iter().map(client_of).collect())
    }

    /// The client named `name` (case-insensitively), if there is one.
    pub async fn serve_client_named(&self, name: &str) -> Result<Option<ServeClient>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM serve_clients WHERE name = ? COLLATE NOCASE");
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(name.trim())
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(row.map(client_of))
    }

    /// The client whose token is `token`; `None` for an unknown or revoked token.
    pub async fn serve_client_by_token(
        &self,
        token: &str,
    ) -> Result<Option<ServeClient>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM serve_clients WHERE token_sha256 = ?");
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(token_digest(token))
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(row.map(client_of))
    }

    /// Notes that the client `id` used its token now.
    pub async fn touch_serve_client(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE serve_clients SET last_used_at = ? WHERE id = ?")
            .bind(now_ms())
            .bind(id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// Sets which servers the client `id` may reach (`None`: all).
    pub async fn set_serve_client_servers(
        &self,
        id: &str,
        servers: Option<Vec<String>>,
    ) -> Result<(), StoreError> {
        let servers = servers.map(|s| serde_json::json!(s).to_string());
        let done = sqlx::query("UPDATE serve_clients SET servers = ? WHERE id = ?")
            .bind(servers)
            .bind(id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        found(done.rows_affected(), id)
    }

    /// Sets the tools the client `id` may see and call, by server (`None`: all tools of the
    /// servers it reaches). A server given no tools is refused: leave it out of the servers.
    pub async fn set_serve_client_tools(
        &self,
        id: &str,
        tools: Option<BTreeMap<String, Vec<String>>>,
    ) -> Result<(), StoreError> {
        if let Some((server, _)) = (tools.iter().flatten()).find(|(_, tools)| tools.is_empty()) {
            return Err(StoreError::Invalid(format!(
                "no tools listed for server {server:?}: to keep the client from it, leave the \
                 server out of its servers"
            )));
        }
        let tools = tools.map(|t| serde_json::json!(t).to_string());
        let done = sqlx::query("UPDATE serve_clients SET tools = ? WHERE id = ?")
            .bind(tools)
            .bind(id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        found(done.rows_affected(), id)
    }

    /// Removes the client `id`: its token stops working at once, and its calls go with it.
    pub async fn remove_serve_client(&self, id: &str) -> Result<(), StoreError> {
        let done = sqlx::query("DELETE FROM serve_clients WHERE id = ?")
            .bind(id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        found(done.rows_affected(), id)
    }

    /// Notes a call of client `client_id`, keeping its last [`KEPT_CALLS`].
    pub async fn record_serve_call(
        &self,
        client_id: &str,
        call: &ServeCall,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO serve_calls (client_id, server, tool, outcome, duration_ms, at) \
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(client_id)
        .bind(&call.server)
        .bind(&call.tool)
        .bind(call.outcome.as_str())
        .bind(i64::from(call.duration_ms))
        .bind(call.at)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        sqlx::query(
            "DELETE FROM serve_calls WHERE client_id = ? AND id <= \
             (SELECT id FROM serve_calls WHERE client_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
        )
        .bind(client_id)
        .bind(client_id)
        .bind(KEPT_CALLS)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// The last `limit` calls of client `client_id`, newest first.
    pub async fn serve_calls(
        &self,
        client_id: &str,
        limit: u32,
    ) -> Result<Vec<ServeCall>, StoreError> {
        let rows: Vec<(String, String, String, i64, i64)> = sqlx::query_as(
            "SELECT server, tool, outcome, duration_ms, at FROM serve_calls \
             WHERE client_id = ? ORDER BY id DESC LIMIT ?",
        )
        .bind(client_id)
        .bind(i64::from(limit))
        .fetch_all(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(rows
            .into_iter()
            .map(|(server, tool, outcome, duration_ms, at)| ServeCall {
                server,
                tool,
                outcome: CallOutcome::parse(&outcome),
                duration_ms: u32::try_from(duration_ms).unwrap_or(u32::MAX),
                at,
            })
            .collect())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_client_is_found_by_its_token_and_only_its_digest_is_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).await.unwrap();
        let (client, token) = store
            .add_serve_client(" Claude Desktop ", Some(vec!["clock".into()]))
            .await
            .unwrap();
        assert_eq!(client.name, "Claude Desktop");
        assert!(token.starts_with("sb_") && token.len() == 67, "{token}");
        let found = store.serve_client_by_token(&token).await.unwrap().unwrap();
        assert_eq!(found.id, client.id);
        assert_eq!(found.servers, Some(vec!["clock".to_owned()]));
        assert!(found.last_used_at.is_none());
        store.touch_serve_client(&client.id).await.unwrap();
        let found = store
            .serve_client_named("claude desktop")
            .await
            .unwrap()
            .unwrap();
        assert!(found.last_used_at.is_some());
        assert!(
            store
                .serve_client_by_token("sb_wrong")
                .await
                .unwrap()
                .is_none()
        );
        let raw = std::fs::read(dir.path().join("t.db")).unwrap();
        let wal = std::fs::read(dir.path().join("t.db-wal")).unwrap_or_default();
        let needle = token.as_bytes();
        for bytes in [&raw, &wal] {
            assert!(!bytes.windows(needle.len()).any(|w| w == needle));
        }
        store.remove_serve_client(&client.id).await.unwrap();
        assert!(store.serve_client_by_token(&token).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn a_second_client_of_the_same_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).await.unwrap();
        store.add_serve_client("Cursor", None).await.unwrap();
        let error = store.add_serve_client("cursor", None).await.unwrap_err();
        assert!(error.to_string().contains("exists already"), "{error}");
        assert!(store.add_serve_client("  ", None).await.is_err());
    }

    #[tokio::test]
    async fn a_clients_calls_are_kept_newest_first_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).await.unwrap();
        let (client, _) = store.add_serve_client("Zed", None).await.unwrap();
        for i in 0..(KEPT_CALLS + 5) {
            let call = ServeCall {
                server: "clock".into(),
                tool: format!("t{i}"),
                outcome: CallOutcome::Done,
                duration_ms: 3,
                at: i,
            };
            store.record_serve_call(&client.id, &call).await.unwrap();
        }
        let calls = store.serve_calls(&client.id, 2000).await.unwrap();
        assert_eq!(calls.len() as i64, KEPT_CALLS);
        assert_eq!(calls[0].tool, format!("t{}", KEPT_CALLS + 4));
    }

    #[tokio::test]
    async fn a_clients_tool_list_limits_only_the_servers_it_names() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).await.unwrap();
        let (client, token) = (store
            .add_serve_client("Zed", Some(vec!["clock".into(), "files".into()])))
        .await
        .unwrap();
        assert!(client.may_call("clock", "now") && client.may_call("files", "read"));
        let tools = BTreeMap::from([("clock".to_owned(), vec!["now".to_owned()])]);
        store
            .set_serve_client_tools(&client.id, Some(tools))
            .await
            .unwrap();
        let client = store.serve_client_by_token(&token).await.unwrap().unwrap();
        assert!(client.may_call("clock", "now"));
        assert!(!client.may_call("clock", "set_alarm"));
        assert!(
            client.may_call("files", "read"),
            "a server not named keeps its tools"
        );
        assert!(
            !client.may_call("web", "search"),
            "a server out of reach stays so"
        );
        let empty = BTreeMap::from([("clock".to_owned(), vec![])]);
        let error = (store.set_serve_client_tools(&client.id, Some(empty)).await).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("no tools listed for server \"clock\""),
            "{error}"
        );
        store
            .set_serve_client_tools(&client.id, None)
            .await
            .unwrap();
        let client = store.serve_client_by_token(&token).await.unwrap().unwrap();
        assert!(client.may_call("clock", "set_alarm"));
        assert!(store.set_serve_client_tools("nobody", None).await.is_err());
    }
}
