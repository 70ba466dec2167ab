//! Store tests against real SQLite files in temporary directories.

use std::time::Duration;

use sqlx::Connection;

use super::*;
use crate::vocab::content::ContentPart;

async fn fresh() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).await.unwrap();
    (dir, store)
}

fn titled(title: &str) -> NewConversation {
    NewConversation {
        title: Some(title.into()),
        ..Default::default()
    }
}

fn user_text(conversation_id: &str, parent: Option<String>, text: &str) -> NewMessage {
    NewMessage {
        conversation_id: conversation_id.into(),
        parent_id: parent,
        role: Role::User,
        content: vec![ContentPart::text(text)],
        status: MessageStatus::Complete,
        model: None,
    }
}

fn backups(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".bak"))
        .collect()
}

#[tokio::test]
async fn migrations_apply_to_a_new_file_and_reopening_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.schema_version().await.unwrap(), latest_version());
    let c = store.create_conversation(titled("kept")).await.unwrap();
    store.close().await;

    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.schema_version().await.unwrap(), latest_version());
    assert_eq!(store.get_conversation(&c.id).await.unwrap(), c);
    assert!(
        backups(dir.path()).is_empty(),
        "no backup without a migration"
    );
}

#[tokio::test]
async fn the_database_uses_wal_and_enforces_foreign_keys() {
    let (_dir, store) = fresh().await;
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&store.writer)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    let err = store
        .append_message(user_text("no-such-conversation", None, "hi"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::NotFound {
                entity: "conversation",
                ..
            }
        ),
        "{err}"
    );
}

#[tokio::test]
async fn the_store_pools_run_no_idle_reaper_that_could_spin_at_exit() {
    let (_dir, store) = fresh().await;
    for pool in [&store.writer, &store.reader] {
        let options = pool.options();
        assert_eq!(options.get_idle_timeout(), None);
        assert_eq!(options.get_max_lifetime(), None);
    }
    let options = super::file_pool_options(1);
    assert_eq!(options.get_idle_timeout(), None);
    assert_eq!(options.get_max_lifetime(), None);
}

#[tokio::test]
async fn conversations_round_trip_through_create_get_rename_pin_and_delete() {
    let (_dir, store) = fresh().await;
    let created = store
        .create_conversation(NewConversation {
            title: Some("  天气 and weather  ".into()),
            provider_id: Some("ollama".into()),
            model: Some("qwen3:8b".into()),
            system_prompt: Some("Be brief.".into()),
            project_id: None,
        })
        .await
        .unwrap();
    assert_eq!(created.title, "天气 and weather");
    assert_eq!(store.get_conversation(&created.id).await.unwrap(), created);

    let renamed = store
        .rename_conversation(&created.id, "Renamed")
        .await
        .unwrap();
    assert_eq!(
        renamed,
        Conversation {
            title: "Renamed".into(),
            ..created.clone()
        }
    );
    let pinned = store
        .set_conversation_pinned(&created.id, true)
        .await
        .unwrap();
    assert!(pinned.pinned);

    store.delete_conversation(&created.id).await.unwrap();
    let err = store.get_conversation(&created.id).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("conversation {} does not exist", created.id)
    );
    assert!(matches!(
        store.delete_conversation(&created.id).await,
        Err(StoreError::NotFound { .. })
    ));
}

#[tokio::test]
async fn bad_titles_are_refused_with_a_reason() {
    let (_dir, store) = fresh().await;
    let c = store.create_conversation(titled("x")).await.unwrap();
    let empty = store.rename_conversation(&c.id, "   ").await.unwrap_err();
    assert_eq!(empty.to_string(), "a title cannot be empty");
    let long = store
        .rename_conversation(&c.id, &"长".repeat(301))
        .await
        .unwrap_err();
    assert_eq!(long.to_string(), "a title may have at most 300 characters");
    assert!(matches!(
        store.rename_conversation("nope", "t").await,
        Err(StoreError::NotFound { .. })
    ));
}

#[tokio::test]
async fn listing_pages_newest_first_with_pinned_conversations_on_top() {
    let (_dir, store) = fresh().await;
    let mut ids = Vec::new();
    for i in 0..120 {
        ids.push(
            store
                .create_conversation(titled(&format!("c{i}")))
                .await
                .unwrap()
                .id,
        );
    }
    store.set_conversation_pinned(&ids[3], true).await.unwrap();
    store.set_conversation_pinned(&ids[7], true).await.unwrap();

    let mut seen = Vec::new();
    let mut page = PageRequest::first(50);
    loop {
        let got = store
            .list_conversations(&page, &ListScope::All)
            .await
            .unwrap();
        assert!(got.items.len() <= 50);
        seen.extend(got.items.into_iter().map(|c| c.id));
        match got.next_cursor {
            Some(c) => page.cursor = Some(c),
            None => break,
        }
    }
    let mut expected: Vec<String> = vec![ids[7].clone(), ids[3].clone()];
    expected.extend(
        ids.iter()
            .rev()
            .filter(|id| **id != ids[3] && **id != ids[7])
            .cloned(),
    );
    assert_eq!(seen, expected);
}

