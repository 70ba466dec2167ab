//! The apps whose calls are under way on each server through the endpoint (`mcp::serve`), so
//! that a handshake-era server's requests to the user during the call go to the app that made
//! it ([`CallingApps::the_one`]). With two apps' calls under way on the same server at once, a
//! request cannot be told apart (the protocol does not say which call it serves), so
//! Switchboard answers it itself, as it does for its own calls.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::mcp::client::relay::AppAsker;

type Entries = HashMap<String, Vec<(u64, Arc<dyn AppAsker>)>>;

/// The apps calling each server now.
#[derive(Clone, Default)]
pub struct CallingApps {
    entries: Arc<Mutex<Entries>>,
    next: Arc<AtomicU64>,
}

/// One app's call under way; it leaves the registry when dropped.
pub struct Calling {
    apps: CallingApps,
    server: String,
    id: u64,
}

impl CallingApps {
    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes that `app` has a call under way on `server` until the guard is dropped.
    pub fn enter(&self, server: &str, app: Arc<dyn AppAsker>) -> Calling {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        (self.lock().entry(server.to_owned()).or_default()).push((id, app));
        Calling {
            apps: self.clone(),
            server: server.to_owned(),
            id,
        }
    }

    /// The app to pass `server`'s `method` request to: the one app with a call under way
    /// there, when it answers `method`.
    pub fn the_one(&self, server: &str, method: &str) -> Option<Arc<dyn AppAsker>> {
        let entries = self.lock();
        match entries.get(server).map(Vec::as_slice) {
            Some([(_, app)]) if app.answers(method) => Some(app.clone()),
            _ => None,
        }
    }
}

impl Drop for Calling {
    fn drop(&mut self) {
        let mut entries = self.apps.lock();
        if let Some(calls) = entries.get_mut(&self.server) {
            calls.retain(|(id, _)| *id != self.id);
            if calls.is_empty() {
                entries.remove(&self.server);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::mcp::McpError;
    use futures::future::BoxFuture;
    use serde_json::Value;

    struct App(&'static str);

    impl AppAsker for App {
        fn answers(&self, method: &str) -> bool {
            method == self.0
        }
        fn ask(&self, _: &'static str, _: Value) -> BoxFuture<'static, Result<Value, McpError>> {
            Box::pin(async { Ok(Value::Null) })
        }
    }

    #[test]
    fn a_request_goes_to_the_one_app_calling_the_server_when_it_can_answer_it() {
        let apps = CallingApps::default();
        let calling = apps.enter("srv", Arc::new(App("sampling/createMessage")));
        assert!(apps.the_one("srv", "sampling/createMessage").is_some());
        assert!(apps.the_one("srv", "elicitation/create").is_none());
        assert!(apps.the_one("other", "sampling/createMessage").is_none());
        drop(calling);
        assert!(apps.the_one("srv", "sampling/createMessage").is_none());
    }

    #[test]
    fn with_two_apps_calling_the_same_server_neither_is_asked() {
        let apps = CallingApps::default();
        let first = apps.enter("srv", Arc::new(App("elicitation/create")));
        let second = apps.enter("srv", Arc::new(App("elicitation/create")));
        assert!(apps.the_one("srv", "elicitation/create").is_none());
        drop(first);
        assert!(apps.the_one("srv", "elicitation/create").is_some());
        drop(second);
    }
}
