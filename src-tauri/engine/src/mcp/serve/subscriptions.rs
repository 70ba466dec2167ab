//! Resource subscriptions an app makes through the endpoint (handshake era): `resources/
//! subscribe` goes to the server that lists the URI (else to each ready one until one takes
//! it), and that server's `notifications/resources/updated` for the URI go to each session
//! that subscribed, until it unsubscribes or goes away. The servers' subscriptions are counted
//! across sessions ([`Upstream`]): a server is told to unsubscribe when no session wants the
//! URI any more.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ErrorData;
use rmcp::model as rm;
use rmcp::service::{RequestContext, RoleServer};

use super::Gateway;
use super::content;
use crate::mcp::supervisor::relay::ContentChange;

/// A subscription: the server and the URI.
type Key = (String, String);

/// How many sessions want each server's URI.
#[derive(Clone, Default)]
pub(super) struct Upstream(Arc<Mutex<HashMap<Key, usize>>>);

/// One session's subscriptions, and whether their updates are being forwarded.
#[derive(Clone, Default)]
pub(super) struct Watched(Arc<Mutex<(HashSet<Key>, bool)>>);

impl Watched {
    fn lock(&self) -> std::sync::MutexGuard<'_, (HashSet<Key>, bool)> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn has(&self, key: &Key) -> bool {
        self.lock().0.contains(key)
    }

    /// Adds `key`; whether the session's updates must start being forwarded.
    fn add(&self, key: Key) -> bool {
        let mut watched = self.lock();
        watched.0.insert(key);
        !std::mem::replace(&mut watched.1, true)
    }

    /// Takes out every subscription to `uri`.
    fn take(&self, uri: &str) -> Vec<Key> {
        let mut watched = self.lock();
        let keys = (watched.0.iter())
            .filter(|(_, u)| u == uri)
            .cloned()
            .collect();
        watched.0.retain(|(_, u)| u != uri);
        keys
    }
}

impl Upstream {
    /// Counts one more session for `key`; whether it is the first.
    fn add(&self, key: &Key) -> bool {
        let mut counts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let count = counts.entry(key.clone()).or_default();
        *count += 1;
        *count == 1
    }

    /// Counts one session fewer for `key`; whether none is left.
    fn remove(&self, key: &Key) -> bool {
        let mut counts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match counts.get_mut(key) {
            Some(count) if *count > 1 => {
                *count -= 1;
                false
            }
            Some(_) => {
                counts.remove(key);
                true
            }
            None => false,
        }
    }
}

impl Gateway {
    /// `resources/subscribe` for the requesting session (see the module's header).
    pub(super) async fn subscribe_for(
        &self,
        uri: String,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let mut why = String::from("no server is ready");
        for server in content::servers_for(&self.host, &uri, self.reach(context)).await {
            let key = (server.clone(), uri.clone());
            if self.watched.has(&key) {
                return Ok(());
            }
            if !self.hold(&server, &uri).await {
                why = format!("{server} takes no subscription");
                continue;
            }
            if self.watched.add(key) {
                self.forward_updates(context.peer.clone());
            }
            return Ok(());
        }
        Err(ErrorData::invalid_params(
            format!("no server could subscribe to {uri}: {why}"),
            Some(serde_json::json!({ "uri": uri })),
        ))
    }

    /// Holds an upstream subscription to `uri` on `server` (made when none held it); whether
    /// it is held.
    pub(super) async fn hold(&self, server: &str, uri: &str) -> bool {
        let key = (server.to_owned(), uri.to_owned());
        if self.upstream.add(&key) {
            let subscribed = self.host.supervisor().subscribe_resource(server, uri).await;
            if let Err(error) = subscribed {
                self.upstream.remove(&key);
                tracing::info!(%server, %uri, %error, "the server takes no subscription");
                return false;
            }
        }
        true
    }

    /// Lets go of one hold on `key`, unsubscribing upstream with the last.
    pub(super) async fn release(&self, key: &Key) {
        if self.upstream.remove(key) {
            let (server, uri) = key;
            let left = self
                .host
                .supervisor()
                .unsubscribe_resource(server, uri)
                .await;
            if let Err(error) = left {
                tracing::warn!(%server, %uri, %error, "the server's subscription stays");
            }
        }
    }

    /// `resources/unsubscribe` for the requesting session.
    pub(super) async fn unsubscribe_for(&self, uri: &str) -> Result<(), ErrorData> {
        for key in self.watched.take(uri) {
            self.release(&key).await;
        }
        Ok(())
    }

    /// Sends `peer` the updates of this session's subscriptions until it goes away.
    fn forward_updates(&self, peer: rmcp::Peer<RoleServer>) {
        let mut updates = self.host.supervisor().content_changes();
        let watched = self.watched.clone();
        tokio::spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                let (server, uri) = match updates.recv().await {
                    Ok((server, ContentChange::Updated(uri))) => (server, uri),
                    Ok(_) | Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return,
                };
                let wanted = watched.has(&(server, uri.clone()));
                let param = rm::ResourceUpdatedNotificationParam::new(uri);
                if wanted && peer.notify_resource_updated(param).await.is_err() {
                    return; // the session is gone
                }
            }
        });
    }
}
