//! The "always allow" answers the user gave in the window for a registered app using the local
//! endpoint: (client, server, tool) rows in `serve_client_grants`, which go with the client and
//! with the server (foreign keys), and are dropped when a server is replaced.

use super::{Store, StoreError};

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

    /// The tools client `client_id` was always allowed, as (server id, tool), sorted.
    pub async fn serve_client_grants(
        &self,
        client_id: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        sqlx::query_as(
            "SELECT server_id, tool FROM serve_client_grants WHERE client_id = ? \
             ORDER BY server_id, tool",
        )
        .bind(client_id)
        .fetch_all(&self.reader)
        .await
        .map_err(|e| self.classify(e))
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
    use crate::vocab::server::{ServerConfig, Transport};

    async fn store_with_server(dir: &std::path::Path) -> (Store, String) {
        let store = Store::open(&dir.join("s.db")).await.unwrap();
        let config = ServerConfig::new(
            "time",
            Transport::Stdio {
                command: "uvx".into(),
                args: vec![],
                env: Default::default(),
                cwd: None,
            },
        );
        let record = store.insert_server(&config).await.unwrap();
        (store, record.id)
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
        assert_eq!(all, [(server.clone(), "now".to_owned())]);

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