#[tokio::test]
async fn a_malformed_cursor_is_an_invalid_input_error() {
    let (_dir, store) = fresh().await;
    let page = PageRequest {
        limit: 10,
        cursor: Some("garbage".into()),
    };
    let err = store
        .list_conversations(&page, &ListScope::All)
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "malformed page cursor \"garbage\"");
}

#[tokio::test]
async fn messages_append_update_and_list_in_order() {
    let (_dir, store) = fresh().await;
    let c = store.create_conversation(titled("m")).await.unwrap();
    let first = store
        .append_message(user_text(&c.id, None, "你好"))
        .await
        .unwrap();
    let reply = store
        .append_message(NewMessage {
            conversation_id: c.id.clone(),
            parent_id: Some(first.id.clone()),
            role: Role::Assistant,
            content: vec![],
            status: MessageStatus::Streaming,
            model: Some("qwen3".into()),
        })
        .await
        .unwrap();
    let done = store
        .update_message(
            &reply.id,
            MessageUpdate {
                content: Some(vec![ContentPart::text("Hello")]),
                status: Some(MessageStatus::Complete),
                usage: Some(TokenUsage {
                    input_tokens: 12,
                    output_tokens: 3,
                }),
                error: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(done.content, vec![ContentPart::text("Hello")]);
    assert_eq!(done.status, MessageStatus::Complete);
    assert_eq!(
        done.usage,
        Some(TokenUsage {
            input_tokens: 12,
            output_tokens: 3
        })
    );
    assert_eq!(done.parent_id.as_deref(), Some(first.id.as_str()));

    let listed = store
        .list_messages(&c.id, &PageRequest::first(1))
        .await
        .unwrap();
    assert_eq!(listed.items, vec![first]);
    let next = PageRequest {
        limit: 1,
        cursor: listed.next_cursor,
    };
    let rest = store.list_messages(&c.id, &next).await.unwrap();
    assert_eq!((rest.items, rest.next_cursor), (vec![done], None));
    let bumped = store.get_conversation(&c.id).await.unwrap();
    assert!(bumped.updated_at >= c.updated_at);
}

#[tokio::test]
async fn messages_left_streaming_are_marked_interrupted() {
    let (_dir, store) = fresh().await;
    let c = store.create_conversation(titled("m")).await.unwrap();
    let mut streaming = user_text(&c.id, None, "partial");
    streaming.status = MessageStatus::Streaming;
    let m = store.append_message(streaming).await.unwrap();
    assert_eq!(store.mark_interrupted().await.unwrap(), 1);
    let page = store
        .list_messages(&c.id, &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(page.items[0].id, m.id);
    assert_eq!(page.items[0].status, MessageStatus::Interrupted);
    assert_eq!(store.mark_interrupted().await.unwrap(), 0);
}

#[tokio::test]
async fn deleting_a_conversation_deletes_its_messages() {
    let (_dir, store) = fresh().await;
    let keep = store.create_conversation(titled("keep")).await.unwrap();
    let gone = store.create_conversation(titled("gone")).await.unwrap();
    let mut parent = None;
    for i in 0..5 {
        let m = store
            .append_message(user_text(&gone.id, parent, &format!("{i}")))
            .await
            .unwrap();
        parent = Some(m.id);
    }
    store
        .append_message(user_text(&keep.id, None, "stay"))
        .await
        .unwrap();
    store.delete_conversation(&gone.id).await.unwrap();
    let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM messages")
        .fetch_one(&store.reader)
        .await
        .unwrap();
    assert_eq!(left, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_concurrent_writers_and_a_paging_reader_never_see_a_lock_error() {
    let (_dir, store) = fresh().await;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (store, stop) = (store.clone(), stop.clone());
        tokio::spawn(async move {
            let mut pages = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let mut req = PageRequest::first(20);
                loop {
                    let page = store.list_conversations(&req, &ListScope::All).await?;
                    pages += 1;
                    match page.next_cursor {
                        Some(c) => req.cursor = Some(c),
                        None => break,
                    }
                }
            }
            Ok::<u32, StoreError>(pages)
        })
    };
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let store = store.clone();
            tokio::spawn(async move {
                for i in 0..25 {
                    let c = store
                        .create_conversation(titled(&format!("w{w}-{i}")))
                        .await?;
                    let mut parent = None;
                    for j in 0..4 {
                        let m = store
                            .append_message(user_text(&c.id, parent, &format!("{j}")))
                            .await?;
                        parent = Some(m.id);
                    }
                }
                Ok::<(), StoreError>(())
            })
        })
        .collect();
    for w in writers {
        w.await.unwrap().unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(reader.await.unwrap().unwrap() > 0);
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM messages")
        .fetch_one(&store.reader)
        .await
        .unwrap();
    assert_eq!(count, 8 * 25 * 4);
}

#[tokio::test]
async fn a_corrupt_file_is_refused_by_name_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.db");
    let garbage = "this is not a database\n".repeat(500);
    std::fs::write(&path, &garbage).unwrap();
    let err = Store::open(&path).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "the database file {} is corrupt or not a Switchboard database; it was left untouched",
            path.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), garbage);
}

