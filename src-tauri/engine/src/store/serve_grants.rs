//! The "always allow" answers the user gave in the window for a registered app using the local
//! endpoint: (client, server, tool) rows in `serve_client_grants`, which go with the client and
//! with the server (foreign keys), and are dropped when a server is replaced.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Store, StoreError};

/// A tool a client may call without asking.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ServeGrant {
    /// The server's name.
    pub server: String,
    /// The tool.
    pub tool: String,
}

impl Store {
    /// Lets client `client_id` call `tool` of server `server_id` without asking from now on.
    pub async fn grant_serve_client(
        &self,
        client_id: &str,
        server_id: &str,
        tool: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT OR IGNORE INTO serve_client_grants (client_id, server_id, tool) VALUES (?, ?, ?)",
        )
        .bind(client_id)
        .bind(server_id)
        .bind(tool)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// Whether client `client_id` was always allowed `tool` of server `server_id`.
    pub async fn serve_client_granted(
        &self,
        client_id: &str,
        server_id: &str,
        tool: &str,
    ) -> Result<bool, StoreError> {
        let found: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM serve_client_grants WHERE client_id = ? AND server_id = ? AND tool = ?",
        )
        .bind(client_id)
        .bind(server_id)
        .bind(tool)
        .fetch_optional(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(found.is_some())
    }

    /// The tools client `client_id` was always allowed, by server name and tool.
    pub async fn serve_client_grants(
        &self,
        client_id: &str,
    ) -> Result<Vec<ServeGrant>, StoreError> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT s.name, g.tool FROM serve_client_grants g JOIN mcp_servers s ON s.id = g.server_id \
             WHERE g.client_id = ? ORDER BY s.name, g.tool",
        )
        .bind(client_id)
        .fetch_all(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(rows
            .into_iter()
            .map(|(server, tool)| ServeGrant { server, tool })
            .collect())
    }

    /// Takes back client `client_id`'s "always" for `tool` of server `server` (its name):
    /// the policy asks again.
    pub async fn revoke_serve_client_grant(
        &self,
        client_id: &str,
        server: &str,
        tool: &str,
    ) -> Result<(), StoreError> {
        let done = sqlx::query(
            "DELETE FROM serve_client_grants WHERE client_id = ? AND tool = ? AND server_id = \
             (SELECT id FROM mcp_servers WHERE name = ?)",
        )
        .bind(client_id)
        .bind(tool)
        .bind(server)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound {
                entity: "client's \"always\" for",
                id: format!("{server}/{tool}"),
            });
        }
        Ok(())
    }

    /// Drops every client's grants on server `server_id` (it was replaced by another).
    pub async fn clear_serve_grants_of_server(&self, server_id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM serve_client_grants WHERE server_id = ?")
            .bind(server_id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::store::Store;
    use crate::store::tests::with_time_server;

    async fn store_with_server(dir: &std::path::Path) -> (Store, String) {
        with_time_server(&dir.join("s.db")).await
    }

    #[tokio::test]
    async fn a_grant_is_the_clients_alone_and_goes_with_the_client_or_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let (store, server) = store_with_server(dir.path()).await;
        let (cursor, _) = store.add_serve_client("Cursor", None).await.unwrap();
        let (zed, _) = store.add_serve_client("Zed", None).await.unwrap();
        store
            .grant_serve_client(&cursor.id, &server, "now")
            .await
            .unwrap();
        store
            .grant_serve_client(&cursor.id, &server, "now")
            .await
            .unwrap();
        assert!(
            store
                .serve_client_granted(&cursor.id, &server, "now")
                .await
                .unwrap()
        );
        assert!(
            !store
                .serve_client_granted(&zed.id, &server, "now")
                .await
                .unwrap()
        );
        assert!(
            !store
                .serve_client_granted(&cursor.id, &server, "convert")
                .await
                .unwrap()
        );
        let all = store.serve_client_grants(&cursor.id).await.unwrap();
        let now = super::ServeGrant {
            server: "time".to_owned(),
            tool: "now".to_owned(),
        };
        assert_eq!(all, [now]);
        let gone = store
            .revoke_serve_client_grant(&zed.id, "time", "now")
            .await;
        assert!(
            matches!(gone, Err(crate::store::StoreError::NotFound { .. })),
            "{gone:?}"
        );
        (store
            .revoke_serve_client_grant(&cursor.id, "time", "now")
            .await)
            .unwrap();
        assert!(
            store
                .serve_client_grants(&cursor.id)
                .await
                .unwrap()
                .is_empty()
        );
        store
            .grant_serve_client(&cursor.id, &server, "now")
            .await
            .unwrap();

        store.clear_serve_grants_of_server(&server).await.unwrap();
        assert!(
            !store
                .serve_client_granted(&cursor.id, &server, "now")
                .await
                .unwrap()
        );
        store
            .grant_serve_client(&cursor.id, &server, "now")
            .await
            .unwrap();
        store.remove_serve_client(&cursor.id).await.unwrap();
        let (again, _) = store.add_serve_client("Cursor", None).await.unwrap();
        assert!(
            !store
                .serve_client_granted(&again.id, &server, "now")
                .await
                .unwrap()
        );
        assert!(
            store
                .serve_client_grants(&cursor.id)
                .await
                .unwrap()
                .is_empty()
        );
    }
}
