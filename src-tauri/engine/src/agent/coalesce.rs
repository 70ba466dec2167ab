//! Coalescing a turn's events into batches for the UI (~30 ms apart): consecutive text or
//! reasoning deltas of the same message merge into one, every other event keeps its place,
//! so a fast model costs a few IPC messages per second instead of hundreds.

use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;

use crate::vocab::chat::ChatEvent;

/// The batching interval.
pub const INTERVAL: Duration = Duration::from_millis(30);

/// Appends `event` to `batch`, merging it into the last event when both are deltas of the
/// same kind and message.
pub fn push(batch: &mut Vec<ChatEvent>, event: ChatEvent) {
    match (batch.last_mut(), event) {
        (
            Some(ChatEvent::TextDelta {
                message_id: a,
                text,
            }),
            ChatEvent::TextDelta {
                message_id: b,
                text: more,
            },
        ) if *a == b => text.push_str(&more),
        (
            Some(ChatEvent::ReasoningDelta {
                message_id: a,
                text,
            }),
            ChatEvent::ReasoningDelta {
                message_id: b,
                text: more,
            },
        ) if *a == b => text.push_str(&more),
        (_, event) => batch.push(event),
    }
}

/// Forwards `rx` to `deliver` in batches at most every `interval`; returns when the sender
/// side is gone and the last batch is delivered.
pub async fn forward(
    mut rx: UnboundedReceiver<ChatEvent>,
    interval: Duration,
    mut deliver: impl FnMut(Vec<ChatEvent>),
) {
    loop {
        let Some(first) = rx.recv().await else { return };
        let mut batch = vec![first];
        let deadline = tokio::time::Instant::now() + interval;
        loop {
            tokio::select! {
                next = rx.recv() => match next {
                    Some(e) => push(&mut batch, e),
                    None => {
                        deliver(batch);
                        return;
                    }
                },
                () = tokio::time::sleep_until(deadline) => break,
            }
        }
        deliver(batch);
    }
}
