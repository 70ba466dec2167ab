//! A turn's writes, behind it (issue 19): every message a turn starts, checkpoints and
//! finishes is written in the order the turn asked for, on a task of its own, while the turn
//! goes on with what does not need the row yet — a placeholder is inserted while the request is
//! sent, an answer with tool calls is finished while the tools run. The turn waits for its
//! lane only where the order matters to someone else: before the first streamed event is shown
//! (so a shown answer always has its row, even if the app dies right after), before a tool's
//! task handle is stored under its tool message, and before the turn says it has finished.
//! A failed write stops the writes after it and is reported at the next wait.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use tokio::sync::watch;
use tokio::task::{JoinError, JoinHandle};
use tracing::Instrument;

use crate::store::{Message, MessageUpdate, NewMessage, Store, StoreError};

/// The writes a turn queued, in order.
pub(super) struct Lane {
    store: Store,
    last: Option<JoinHandle<Result<(), StoreError>>>,
    /// How many writes were queued.
    queued: u64,
    /// How many have ended (written or failed), in order.
    ended: Arc<watch::Sender<u64>>,
    /// Whether one of them failed.
    failed: Arc<AtomicBool>,
}

impl Lane {
    /// An empty lane writing to `store`.
    pub fn new(store: &Store) -> Self {
        Self {
            store: store.clone(),
            last: None,
            queued: 0,
            ended: Arc::new(watch::channel(0).0),
            failed: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Queues `write` after every write queued before it; it starts as soon as they end (at
    /// once when none waits), and is skipped when one of them failed.
    pub fn push<F, Fut>(&mut self, write: F)
    where
        F: FnOnce(Store) -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), StoreError>> + Send + 'static,
    {
        let before = self.last.take();
        let store = self.store.clone();
        self.queued += 1;
        let (seq, ended, failed) = (self.queued, self.ended.clone(), self.failed.clone());
        let task = async move {
            let result = match before {
                Some(handle) => match joined(handle.await) {
                    Ok(()) => write(store).await,
                    Err(e) => Err(e),
                },
                None => write(store).await,
            };
            if result.is_err() {
                failed.store(true, Ordering::SeqCst);
            }
            ended.send_replace(seq);
            result
        };
        self.last = Some(tokio::spawn(task.instrument(super::phase::behind())));
    }

    /// Resolves when every write queued so far has ended: true when all were written, false
    /// when one failed ([`Lane::flush`] says how). It does not hold the lane.
    pub fn written(&self) -> Shared<BoxFuture<'static, bool>> {
        let mut ended = self.ended.subscribe();
        let (target, failed) = (self.queued, self.failed.clone());
        async move {
            let _ = ended.wait_for(|n| *n >= target).await;
            !failed.load(Ordering::SeqCst)
        }
        .boxed()
        .shared()
    }

    /// Waits for every queued write; the first failure among them.
    pub async fn flush(&mut self) -> Result<(), StoreError> {
        match self.last.take() {
            Some(handle) => joined(handle.await),
            None => Ok(()),
        }
    }
}

/// The message a turn's branch carries once `new` was stored under `id` and `update` applied
/// (what reading the row back would give a request: role and content).
pub(super) fn carried(id: String, new: NewMessage, update: &MessageUpdate) -> Message {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    Message {
        id,
        conversation_id: new.conversation_id,
        parent_id: new.parent_id,
        role: new.role,
        content: update.content.clone().unwrap_or(new.content),
        status: update.status.unwrap_or(new.status),
        model: new.model,
        usage: update.usage,
        error: update.error.clone(),
        created_at: now,
        updated_at: now,
    }
}

/// A write task's result; a write that panicked is reported as a failed write.
fn joined(r: Result<Result<(), StoreError>, JoinError>) -> Result<(), StoreError> {
    r.unwrap_or_else(|e| {
        Err(StoreError::Database(sqlx::Error::Protocol(format!(
            "a write of the turn stopped: {e}"
        ))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MessageStatus, MessageUpdate, NewConversation, NewMessage, Role};

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
        (dir, store)
    }

    fn message(conversation: &str, text: &str) -> NewMessage {
        NewMessage {
            conversation_id: conversation.to_owned(),
            parent_id: None,
            role: Role::Assistant,
            content: vec![crate::vocab::content::ContentPart::text(text)],
            status: MessageStatus::Streaming,
            model: None,
        }
    }

    #[tokio::test]
    async fn writes_queued_on_a_lane_land_in_the_order_they_were_queued() {
        let (_dir, store) = store().await;
        let conv = store
            .create_conversation(NewConversation::default())
            .await
            .unwrap();
        let mut lane = Lane::new(&store);
        let id = Store::new_message_id();
        let (c, i) = (conv.id.clone(), id.clone());
        lane.push(move |s| async move {
            s.append_as_head_with_id(i, message(&c, "first")).await?;
            Ok(())
        });
        for n in 0..20 {
            let i = id.clone();
            lane.push(move |s| async move {
                let update = MessageUpdate {
                    content: Some(vec![crate::vocab::content::ContentPart::text(format!(
                        "text {n}"
                    ))]),
                    status: Some(MessageStatus::Complete),
                    ..Default::default()
                };
                s.update_message(&i, update).await.map(drop)
            });
        }
        assert!(lane.written().await);
        lane.flush().await.unwrap();
        let stored = store.get_message(&id).await.unwrap();
        assert_eq!(
            stored.content,
            vec![crate::vocab::content::ContentPart::text("text 19")]
        );
        assert_eq!(
            store.get_conversation(&conv.id).await.unwrap().head_id,
            Some(id)
        );
    }

    #[tokio::test]
    async fn a_failed_write_skips_the_writes_after_it_and_is_reported_by_flush() {
        let (_dir, store) = store().await;
        let conv = store
            .create_conversation(NewConversation::default())
            .await
            .unwrap();
        let mut lane = Lane::new(&store);
        lane.push(|s| async move {
            s.update_message("no-such-message", MessageUpdate::default())
                .await
                .map(drop)
        });
        let c = conv.id.clone();
        lane.push(move |s| async move { s.append_message(message(&c, "after")).await.map(drop) });
        assert!(!lane.written().await);
        let err = lane.flush().await.unwrap_err();
        assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
        let branch = store.list_messages(&conv.id, &Default::default()).await;
        assert!(
            branch.unwrap().items.is_empty(),
            "the later write was skipped"
        );
        lane.flush().await.unwrap();
    }
}
