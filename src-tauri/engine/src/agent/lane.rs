//! A turn's writes, behind it (issue 19): every message a turn starts, checkpoints and
//! finishes is written in the order the turn asked for, by one writer task of its own, while
//! the turn goes on with what does not need the row yet — a placeholder is inserted while the
//! request is sent, an answer with tool calls is finished while the tools run. Writes queued
//! while the writer is busy go in its next transaction together (one commit: finishing an
//! answer and starting the tool message after it, say). The turn waits for its lane only where
//! the order matters to someone else: before the first streamed event is shown (so a shown
//! answer always has its row, even if the app dies right after), before a tool's task handle
//! is stored under its tool message, and before the turn says it has finished. A failed write
//! stops every write queued after it, for the rest of the turn, and is reported at the next
//! flush; the writes before it land.

use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use tokio::sync::{mpsc, watch};
use tracing::Instrument;

use crate::store::{Message, MessageUpdate, MessageWrite, NewMessage, Store, StoreError, now_ms};

/// How far the writer got.
#[derive(Clone, Copy, Default)]
struct Progress {
    /// How many writes have ended (written, failed or skipped), in order.
    ended: u64,
    /// Whether one of them failed: every write after it is skipped.
    failed: bool,
}

/// Resolves once the writes queued before it have ended: true when all were written.
pub(super) type Written = Shared<BoxFuture<'static, bool>>;

/// The writes a turn queued, in order.
pub(super) struct Lane {
    /// The writer's queue.
    queue: mpsc::UnboundedSender<MessageWrite>,
    progress: watch::Receiver<Progress>,
    /// The first failure, until a flush reports it.
    failure: Arc<Mutex<Option<StoreError>>>,
    /// How many writes were queued.
    queued: u64,
    /// How many had been queued when a flush last reported.
    reported: u64,
}

impl Lane {
    /// An empty lane writing to `store`, with its writer task.
    pub(crate) fn new(store: &Store) -> Self {
        let (progress_tx, progress) = watch::channel(Progress::default());
        let (queue, rx) = mpsc::unbounded_channel();
        let failure = Arc::new(Mutex::new(None));
        tokio::spawn(writer(store.clone(), rx, progress_tx, failure.clone()));
        Self {
            queue,
            progress,
            failure,
            queued: 0,
            reported: 0,
        }
    }

    /// Queues `write` after every write queued before it; it lands as soon as they have (at
    /// once when none waits), and is skipped when one of them failed.
    pub(crate) fn push(&mut self, write: MessageWrite) {
        self.queued += 1;
        // A send fails only when the writer has stopped; the wait then ends as not written.
        let _ = self.queue.send(write);
    }

    /// Queues the insert of `new` under `id`, as its conversation's head.
    pub(crate) fn insert(&mut self, id: &str, new: NewMessage) {
        let id = id.to_owned();
        self.push(MessageWrite::InsertAsHead { id, new });
    }

    /// Queues `update` of message `id`.
    pub(crate) fn update(&mut self, id: &str, update: MessageUpdate) {
        let id = id.to_owned();
        self.push(MessageWrite::Update { id, update });
    }

    /// Resolves when every write queued so far has ended: true when all were written, false
    /// when one failed ([`Lane::flush`] says how). It does not hold the lane.
    pub(crate) fn written(&self) -> Written {
        let mut progress = self.progress.clone();
        let target = self.queued;
        async move {
            match progress.wait_for(|p| p.ended >= target).await {
                Ok(p) => !p.failed,
                Err(_) => false, // the writer stopped before writing them all
            }
        }
        .boxed()
        .shared()
    }

    /// Waits for every queued write. Err when one of the writes queued since the last flush
    /// did not land: the first failure itself, or (when an earlier flush reported it) that
    /// these were skipped after it.
    pub(crate) async fn flush(&mut self) -> Result<(), StoreError> {
        let all_written = self.written().await;
        let since = self.reported;
        self.reported = self.queued;
        if all_written || since == self.queued {
            return Ok(());
        }
        let first = self
            .failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        Err(first.unwrap_or_else(|| {
            lost("skipped: an earlier write of this turn failed or its writer stopped")
        }))
    }
}

/// The lane's writer: writes what was queued, in order, everything waiting at once in one
/// transaction; after a failure only counts the rest.
async fn writer(
    store: Store,
    mut queue: mpsc::UnboundedReceiver<MessageWrite>,
    progress: watch::Sender<Progress>,
    failure: Arc<Mutex<Option<StoreError>>>,
) {
    let mut batch = Vec::new();
    while queue.recv_many(&mut batch, usize::MAX).await > 0 {
        let skipped = progress.borrow().failed;
        let result = if skipped {
            Ok(())
        } else {
            write(&store, &batch)
                .instrument(super::phase::behind())
                .await
        };
        if let Err(e) = &result {
            tracing::warn!(error = %e, "a write of the turn failed; the ones after it are skipped");
        }
        let failed = result.is_err();
        if let Err(e) = result {
            *failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
        }
        let ended = batch.len() as u64;
        batch.clear();
        progress.send_modify(|p| {
            p.ended += ended;
            p.failed |= failed;
        });
    }
}

