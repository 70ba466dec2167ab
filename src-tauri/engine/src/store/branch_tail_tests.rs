//! Tests of reading a branch from its end, page by page (long conversations).

use super::*;
use crate::vocab::content::ContentPart;

/// A conversation of `n` messages in one chain; returns the store, the ids oldest first.
async fn chain(n: usize) -> (tempfile::TempDir, Store, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).await.unwrap();
    let conv = store
        .create_conversation(NewConversation::default())
        .await
        .unwrap();
    let mut ids: Vec<String> = Vec::new();
    for i in 0..n {
        let m = store
            .append_message(NewMessage {
                conversation_id: conv.id.clone(),
                parent_id: ids.last().cloned(),
                role: if i % 2 == 0 {
                    Role::User
                } else {
                    Role::Assistant
                },
                content: vec![ContentPart::text(format!("message {i}"))],
                status: MessageStatus::Complete,
                model: None,
            })
            .await
            .unwrap();
        ids.push(m.id);
    }
    (dir, store, ids)
}

fn ids_of(messages: &[Message]) -> Vec<String> {
    messages.iter().map(|m| m.id.clone()).collect()
}

#[tokio::test]
async fn the_tail_of_a_branch_is_its_last_messages_oldest_first() {
    let (_dir, store, ids) = chain(7).await;
    let tail = store.branch_tail(&ids[6], 3).await.unwrap();
    assert_eq!(ids_of(&tail), ids[4..7].to_vec());
}

#[tokio::test]
async fn pages_read_from_the_parent_of_the_oldest_message_shown_cover_the_branch_once() {
    let (_dir, store, ids) = chain(7).await;
    let mut shown = store.branch_tail(&ids[6], 3).await.unwrap();
    while let Some(parent) = shown.first().and_then(|m| m.parent_id.clone()) {
        let older = store.branch_tail(&parent, 3).await.unwrap();
        shown.splice(0..0, older);
    }
    assert_eq!(ids_of(&shown), ids);
}

#[tokio::test]
async fn a_tail_longer_than_the_branch_is_the_whole_branch_and_zero_is_nothing() {
    let (_dir, store, ids) = chain(4).await;
    assert_eq!(ids_of(&store.branch_tail(&ids[3], 100).await.unwrap()), ids);
    assert_eq!(
        ids_of(&store.branch_tail(&ids[2], 100).await.unwrap()),
        ids[..3].to_vec()
    );
    assert!(store.branch_tail(&ids[3], 0).await.unwrap().is_empty());
    assert!(
        store
            .branch_tail("no-such-message", 5)
            .await
            .unwrap()
            .is_empty()
    );
}
