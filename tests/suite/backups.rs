//! Backups through the real binary: taken, listed, restored at the next start of the profile
//! (not while another Switchboard has it open), the database it replaced kept as a backup.

use super::mcp_serve_http::cli;

fn ok(dir: &std::path::Path, args: &[&str]) -> String {
    let (ok, said) = cli(dir, args);
    assert!(ok, "{args:?}: {said}");
    said
}

#[test]
fn a_backup_restored_from_the_cli_comes_back_at_the_next_start_and_the_one_it_replaced_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(
        dir,
        &["conversations", "new", "--title", "Before the backup"],
    );
    let said = ok(dir, &["backups", "now"]);
    assert!(said.starts_with("backed up to "), "{said}");
    ok(
        dir,
        &["conversations", "new", "--title", "After the backup"],
    );
    let listed = ok(dir, &["backups", "list"]);
    let name = listed.split_whitespace().next().unwrap().to_owned();
    assert!(listed.contains("manual"), "{listed}");

    let (refused, said) = cli(dir, &["backups", "restore", "../switchboard.db"]);
    assert!(!refused && said.contains("no backup named"), "{said}");
    let said = ok(dir, &["backups", "restore", &name]);
    assert!(said.contains("next time"), "{said}");

    // Another Switchboard has the profile open: the restore waits for it.
    let lock = switchboard_engine::profile_lock::ProfileLock::try_acquire(dir).unwrap();
    assert!(lock.is_some());
    let said = ok(dir, &["conversations", "list"]);
    assert!(
        said.contains("After the backup") && !said.contains("restored"),
        "{said}"
    );
    drop(lock);

    let said = ok(dir, &["conversations", "list"]);
    assert!(
        said.contains(&format!("restored the database from the backup {name}")),
        "{said}"
    );
    assert!(
        said.contains("Before the backup") && !said.contains("After the backup"),
        "{said}"
    );
    let listed = ok(dir, &["backups", "list"]);
    assert!(listed.contains("before a restore"), "{listed}");
    assert!(!listed.contains("restored at the next start"), "{listed}");
}

#[test]
fn the_schedule_is_set_from_the_cli_and_a_keep_of_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let said = ok(
        dir.path(),
        &["backups", "schedule", "--every-hours", "6", "--keep", "3"],
    );
    assert!(
        said.contains("every 6 h") && said.contains("newest 3"),
        "{said}"
    );
    let (done, said) = cli(dir.path(), &["backups", "schedule", "--keep", "0"]);
    assert!(!done && said.contains("at least 1"), "{said}");
    let said = ok(dir.path(), &["backups", "schedule", "--every-hours", "0"]);
    assert!(said.contains("no scheduled backups"), "{said}");
}

#[test]
fn the_window_takes_lists_schedules_and_restores_backups_over_ipc() {
    let h = super::ipc::harness();
    let invoke = |cmd: &str, args: serde_json::Value| super::ipc::invoke(&h, cmd, args);
    let empty = invoke("backups_overview", serde_json::json!({})).unwrap();
    assert_eq!(empty["backups"], serde_json::json!([]));
    assert_eq!(
        (empty["everyHours"].clone(), empty["keep"].clone()),
        (24.into(), 7.into())
    );

    let taken = invoke("backup_now", serde_json::json!({})).unwrap();
    assert_eq!(taken["reason"], "manual");
    let name = taken["name"].as_str().unwrap().to_owned();
    let pending = invoke("restore_backup", serde_json::json!({ "name": name })).unwrap();
    assert_eq!(pending["pendingRestore"], true);
    let refused = invoke("restore_backup", serde_json::json!({ "name": "../x.db" }));
    assert_eq!(refused.unwrap_err()["kind"], "not_found");
    assert_eq!(
        invoke("cancel_restore", serde_json::json!({})),
        Ok(serde_json::Value::Null)
    );

    let set = serde_json::json!({ "everyHours": 12, "keep": 3 });
    let overview = invoke("set_backup_schedule", set).unwrap();
    assert_eq!(
        (overview["everyHours"].clone(), overview["keep"].clone()),
        (12.into(), 3.into())
    );
    assert_eq!(overview["backups"][0]["pendingRestore"], false);
    let zero = invoke(
        "set_backup_schedule",
        serde_json::json!({ "everyHours": 12, "keep": 0 }),
    );
    assert_eq!(zero.unwrap_err()["kind"], "invalid_input");
    assert_eq!(
        invoke("remove_backup", serde_json::json!({ "name": name })),
        Ok(serde_json::Value::Null)
    );
    let overview = invoke("backups_overview", serde_json::json!({})).unwrap();
    assert_eq!(overview["backups"], serde_json::json!([]));
}