/// Writes `batch` in one transaction; when that fails, one by one up to the first that fails
/// (so the writes before it land, as they would have alone), whose error it returns.
async fn write(store: &Store, batch: &[MessageWrite]) -> Result<(), StoreError> {
    let together = store.write_messages(batch).await;
    if together.is_ok() || batch.len() == 1 {
        return together;
    }
    for one in batch {
        store.write_messages(std::slice::from_ref(one)).await?;
    }
    together
}

/// A write that did not land for a reason of the lane's own.
fn lost(why: &str) -> StoreError {
    StoreError::Database(sqlx::Error::Protocol(why.to_owned()))
}

/// The message a turn's branch carries once `new` was stored under `id` and `update` applied
/// (what reading the row back would give a request: role and content).
pub(super) fn carried(id: String, new: NewMessage, update: &MessageUpdate) -> Message {
    let now = now_ms();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Conversation, MessageStatus, NewConversation, Role};
    use crate::vocab::content::ContentPart;

    async fn store() -> (tempfile::TempDir, Store, Conversation) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
        let conv = store
            .create_conversation(NewConversation::default())
            .await
            .unwrap();
        (dir, store, conv)
    }

    fn message(conversation: &str, text: &str) -> NewMessage {
        NewMessage {
            conversation_id: conversation.to_owned(),
            parent_id: None,
            role: Role::Assistant,
            content: vec![ContentPart::text(text)],
            status: MessageStatus::Streaming,
            model: None,
        }
    }

    /// Queues the insert of a message `text` under `id`, as the conversation's head.
    fn push_insert(lane: &mut Lane, conv: &str, id: &str, text: &str) {
        lane.insert(id, message(conv, text));
    }

    /// Queues an update of message `id` to the text `text`.
    fn push_update(lane: &mut Lane, id: &str, text: &str) {
        let update = MessageUpdate {
            content: Some(vec![ContentPart::text(text)]),
            status: Some(MessageStatus::Complete),
            ..Default::default()
        };
        lane.update(id, update);
    }

    async fn texts(store: &Store, conv: &str) -> Vec<String> {
        let page = store.list_messages(conv, &Default::default()).await;
        let messages = page.unwrap().items;
        messages.iter().map(text_of).collect()
    }

    fn text_of(m: &Message) -> String {
        m.content
            .iter()
            .filter_map(|p| match p {
                ContentPart::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    #[tokio::test]
    async fn writes_queued_on_a_lane_land_in_the_order_they_were_queued() {
        let (_dir, store, conv) = store().await;
        let mut lane = Lane::new(&store);
        let id = Store::new_message_id();
        push_insert(&mut lane, &conv.id, &id, "first");
        for n in 0..20 {
            push_update(&mut lane, &id, &format!("text {n}"));
        }
        assert!(lane.written().await);
        lane.flush().await.unwrap();
        assert_eq!(texts(&store, &conv.id).await, ["text 19"]);
        assert_eq!(
            store.get_conversation(&conv.id).await.unwrap().head_id,
            Some(id)
        );
    }

    #[tokio::test]
    async fn a_failed_write_skips_every_write_after_it_for_the_rest_of_the_turn() {
        let (_dir, store, conv) = store().await;
        let mut lane = Lane::new(&store);
        push_update(&mut lane, "no-such-message", "lost");
        push_insert(&mut lane, &conv.id, &Store::new_message_id(), "after");
        assert!(!lane.written().await);
        let err = lane.flush().await.unwrap_err();
        assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
        lane.flush().await.unwrap(); // nothing queued since the failure was reported
        // Writes queued after the report are skipped too, and the next flush says so.
        push_insert(&mut lane, &conv.id, &Store::new_message_id(), "later");
        let err = lane.flush().await.unwrap_err();
        assert!(err.to_string().contains("earlier write"), "{err}");
        assert!(
            texts(&store, &conv.id).await.is_empty(),
            "nothing after the failure landed"
        );
    }

    #[tokio::test]
    async fn writes_queued_together_before_a_failing_one_still_land() {
        let (_dir, store, conv) = store().await;
        let mut lane = Lane::new(&store);
        let (first, third) = (Store::new_message_id(), Store::new_message_id());
        // Queued before the writer runs: they reach it as one batch.
        push_insert(&mut lane, &conv.id, &first, "first");
        push_update(&mut lane, &first, "updated");
        push_update(&mut lane, "no-such-message", "lost");
        push_insert(&mut lane, &conv.id, &third, "third");
        let err = lane.flush().await.unwrap_err();
        assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
        assert_eq!(texts(&store, &conv.id).await, ["updated"]);
        let head = store.get_conversation(&conv.id).await.unwrap().head_id;
        assert_eq!(head, Some(first));
    }

    #[tokio::test]
    async fn an_empty_lane_is_written_at_once() {
        let (_dir, store, _conv) = store().await;
        let mut lane = Lane::new(&store);
        assert!(lane.written().await);
        lane.flush().await.unwrap();
    }
}
