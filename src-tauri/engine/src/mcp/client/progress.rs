//! Progress of running tool calls, routed to whoever waits for that call: a caller registers
//! a sink under the call's progress token, and `notifications/progress` with that token go
//! to it (the agent turns them into `tool_progress` events). The registration ends with the
//! call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use tokio::sync::mpsc::UnboundedSender;

/// One progress report of a call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Progress {
    /// Progress so far.
    pub progress: f64,
    /// The total, if known.
    pub total: Option<f64>,
    /// A status message.
    pub message: Option<String>,
}

/// Where progress goes, by token.
pub(crate) type ProgressSink = UnboundedSender<Progress>;

/// The sinks of one connection's running calls.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProgressRoutes {
    sinks: Arc<Mutex<HashMap<String, ProgressSink>>>,
}

/// Removes a call's sink when the call ends.
pub(crate) struct Registration {
    routes: ProgressRoutes,
    token: String,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.token);
    }
}

impl ProgressRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, ProgressSink>> {
        self.sinks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends the progress of token `token` to `sink` until the registration is dropped.
    pub(crate) fn register(&self, token: String, sink: ProgressSink) -> Registration {
        self.lock().insert(token.clone(), sink);
        Registration {
            routes: self.clone(),
            token,
        }
    }

    /// Delivers `progress` to the sink of `token`; false when none is registered.
    pub(crate) fn route(&self, token: &str, progress: Progress) -> bool {
        match self.lock().get(token) {
            Some(sink) => sink.send(progress).is_ok(),
            None => false,
        }
    }
}