#[tokio::test]
async fn a_database_from_a_newer_schema_is_refused_with_both_versions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let store = Store::open(&path).await.unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (9999, 'from the future', 1, x'00', 0)",
    )
    .execute(&store.writer)
    .await
    .unwrap();
    store.close().await;
    let err = Store::open(&path).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the database file {} has schema version 9999, newer than this Switchboard supports ({}); update Switchboard to open it",
            path.display(),
            latest_version()
        )
    );
}

#[tokio::test]
async fn an_existing_database_is_backed_up_before_it_is_migrated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let opts = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true);
        let pool = SqlitePool::connect_with(opts).await.unwrap();
        sqlx::query("CREATE TABLE legacy (note TEXT)")
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("INSERT INTO legacy VALUES ('mine')")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.schema_version().await.unwrap(), latest_version());
    let found = backups(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("old.db.v0-"), "{found:?}");
    let backup = SqlitePool::connect_with(
        sqlx::sqlite::SqliteConnectOptions::new().filename(dir.path().join(&found[0])),
    )
    .await
    .unwrap();
    let note: String = sqlx::query_scalar("SELECT note FROM legacy")
        .fetch_one(&backup)
        .await
        .unwrap();
    assert_eq!(note, "mine");
}

#[tokio::test]
async fn a_write_blocked_by_another_process_lock_says_the_database_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let store = Store::open_with(&path, Duration::from_millis(100))
        .await
        .unwrap();
    let mut other = sqlx::SqliteConnection::connect_with(
        &sqlx::sqlite::SqliteConnectOptions::new().filename(&path),
    )
    .await
    .unwrap();
    sqlx::query("BEGIN EXCLUSIVE")
        .execute(&mut other)
        .await
        .unwrap();
    let err = store.create_conversation(titled("x")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the database file {} is locked by another process (is Switchboard already running?)",
            path.display()
        )
    );
}

#[tokio::test]
async fn a_bases_files_are_listed_a_page_at_a_time_filtered_by_path_and_failure() {
    let (_dir, store) = fresh().await;
    let base = store.create_knowledge_base("Notes", "none").await.unwrap();
    for i in 0..250 {
        let file = FileWrite {
            path: format!("/home/me/Notes/n{i:03}.md"),
            error: (i % 50 == 7).then(|| "permission denied".to_owned()),
            ..FileWrite::default()
        };
        store.put_knowledge_file(base.id, &file, &[]).await.unwrap();
    }
    let page = |contains: &str, failed_only, offset, limit| FilesQuery {
        contains: contains.into(),
        failed_only,
        offset,
        limit,
    };
    let first = store
        .knowledge_files_page(base.id, &page("", false, 0, 100))
        .await
        .unwrap();
    assert_eq!((first.total, first.files.len()), (250, 100));
    assert_eq!(first.files[0].path, "/home/me/Notes/n000.md");
    let last = store
        .knowledge_files_page(base.id, &page("", false, 200, 100))
        .await
        .unwrap();
    assert_eq!(last.files.len(), 50);
    assert_eq!(last.files[49].path, "/home/me/Notes/n249.md");

    let failed = store
        .knowledge_files_page(base.id, &page("notes/N1", true, 0, 100))
        .await
        .unwrap();
    let paths: Vec<&str> = failed.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["/home/me/Notes/n107.md", "/home/me/Notes/n157.md"]);
    assert_eq!(failed.total, 2);

    let capped = store
        .knowledge_files_page(base.id, &page("", false, 0, 100_000))
        .await
        .unwrap();
    assert_eq!(capped.files.len(), 250.min(MAX_FILES_PAGE as usize));
}

/// A store at `path` with one stdio server named `time`; the store and the server's id.
pub(super) async fn with_time_server(path: &std::path::Path) -> (Store, String) {
    let store = Store::open(path).await.unwrap();
    let config = crate::vocab::server::ServerConfig::new(
        "time",
        crate::vocab::server::Transport::Stdio {
            command: "uvx".into(),
            args: vec![],
            env: Default::default(),
            cwd: None,
        },
    );
    let id = store.insert_server(&config).await.unwrap().id;
    (store, id)
}
