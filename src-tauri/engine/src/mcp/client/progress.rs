//! Progress of running tool calls, routed to whoever waits for that call: a caller registers
//! a sink under the call's progress token, and `notifications/progress` with that token go
//! to it (the agent turns them into `tool_progress` events). The registration ends with the
//! call. Reports are routed where the connection reads them ([`Tapped`]), in the order the
//! server sent them, so every report a server sends before its result reaches the sink
//! before the call returns (rmcp hands notifications to the handler in tasks of their own,
//! which may run after the response is delivered).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model as rm;
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::Serialize;

use tokio::sync::broadcast;

use super::{HostHandler, ServerLog};
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

/// Reports kept for a token no call has registered yet (a server may report before the
/// caller has its request's token back); the oldest go first past this many.
const UNCLAIMED: usize = 64;

/// The sinks of one connection's running calls.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProgressRoutes {
    inner: Arc<Mutex<Routes>>,
}

#[derive(Debug, Default)]
struct Routes {
    sinks: HashMap<String, ProgressSink>,
    unclaimed: VecDeque<(String, Progress)>,
}

/// Removes a call's sink when the call ends.
pub(crate) struct Registration {
    routes: ProgressRoutes,
    token: String,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.routes.lock().sinks.remove(&self.token);
    }
}

impl ProgressRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends the progress of token `token` to `sink` until the registration is dropped,
    /// starting with any reports of that token that came before.
    pub(crate) fn register(&self, token: String, sink: ProgressSink) -> Registration {
        let mut routes = self.lock();
        let (early, rest) = std::mem::take(&mut routes.unclaimed)
            .into_iter()
            .partition::<VecDeque<_>, _>(|(t, _)| *t == token);
        routes.unclaimed = rest;
        for (_, report) in early {
            let _ = sink.send(report);
        }
        routes.sinks.insert(token.clone(), sink);
        Registration {
            routes: self.clone(),
            token,
        }
    }

    /// Delivers `progress` to the sink of `token`, or keeps it for a registration to come.
    pub(crate) fn route(&self, token: &str, progress: Progress) {
        let mut routes = self.lock();
        match routes.sinks.get(token) {
            Some(sink) => {
                let _ = sink.send(progress);
            }
            None => {
                if routes.unclaimed.len() == UNCLAIMED {
                    routes.unclaimed.pop_front();
                }
                routes.unclaimed.push_back((token.to_owned(), progress));
            }
        }
    }
}

/// A client transport that routes each `notifications/progress` to its call's sink as the
/// message is read, before rmcp sees it (and so before the response that follows it).
/// The host hears it then too, as [`crate::vocab::mcp::ServerNotification::Progress`]. Log
/// messages (`notifications/message`) go out on `logs` as they are read, in the same order.
pub(crate) struct Tapped<T> {
    inner: T,
    routes: ProgressRoutes,
    host: Arc<dyn HostHandler>,
    logs: broadcast::Sender<ServerLog>,
}

impl<T> Tapped<T> {
    /// Wraps `inner`, routing its progress through `routes` and telling `host`, and
    /// publishing its log messages on `logs`.
    pub(crate) fn new(
        inner: T,
        routes: ProgressRoutes,
        host: Arc<dyn HostHandler>,
        logs: broadcast::Sender<ServerLog>,
    ) -> Self {
        Self {
            inner,
            routes,
            host,
            logs,
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Tapped<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        if let rm::JsonRpcMessage::Notification(n) = &message
            && let rm::ServerNotification::ProgressNotification(p) = &n.notification
        {
            let report = Progress {
                progress: p.params.progress,
                total: p.params.total,
                message: p.params.message.clone(),
            };
            self.routes
                .route(&p.params.progress_token.0.to_string(), report);
            self.host.notify(super::convert::progress(p.params.clone()));
        }
        if let rm::JsonRpcMessage::Notification(n) = &message
            && let rm::ServerNotification::LoggingMessageNotification(log) = &n.notification
            && self.logs.receiver_count() > 0
        {
            let _ = self.logs.send(log.params.clone());
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(progress: f64) -> Progress {
        Progress {
            progress,
            total: None,
            message: None,
        }
    }

    #[test]
    fn a_report_before_its_call_registers_reaches_the_sink_first() {
        let routes = ProgressRoutes::default();
        routes.route("7", report(1.0));
        routes.route("8", report(9.0));
        let (sink, mut heard) = tokio::sync::mpsc::unbounded_channel();
        let _registration = routes.register("7".to_owned(), sink);
        routes.route("7", report(2.0));
        assert_eq!(heard.try_recv().unwrap().progress, 1.0);
        assert_eq!(heard.try_recv().unwrap().progress, 2.0);
        assert!(heard.try_recv().is_err());
        assert_eq!(routes.lock().unclaimed.len(), 1, "token 8 waits still");
    }

    #[test]
    fn unclaimed_reports_are_bounded_and_a_finished_call_hears_nothing_more() {
        let routes = ProgressRoutes::default();
        for i in 0..(UNCLAIMED * 3) {
            routes.route(&i.to_string(), report(1.0));
        }
        assert_eq!(routes.lock().unclaimed.len(), UNCLAIMED);
        let (sink, mut heard) = tokio::sync::mpsc::unbounded_channel();
        drop(routes.register("x".to_owned(), sink));
        routes.route("x", report(1.0));
        assert!(heard.try_recv().is_err());
    }
}
