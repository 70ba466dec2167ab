//! Sync log and merge tests: two real SQLite files pass batches through an in-memory folder,
//! pulling before pushing as a sync does.

use std::collections::HashMap;

use super::*;
use crate::vocab::content::ContentPart;

/// Batches written by each device, in order.
#[derive(Default)]
struct Folder(HashMap<String, Vec<Vec<SyncRecord>>>);

async fn device() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).await.unwrap();
    store.start_sync_tracking().await.unwrap();
    (dir, store)
}

/// One sync of `store`: every other device's new batches applied, then its changes written.
async fn sync(store: &Store, folder: &mut Folder) -> Applied {
    let me = store.sync_cursor().await.unwrap().device;
    let mut total = Applied::default();
    for (peer, batches) in &folder.0 {
        if *peer == me {
            continue;
        }
        let applied = store.sync_peer_applied(peer).await.unwrap() as usize;
        for (i, batch) in batches.iter().enumerate().skip(applied) {
            let r = store
                .apply_sync_batch(peer, i as u64 + 1, batch)
                .await
                .unwrap();
            total.applied += r.applied;
            total.conflicts += r.conflicts;
            total.waiting = r.waiting;
        }
    }
    loop {
        let changes = store.sync_changes(1000).await.unwrap();
        if changes.is_empty() {
            return total;
        }
        let mine = folder.0.entry(me.clone()).or_default();
        mine.push(changes.clone());
        let keys: Vec<PushedKey> = changes
            .iter()
            .map(|r| (r.kind.clone(), r.id.clone(), r.version))
            .collect();
        store
            .mark_sync_pushed(mine.len() as u64, &keys)
            .await
            .unwrap();
    }
}

async fn chat(store: &Store, title: &str, texts: &[&str]) -> Conversation {
    let conv = store
        .create_conversation(NewConversation {
            title: Some(title.into()),
            ..Default::default()
        })
        .await
        .unwrap();
    for text in texts {
        say(store, &conv.id, text).await;
    }
    store.get_conversation(&conv.id).await.unwrap()
}

async fn say(store: &Store, conversation: &str, text: &str) -> Message {
    let head = store.get_conversation(conversation).await.unwrap().head_id;
    store
        .append_as_head(NewMessage {
            conversation_id: conversation.into(),
            parent_id: head,
            role: Role::User,
            content: vec![ContentPart::text(text)],
            status: MessageStatus::Complete,
            model: None,
        })
        .await
        .unwrap()
}

