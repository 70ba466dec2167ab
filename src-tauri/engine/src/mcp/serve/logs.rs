//! A served server's log messages passed on to the client whose call is running: while a call
//! runs, what its server logs (`notifications/message`) goes to the calling client on the
//! call's own stream, at or above the level the client set (`logging/setLevel`; everything
//! until it sets one), and every message the server sent before its result is passed on before
//! the result (the connection publishes them as it reads them, `client::progress::Tapped`).
//! Logs are the server's, not the call's: two clients calling the same server at once each
//! hear what it logs meanwhile.

#![allow(deprecated)] // logging is deprecated by 2026-07-28, still used by 2025-era clients

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model as rm;
use rmcp::service::RoleServer;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use crate::mcp::client::ServerLog;

/// The least severe level a session's client wants (`None`: every message).
#[derive(Clone, Default)]
pub(super) struct LogLevel(Arc<Mutex<Option<u8>>>);

impl LogLevel {
    /// Keeps the client's choice.
    pub(super) fn set(&self, level: rm::LoggingLevel) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(rank(level));
    }

    fn wants(&self, level: rm::LoggingLevel) -> bool {
        let least = *self.0.lock().unwrap_or_else(PoisonError::into_inner);
        least.is_none_or(|least| rank(level) >= least)
    }
}

/// Severity, least first (RFC 5424's order, as MCP's levels follow it).
fn rank(level: rm::LoggingLevel) -> u8 {
    use rm::LoggingLevel as L;
    match level {
        L::Debug => 0,
        L::Info => 1,
        L::Notice => 2,
        L::Warning => 3,
        L::Error => 4,
        L::Critical => 5,
        L::Alert => 6,
        L::Emergency => 7,
    }
}

/// Passes `logs` on to `peer` until [`Forwarding::finish`].
pub(super) struct Forwarding {
    done: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Forwarding {
    /// Starts passing `logs` on to `peer` at `level`.
    pub(super) fn start(
        mut logs: broadcast::Receiver<ServerLog>,
        peer: rmcp::Peer<RoleServer>,
        level: LogLevel,
    ) -> Self {
        let done = CancellationToken::new();
        let stop = done.clone();
        let task = tokio::spawn(async move {
            loop {
                let log = tokio::select! {
                    biased;
                    log = logs.recv() => log,
                    () = stop.cancelled() => break,
                };
                match log {
                    Ok(log) => send(&peer, &level, log).await,
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "a client missed some of a server's log messages");
                    }
                    Err(RecvError::Closed) => return,
                }
            }
            // What the server logged before its result: read already, so waiting here.
            while let Ok(log) = logs.try_recv() {
                send(&peer, &level, log).await;
            }
        });
        Self { done, task }
    }

    /// Passes on what is left and stops (before the call's result is sent).
    pub(super) async fn finish(self) {
        self.done.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(1), self.task).await;
    }
}

async fn send(peer: &rmcp::Peer<RoleServer>, level: &LogLevel, log: ServerLog) {
    if level.wants(log.level) {
        let _ = peer.notify_logging_message(log).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_hears_its_level_and_above_and_everything_before_it_sets_one() {
        let level = LogLevel::default();
        assert!(level.wants(rm::LoggingLevel::Debug));
        level.set(rm::LoggingLevel::Warning);
        assert!(!level.wants(rm::LoggingLevel::Info));
        assert!(level.wants(rm::LoggingLevel::Warning));
        assert!(level.wants(rm::LoggingLevel::Emergency));
    }
}
