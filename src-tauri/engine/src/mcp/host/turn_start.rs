//! Starting the servers a turn will use without letting a slow one hold the turn: all start
//! together, the turn waits at most a short time (the setting [`SERVER_WAIT`], 3 s by
//! default), then goes on with those that are ready. A server still starting keeps starting in
//! the background (the supervisor owns it), and the caller is told which were left out and why.

use std::time::Duration;

use tokio::task::JoinSet;

use super::McpHost;
use crate::EngineError;
use crate::mcp::supervisor::ServerState;

/// The setting: how many seconds a turn waits for its servers to start.
pub(crate) const SERVER_WAIT: &str = "chat.server_wait_seconds";

/// The wait when the setting is absent.
pub(crate) const DEFAULT_SERVER_WAIT: Duration = Duration::from_secs(3);

/// What starting a turn's servers came to within the wait.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TurnServers {
    /// Ready to use.
    pub ready: Vec<String>,
    /// Did not start: the server and why.
    pub failed: Vec<(String, String)>,
    /// Still starting when the wait ran out (left out of this turn).
    pub starting: Vec<String>,
}

impl McpHost {
    /// The wait of the [`SERVER_WAIT`] setting (the default when absent or unreadable).
    pub async fn server_wait(&self) -> Duration {
        match self.store().setting(SERVER_WAIT).await {
            Ok(Some(v)) => v
                .as_f64()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map_or(DEFAULT_SERVER_WAIT, Duration::from_secs_f64),
            _ => DEFAULT_SERVER_WAIT,
        }
    }

    /// Starts the servers `names` (every enabled, auto-start server when `None`) together and
    /// waits until each is ready or failed, or `wait` has passed.
    pub async fn start_for_turn(
        &self,
        names: Option<&[String]>,
        wait: Duration,
    ) -> Result<TurnServers, EngineError> {
        let mut out = TurnServers::default();
        let records = match names {
            None => self
                .store()
                .list_servers()
                .await?
                .into_iter()
                .filter(|r| r.config.enabled && r.config.auto_start)
                .collect(),
            Some(names) => {
                let mut found = Vec::new();
                for name in names {
                    match self.store().find_server(name).await {
                        Ok(r) => found.push(r),
                        Err(e) => out.failed.push((name.clone(), e.to_string())),
                    }
                }
                found
            }
        };
        let mut pending: Vec<String> = Vec::new();
        let mut starts = JoinSet::new();
        for record in records {
            let name = record.config.name.clone();
            let config = match self.server_secrets().runnable(record).await {
                Ok(c) => c,
                Err(e) => {
                    out.failed.push((name, e.to_string()));
                    continue;
                }
            };
            pending.push(name.clone());
            // The start itself runs in the supervisor's own task; this only awaits its outcome,
            // so leaving it behind does not stop the server.
            let outcome = {
                let _begun = self.lifecycle.lock().await;
                self.supervisor().launch(config)
            };
            starts.spawn(async move { (name, outcome.await) });
        }
        let collect = async {
            while let Some(joined) = starts.join_next().await {
                let Ok((name, state)) = joined else { continue };
                pending.retain(|n| *n != name);
                match state {
                    ServerState::Ready { .. } => out.ready.push(name),
                    ServerState::Failed { reason } => out.failed.push((name, reason)),
                    ServerState::Starting | ServerState::Restarting { .. } => {
                        out.starting.push(name);
                    }
                    other => out.failed.push((name, format!("{other:?}"))),
                }
            }
        };
        let _ = tokio::time::timeout(wait, collect).await;
        out.starting.extend(pending);
        Ok(out)
    }
}
