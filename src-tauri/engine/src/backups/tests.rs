//! Backups against real SQLite files in a temporary profile.

use serde_json::json;

use super::*;
use crate::store::{NewConversation, PageRequest};

async fn profile() -> (tempfile::TempDir, Paths, Store, Backups) {
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths::under(dir.path());
    paths.ensure().unwrap();
    let store = Store::open(&paths.database()).await.unwrap();
    let backups = Backups::new(&paths);
    (dir, paths, store, backups)
}

async fn add(store: &Store, title: &str) {
    let new = NewConversation {
        title: Some(title.into()),
        ..Default::default()
    };
    store.create_conversation(new).await.unwrap();
}

async fn titles(path: &Path) -> Vec<String> {
    let store = Store::open(path).await.unwrap();
    let page = store
        .list_conversations(&PageRequest::default(), &crate::store::ListScope::All)
        .await;
    let mut titles: Vec<String> = page.unwrap().items.into_iter().map(|c| c.title).collect();
    titles.sort();
    store.close().await;
    titles
}

#[tokio::test]
async fn a_backup_is_a_whole_database_listed_newest_first() {
    let (_dir, _paths, store, backups) = profile().await;
    add(&store, "first").await;
    let manual = backups.take(&store, BackupReason::Manual).await.unwrap();
    add(&store, "second").await;
    let scheduled = backups.take(&store, BackupReason::Scheduled).await.unwrap();

    let listed = backups.list().unwrap();
    let names: Vec<&str> = listed.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, [scheduled.name.as_str(), manual.name.as_str()]);
    assert!(listed.iter().all(|b| b.bytes > 0 && !b.pending_restore));
    assert_eq!(titles(&backups.dir().join(&manual.name)).await, ["first"]);
    assert_eq!(
        titles(&backups.dir().join(&scheduled.name)).await,
        ["first", "second"]
    );
    let stray = std::fs::read_dir(backups.dir()).unwrap().count();
    assert_eq!(stray, 2, "no partial file is left beside them");
}

#[tokio::test]
async fn only_scheduled_backups_are_pruned_to_the_newest_kept() {
    let (_dir, _paths, store, backups) = profile().await;
    let manual = backups.take(&store, BackupReason::Manual).await.unwrap();
    let mut scheduled = Vec::new();
    for _ in 0..4 {
        scheduled.push(backups.take(&store, BackupReason::Scheduled).await.unwrap());
    }
    assert_eq!(backups.prune(2).unwrap(), 2);
    let names: Vec<String> = backups
        .list()
        .unwrap()
        .into_iter()
        .map(|b| b.name)
        .collect();
    assert_eq!(
        names,
        [
            scheduled[3].name.clone(),
            scheduled[2].name.clone(),
            manual.name.clone()
        ],
        "the two newest scheduled ones and the manual one"
    );
}

#[tokio::test]
async fn a_restore_replaces_the_database_at_the_next_open_and_keeps_the_one_it_replaced() {
    let (_dir, paths, store, backups) = profile().await;
    add(&store, "kept in the backup").await;
    let backup = backups.take(&store, BackupReason::Manual).await.unwrap();
    add(&store, "written after it").await;
    let scheduled = backups.schedule_restore(&backup.name).await.unwrap();
    assert!(scheduled.pending_restore);
    assert_eq!(titles(&paths.database()).await.len(), 2, "nothing yet");
    store.close().await;

    let restored = backups.apply_pending().await.unwrap().unwrap();
    assert_eq!(restored.name, backup.name);
    assert_eq!(titles(&paths.database()).await, ["kept in the backup"]);
    let before = backups.list().unwrap();
    let before = before
        .iter()
        .find(|b| b.reason == BackupReason::BeforeRestore)
        .expect("the replaced database is kept");
    assert_eq!(
        titles(&backups.dir().join(&before.name)).await,
        ["kept in the backup", "written after it"]
    );
    assert!(backups.apply_pending().await.unwrap().is_none(), "once");
}

#[tokio::test]
async fn a_backup_that_is_not_an_intact_switchboard_database_is_refused_and_nothing_changes() {
    let (_dir, paths, store, backups) = profile().await;
    add(&store, "mine").await;
    let good = backups.take(&store, BackupReason::Manual).await.unwrap();
    let junk = backups.dir().join("switchboard-1-manual.db");
    std::fs::write(&junk, b"not a database at all, just some bytes of text").unwrap();
    let error = backups.schedule_restore("switchboard-1-manual.db").await;
    assert!(
        matches!(error, Err(BackupError::Store(StoreError::Corrupt { .. }))),
        "{error:?}"
    );
    let foreign = backups.dir().join("switchboard-2-manual.db");
    let url = format!("sqlite://{}?mode=rwc", foreign.display());
    let other = sqlx::SqlitePool::connect(&url).await.unwrap();
    sqlx::query("CREATE TABLE notes (body TEXT)")
        .execute(&other)
        .await
        .unwrap();
    other.close().await;
    let error = backups.schedule_restore("switchboard-2-manual.db").await;
    assert!(matches!(error, Err(BackupError::Store(_))), "{error:?}");
    for name in ["../switchboard.db", "switchboard.db", "nothing-here.db"] {
        let error = backups.schedule_restore(name).await;
        assert!(matches!(error, Err(BackupError::Unknown { .. })), "{name}");
    }

    // A good backup broken after it was chosen: not restored, the schedule forgotten.
    backups.schedule_restore(&good.name).await.unwrap();
    std::fs::write(backups.dir().join(&good.name), b"broken since").unwrap();
    add(&store, "after").await;
    store.close().await;
    assert!(backups.apply_pending().await.is_err());
    assert_eq!(titles(&paths.database()).await, ["after", "mine"]);
    assert!(backups.apply_pending().await.unwrap().is_none());
}

#[tokio::test]
async fn the_schedule_takes_a_backup_when_one_is_due_and_not_when_switched_off() {
    let (_dir, _paths, store, backups) = profile().await;
    store.set_setting(EVERY_HOURS, &json!(0)).await.unwrap();
    assert!(backups.due(&store).await.unwrap().is_none(), "off");
    store.set_setting(EVERY_HOURS, &json!(24)).await.unwrap();
    store.set_setting(KEEP, &json!(1)).await.unwrap();
    let first = backups.due(&store).await.unwrap().expect("none yet: due");
    assert_eq!(first.reason, BackupReason::Scheduled);
    assert!(
        backups.due(&store).await.unwrap().is_none(),
        "not due again"
    );
    assert_eq!(backups.list().unwrap().len(), 1);
}
