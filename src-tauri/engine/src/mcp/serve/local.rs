//! The window's local server: the HTTP endpoint ([`serve_http`]) switched on and off from
//! Settings → Local server, on the port chosen there — both kept as settings
//! (`serve.enabled`, off by default, and `serve.port`) so the app starts it again at launch.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;

use super::http::{DEFAULT_PORT, Endpoint, serve_http};
use crate::mcp::host::McpHost;
use crate::store::StoreError;

/// The setting that says whether the local server runs.
pub(crate) const ENABLED_KEY: &str = "serve.enabled";
/// The setting that holds its port.
pub(crate) const PORT_KEY: &str = "serve.port";

/// What Settings → Local server shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LocalServerStatus {
    /// Whether the user switched it on.
    pub enabled: bool,
    /// The port chosen.
    pub port: u16,
    /// Where it listens now, when it does.
    pub url: Option<String>,
    /// Why it does not listen although switched on (e.g. the port is taken).
    pub error: Option<String>,
}

/// The local server and its state.
#[derive(Clone)]
pub struct LocalServer {
    host: McpHost,
    /// Routes served beside `/mcp` (the OpenAI-compatible API).
    routes: axum::Router,
    running: Arc<Mutex<Running>>,
}

#[derive(Default)]
struct Running {
    endpoint: Option<Endpoint>,
    error: Option<String>,
}

impl std::fmt::Debug for LocalServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalServer").finish_non_exhaustive()
    }
}

impl LocalServer {
    /// The local server over `host`'s servers, not started.
    pub fn new(host: McpHost) -> Self {
        Self {
            host,
            routes: axum::Router::new(),
            running: Arc::default(),
        }
    }

    /// The routes served beside `/mcp` (for `switchboard serve`, which serves them too).
    pub fn routes(&self) -> axum::Router {
        self.routes.clone()
    }

    /// The same server with `routes` served beside `/mcp`, behind the same checks.
    pub fn with_routes(mut self, routes: axum::Router) -> Self {
        self.routes = routes;
        self
    }

    /// The settings: switched on, and the port.
    async fn settings(&self) -> Result<(bool, u16), StoreError> {
        let store = self.host.store();
        let enabled = store.setting(ENABLED_KEY).await?;
        let port = store.setting(PORT_KEY).await?;
        Ok((
            enabled.and_then(|v| v.as_bool()).unwrap_or(false),
            port.and_then(|v| v.as_u64())
                .and_then(|p| u16::try_from(p).ok())
                .filter(|p| *p != 0)
                .unwrap_or(DEFAULT_PORT),
        ))
    }

    /// What it is now.
    pub async fn status(&self) -> Result<LocalServerStatus, StoreError> {
        let (enabled, port) = self.settings().await?;
        let running = self.running.lock().await;
        Ok(LocalServerStatus {
            enabled,
            port,
            url: running.endpoint.as_ref().map(Endpoint::url),
            error: running.error.clone(),
        })
    }

    /// Starts it when the settings say so (at launch).
    pub async fn start_if_enabled(&self) -> Result<LocalServerStatus, StoreError> {
        let (enabled, port) = self.settings().await?;
        self.apply(enabled, port).await
    }

    /// Keeps `enabled` and `port` and makes it so: started, restarted on the new port, or
    /// stopped. A port that cannot be had is said in the status, not as an error.
    pub async fn set(&self, enabled: bool, port: u16) -> Result<LocalServerStatus, StoreError> {
        if port == 0 {
            return Err(StoreError::Invalid(
                "the local server needs a port from 1 to 65535".into(),
            ));
        }
        let store = self.host.store();
        store.set_setting(ENABLED_KEY, &json!(enabled)).await?;
        store.set_setting(PORT_KEY, &json!(port)).await?;
        self.apply(enabled, port).await
    }

    async fn apply(&self, enabled: bool, port: u16) -> Result<LocalServerStatus, StoreError> {
        {
            let mut running = self.running.lock().await;
            let same = running
                .endpoint
                .as_ref()
                .is_some_and(|e| e.addr().port() == port);
            if !(enabled && same) {
                if let Some(endpoint) = running.endpoint.take() {
                    endpoint.stop().await;
                }
                running.error = None;
                if enabled {
                    match serve_http(
                        super::Gateway::new(self.host.clone()),
                        port,
                        CancellationToken::new(),
                        self.routes.clone(),
                    )
                    .await
                    {
                        Ok(endpoint) => running.endpoint = Some(endpoint),
                        Err(error) => running.error = Some(error.to_string()),
                    }
                }
            }
        }
        self.status().await
    }

    /// Stops it (the app is quitting); the settings stay.
    pub async fn stop(&self) {
        if let Some(endpoint) = self.running.lock().await.endpoint.take() {
            endpoint.stop().await;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::logging::Redactor;
    use crate::secrets::{KeyringSecrets, Secrets};
    use crate::store::Store;

    async fn local_server() -> (tempfile::TempDir, LocalServer) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).await.unwrap();
        let redactor = Redactor::default();
        let keys = Arc::new(KeyringSecrets::mock().unwrap());
        let secrets = Secrets::new(keys, Arc::new(|_: &str| None), redactor.clone());
        (
            dir,
            LocalServer::new(McpHost::new(store, secrets, redactor)),
        )
    }

    /// A port nothing listens on now.
    fn free_port() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    }

    #[tokio::test]
    async fn the_local_server_is_off_until_switched_on_and_its_port_is_kept() {
        let (_dir, server) = local_server().await;
        let status = server.start_if_enabled().await.unwrap();
        assert!(!status.enabled && status.url.is_none());
        assert_eq!(status.port, DEFAULT_PORT);

        let port = free_port();
        let status = server.set(true, port).await.unwrap();
        let url = status.url.clone().unwrap();
        assert_eq!(url, format!("http://127.0.0.1:{port}/mcp"));
        let answer = reqwest::Client::new().post(&url).send().await.unwrap();
        assert_eq!(answer.status(), 401);

        // Another engine over the same settings (the next launch) starts it again.
        let again = LocalServer::new(server.host.clone());
        server.stop().await;
        assert_eq!(
            again.start_if_enabled().await.unwrap().url,
            Some(url.clone())
        );
        let status = again.set(false, port).await.unwrap();
        assert!(!status.enabled && status.url.is_none());
        assert!(reqwest::Client::new().post(&url).send().await.is_err());
    }

    #[tokio::test]
    async fn a_port_that_is_taken_is_said_in_the_status_and_port_zero_is_refused() {
        let (_dir, server) = local_server().await;
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let status = server.set(true, port).await.unwrap();
        assert!(status.enabled && status.url.is_none());
        let error = status.error.unwrap();
        assert!(error.contains(&format!("127.0.0.1:{port}")), "{error}");
        assert!(server.set(true, 0).await.is_err());
    }
}
