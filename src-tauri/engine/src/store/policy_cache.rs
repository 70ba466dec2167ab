//! What a tool call's approval reads ([`Store::server_with_policy`]), kept between calls while
//! the database has not changed. Whether it changed is read from the WAL index (the `-shm`
//! file beside the database): the first 48 bytes are its header, whose change counter every
//! commit of every connection moves — this process's or another's, such as the window
//! changing a policy while `switchboard mcp serve --stdio` serves an app (SQLite's "WAL-index
//! format", the header's `iChange`). One read of those bytes replaces a query, which is a round
//! trip to the connection's worker thread. Where the header cannot be read, nothing is kept.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

use super::ServerRecord;
use crate::vocab::server::Approval;

/// The WAL-index header's length.
const HEADER: usize = 48;
/// Entries kept at most; past it the cache starts again.
const KEPT: usize = 4096;

/// The database as of a read: its WAL-index header.
type Stamp = [u8; HEADER];

/// A server record, the tool's policy and the setting's value.
pub(super) type WithPolicy = (ServerRecord, Option<Approval>, Option<Value>);

/// A server's id or name, a tool and a setting's key.
type Key = (String, String, String);

/// The cache of one database (shared by the clones of its `Store`).
#[derive(Debug, Default)]
pub(super) struct PolicyCache {
    entries: Mutex<HashMap<Key, (Stamp, WithPolicy)>>,
    shm: Mutex<Option<std::fs::File>>,
}

impl PolicyCache {
    /// An empty cache.
    pub(super) fn new() -> Arc<Self> {
        Arc::default()
    }

    /// The database's stamp now (`None`: it cannot be read, so nothing is kept).
    pub(super) fn stamp(&self, path: &Path) -> Option<Stamp> {
        let mut shm = lock(&self.shm);
        if shm.is_none() {
            let mut name = path.as_os_str().to_owned();
            name.push("-shm");
            *shm = std::fs::File::open(name).ok();
        }
        read_header(shm.as_ref()?)
    }

    /// The kept answer for `key` read at `stamp`.
    pub(super) fn get(&self, key: &Key, stamp: &Stamp) -> Option<WithPolicy> {
        let entries = lock(&self.entries);
        let (kept, value) = entries.get(key)?;
        (kept == stamp).then(|| value.clone())
    }

    /// Keeps `value`, read for `key` after the stamp `stamp` was taken.
    pub(super) fn put(&self, key: Key, stamp: Stamp, value: WithPolicy) {
        let mut entries = lock(&self.entries);
        if entries.len() >= KEPT {
            entries.clear();
        }
        entries.insert(key, (stamp, value));
    }
}

#[cfg(unix)]
fn read_header(shm: &std::fs::File) -> Option<Stamp> {
    use std::os::unix::fs::FileExt;
    let mut header = [0u8; HEADER];
    shm.read_exact_at(&mut header, 0).ok()?;
    Some(header)
}

#[cfg(not(unix))]
fn read_header(_shm: &std::fs::File) -> Option<Stamp> {
    None
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::store::Store;
    use crate::store::tests::with_time_server;
    use crate::vocab::server::Approval;

    async fn policy(store: &Store) -> Option<Approval> {
        store
            .server_with_policy("time", "now", "k")
            .await
            .unwrap()
            .1
    }

    #[tokio::test]
    async fn the_stamp_moves_with_every_commit_and_only_then() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let (store, id) = with_time_server(&path).await;
        let before = store.policy.stamp(&path).unwrap();
        policy(&store).await;
        store.find_server("time").await.unwrap();
        assert_eq!(store.policy.stamp(&path).unwrap(), before, "reads leave it");
        store
            .set_tool_policy(&id, "now", Some(Approval::Deny))
            .await
            .unwrap();
        assert_ne!(
            store.policy.stamp(&path).unwrap(),
            before,
            "a commit moves it"
        );
    }

    #[tokio::test]
    async fn a_policy_changed_here_or_by_another_connection_is_read_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let (store, id) = with_time_server(&path).await;
        assert_eq!(policy(&store).await, None);
        assert_eq!(policy(&store).await, None, "kept");
        store
            .set_tool_policy(&id, "now", Some(Approval::Deny))
            .await
            .unwrap();
        assert_eq!(policy(&store).await, Some(Approval::Deny));
        // Another process (its own connections to the same file) changes it.
        let other = Store::open(&path).await.unwrap();
        other
            .set_tool_policy(&id, "now", Some(Approval::Allow))
            .await
            .unwrap();
        assert_eq!(policy(&store).await, Some(Approval::Allow));
        other
            .set_setting("k", &serde_json::json!(true))
            .await
            .unwrap();
        let (_, _, setting) = store.server_with_policy("time", "now", "k").await.unwrap();
        assert_eq!(setting, Some(serde_json::json!(true)));
        other.close().await;
    }
}