async fn texts(store: &Store, conversation: &str) -> Vec<String> {
    let page = store
        .list_messages(conversation, &PageRequest::first(500))
        .await
        .unwrap();
    page.items
        .iter()
        .map(|m| {
            serde_json::to_value(&m.content).unwrap()[0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Lets the clock move so two edits have different versions.
async fn tick() {
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
}

#[tokio::test]
async fn records_made_on_two_devices_reach_both() {
    let ((_a_dir, a), (_b_dir, b)) = (device().await, device().await);
    let mut folder = Folder::default();
    let on_a = chat(&a, "From A", &["hello", "more"]).await;
    let on_b = chat(&b, "From B", &["你好"]).await;
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    sync(&a, &mut folder).await;
    assert_eq!(texts(&b, &on_a.id).await, ["hello", "more"]);
    assert_eq!(texts(&a, &on_b.id).await, ["你好"]);
    assert_eq!(a.get_conversation(&on_b.id).await.unwrap().title, "From B");
    assert_eq!(
        b.get_conversation(&on_a.id).await.unwrap().head_id,
        on_a.head_id
    );
    assert_eq!(
        a.sync_cursor().await.unwrap().pending,
        0,
        "nothing echoes back"
    );
    assert!(a.sync_conflicts().await.unwrap().is_empty());
}

#[tokio::test]
async fn different_fields_of_one_conversation_merge_without_a_conflict() {
    let ((_a_dir, a), (_b_dir, b)) = (device().await, device().await);
    let mut folder = Folder::default();
    let conv = chat(&a, "Plans", &["first"]).await;
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    a.rename_conversation(&conv.id, "Trip plans").await.unwrap();
    tick().await;
    b.set_conversation_pinned(&conv.id, true).await.unwrap();
    say(&b, &conv.id, "second").await;
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    sync(&a, &mut folder).await;
    for store in [&a, &b] {
        let got = store.get_conversation(&conv.id).await.unwrap();
        assert_eq!((got.title.as_str(), got.pinned), ("Trip plans", true));
        assert_eq!(texts(store, &conv.id).await, ["first", "second"]);
        assert!(store.sync_conflicts().await.unwrap().is_empty());
    }
}

#[tokio::test]
async fn the_same_field_changed_on_both_keeps_the_newer_and_sets_the_other_aside() {
    let ((_a_dir, a), (_b_dir, b)) = (device().await, device().await);
    let mut folder = Folder::default();
    let conv = chat(&a, "Draft", &["x"]).await;
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    b.rename_conversation(&conv.id, "Older name").await.unwrap();
    tick().await;
    a.rename_conversation(&conv.id, "Newer name").await.unwrap();
    sync(&b, &mut folder).await;
    let found = sync(&a, &mut folder).await;
    assert_eq!(found.conflicts, 1);
    sync(&b, &mut folder).await;
    for store in [&a, &b] {
        assert_eq!(
            store.get_conversation(&conv.id).await.unwrap().title,
            "Newer name"
        );
        let conflicts = store.sync_conflicts().await.unwrap();
        assert_eq!(conflicts.len(), 1, "both devices list the conflict");
        assert_eq!(conflicts[0].other["title"], "Older name");
    }
    let id = b.sync_conflicts().await.unwrap()[0].id.clone();
    b.use_sync_conflict(&id).await.unwrap();
    assert_eq!(
        b.get_conversation(&conv.id).await.unwrap().title,
        "Older name"
    );
    sync(&b, &mut folder).await;
    sync(&a, &mut folder).await;
    assert_eq!(
        a.get_conversation(&conv.id).await.unwrap().title,
        "Older name"
    );
}

#[tokio::test]
async fn a_conversation_deleted_on_one_device_and_continued_on_the_other_is_kept_whole() {
    let ((_a_dir, a), (_b_dir, b)) = (device().await, device().await);
    let mut folder = Folder::default();
    let conv = chat(&a, "Keep me", &["one", "two"]).await;
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    a.delete_conversation(&conv.id).await.unwrap();
    tick().await;
    say(&b, &conv.id, "three").await;
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    sync(&a, &mut folder).await;
    for store in [&a, &b] {
        assert_eq!(texts(store, &conv.id).await, ["one", "two", "three"]);
        let conflicts = store.sync_conflicts().await.unwrap();
        assert!(
            conflicts
                .iter()
                .any(|c| c.deleted && c.record_id == conv.id)
        );
    }
}

#[tokio::test]
async fn an_edit_that_arrives_after_an_unpushed_deletion_brings_the_conversation_back() {
    let ((_a_dir, a), (_b_dir, b)) = (device().await, device().await);
    let mut folder = Folder::default();
    let conv = chat(&a, "Back", &["one", "two"]).await;
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    say(&b, &conv.id, "three").await;
    sync(&b, &mut folder).await;
    a.delete_conversation(&conv.id).await.unwrap();
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    for store in [&a, &b] {
        assert_eq!(texts(store, &conv.id).await, ["one", "two", "three"]);
    }
}

#[tokio::test]
async fn a_deletion_with_no_edit_against_it_reaches_the_other_device() {
    let ((_a_dir, a), (_b_dir, b)) = (device().await, device().await);
    let mut folder = Folder::default();
    let conv = chat(&a, "Gone", &["one"]).await;
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    a.delete_conversation(&conv.id).await.unwrap();
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    assert!(b.get_conversation(&conv.id).await.is_err());
    let pushed = folder
        .0
        .values()
        .flatten()
        .flatten()
        .filter(|r| r.deleted)
        .count();
    assert_eq!(pushed, 1, "one tombstone, its messages implied");
}

#[tokio::test]
async fn a_batch_applied_twice_changes_nothing_and_a_message_before_its_conversation_waits() {
    let ((_a_dir, a), (_b_dir, b)) = (device().await, device().await);
    let conv = chat(&a, "Order", &["one", "two"]).await;
    let changes = a.sync_changes(100).await.unwrap();
    let (convs, msgs): (Vec<_>, Vec<_>) =
        changes.into_iter().partition(|r| r.kind == "conversation");
    let me = a.sync_cursor().await.unwrap().device;
    let first = b.apply_sync_batch(&me, 1, &msgs).await.unwrap();
    assert_eq!(first.waiting, 2);
    b.apply_sync_batch(&me, 2, &convs).await.unwrap();
    assert_eq!(texts(&b, &conv.id).await, ["one", "two"]);
    let again = b.apply_sync_batch(&me, 2, &convs).await.unwrap();
    assert_eq!(again.applied, 0);
    assert_eq!(b.sync_cursor().await.unwrap().pending, 0);
}

#[tokio::test]
async fn only_the_synced_settings_travel_and_assistant_names_never_clash() {
    let ((_a_dir, a), (_b_dir, b)) = (device().await, device().await);
    let mut folder = Folder::default();
    a.set_setting("chat.auto_title", &serde_json::json!(false))
        .await
        .unwrap();
    a.set_setting("serve.port", &serde_json::json!(4000))
        .await
        .unwrap();
    let draft = |name: &str| AssistantDraft {
        name: name.into(),
        ..Default::default()
    };
    a.insert_assistant(&draft("Writer")).await.unwrap();
    b.insert_assistant(&draft("writer")).await.unwrap();
    sync(&a, &mut folder).await;
    sync(&b, &mut folder).await;
    assert_eq!(
        b.setting("chat.auto_title").await.unwrap(),
        Some(serde_json::json!(false))
    );
    assert_eq!(b.setting("serve.port").await.unwrap(), None);
    let mut names: Vec<String> = b
        .list_assistants()
        .await
        .unwrap()
        .into_iter()
        .map(|x| x.name)
        .collect();
    names.sort();
    assert_eq!(names, ["Writer (2)", "writer"]);
}

#[tokio::test]
async fn a_setting_that_belongs_to_each_machine_is_never_applied_from_a_sync_folder() {
    let (_dir, store) = device().await;
    let record = |key: &str, value: serde_json::Value| SyncRecord {
        kind: "setting".into(),
        id: key.into(),
        version: now_ms(),
        device: "f".repeat(32),
        deleted: false,
        data: Some(serde_json::json!({"key": key, "value": value})),
    };
    let batch = [
        record("serve.enabled", serde_json::json!(true)),
        record("mcp.roots", serde_json::json!(["/"])),
        record("chat.auto_title", serde_json::json!(false)),
    ];
    let applied = store
        .apply_sync_batch(&"f".repeat(32), 1, &batch)
        .await
        .unwrap();
    assert_eq!((applied.applied, applied.ignored), (1, 2));
    assert_eq!(store.setting("serve.enabled").await.unwrap(), None);
    assert_eq!(store.setting("mcp.roots").await.unwrap(), None);
    assert_eq!(
        store.setting("chat.auto_title").await.unwrap(),
        Some(serde_json::json!(false))
    );
}
