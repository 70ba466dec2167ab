//! One server's run: beginning it (its Starting state published before its task can publish
//! anything, so a caller may leave the start to run behind), waiting for a run already
//! starting, and what the host asks when it brings servers in line with their configuration
//! (`mcp/host/follow.rs`): which servers run and on which configuration, a server that could
//! not even begin marked Failed, a server no longer configured forgotten.

use std::sync::Arc;

use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use super::{Run, ServerState, Supervisor, SupervisorEvent, supervise};
use crate::vocab::server::ServerConfig;

/// What [`Supervisor::begin`] did.
pub(super) enum Begun {
    /// A new run began; the outcome of its first start arrives here.
    New(oneshot::Receiver<ServerState>),
    /// The server already runs, in this state.
    Running(ServerState),
}

impl Supervisor {
    /// Sets up server `config.name`'s run: its state reads Starting (published before its
    /// task can publish anything), its task is spawned; unless it already runs.
    pub(super) fn begin(&self, config: ServerConfig) -> Begun {
        let (first_tx, first_rx) = oneshot::channel();
        let mut slots = self.inner.lock();
        let slot = slots.entry(config.name.clone()).or_default();
        if slot.run.as_ref().is_some_and(|r| !r.task.is_finished()) {
            return Begun::Running(slot.state.clone());
        }
        slot.config = Some(config.clone());
        slot.state = ServerState::Starting;
        let server = config.name.clone();
        let state = ServerState::Starting;
        let _ = self
            .inner
            .events
            .send(SupervisorEvent::State { server, state });
        let stop = CancellationToken::new();
        let task = tokio::spawn(supervise(
            Arc::clone(&self.inner),
            config,
            stop.clone(),
            first_tx,
        ));
        slot.run = Some(Run { stop, task });
        Begun::New(first_rx)
    }

    /// Waits until server `name`, now starting, is no longer starting; its state then.
    pub(super) async fn settled(
        &self,
        name: &str,
        mut events: broadcast::Receiver<SupervisorEvent>,
    ) -> ServerState {
        loop {
            match self.state(name) {
                Some(ServerState::Starting) => {}
                other => return other.unwrap_or_default(),
            }
            match events.recv().await {
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => {
                    return self.state(name).unwrap_or_default();
                }
            }
        }
    }

    /// Whether server `name` has a live run (starting, ready or waiting to restart).
    pub(crate) fn is_running(&self, name: &str) -> bool {
        self.with_slot(name, |slot| {
            slot.run.as_ref().is_some_and(|r| !r.task.is_finished())
        })
        .unwrap_or(false)
    }

    /// The configuration server `name` runs on, when it runs.
    pub(crate) fn running_config(&self, name: &str) -> Option<ServerConfig> {
        let slots = self.inner.lock();
        let slot = slots.get(name)?;
        let live = slot.run.as_ref().is_some_and(|r| !r.task.is_finished());
        live.then(|| slot.config.clone()).flatten()
    }

    /// Every server known to the supervisor (running or not), by name.
    pub(crate) fn known(&self) -> Vec<String> {
        let mut names: Vec<String> = self.inner.lock().keys().cloned().collect();
        names.sort();
        names
    }

    /// Marks server `name`, which is not running, Failed with `reason` (published): it could
    /// not begin to start.
    pub(crate) fn fail(&self, name: &str, reason: String) {
        if !self.is_running(name) {
            self.inner.publish(name, ServerState::Failed { reason });
        }
    }

    /// Forgets server `name` (its state, tools and logs) unless it is running; a server no
    /// longer configured must not be listed or offered.
    pub(crate) fn forget(&self, name: &str) {
        let mut slots = self.inner.lock();
        let live = (slots.get(name))
            .and_then(|s| s.run.as_ref())
            .is_some_and(|r| !r.task.is_finished());
        if !live {
            slots.remove(name);
            self.inner.validators.forget(name);
        }
    }
}
