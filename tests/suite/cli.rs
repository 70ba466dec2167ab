//! The `switchboard` binary as a user runs it: terminal commands, and the one-line errors for
//! bad input. Each test uses its own `--data-dir`.

use std::path::Path;
use std::process::{Command, Output};

fn switchboard(data_dir: &Path, args: &[&str]) -> Output {
    crate::suite::support_cli::switchboard(data_dir, args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Asserts a failed run: the exit code, and exactly one line on stderr equal to `line`.
fn assert_one_line_error(o: &Output, code: i32, line: &str) {
    assert_eq!(o.status.code(), Some(code), "stderr: {}", stderr(o));
    assert_eq!(stderr(o), format!("{line}\n"));
}

#[test]
fn version_prints_the_package_version() {
    let dir = tempfile::tempdir().unwrap();
    let o = switchboard(dir.path(), &["--version"]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        format!("switchboard {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn conversations_can_be_created_listed_renamed_and_deleted_from_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let o = switchboard(dir.path(), &["conversations", "new", "--title", "天气预报"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = stdout(&o).trim().to_owned();
    let list = stdout(&switchboard(dir.path(), &["conversations", "list"]));
    assert_eq!(list, format!("{id}    天气预报\n"));

    let o = switchboard(dir.path(), &["conversations", "rename", &id, "Weather"]);
    assert_eq!(stdout(&o), format!("renamed {id} to \"Weather\"\n"));
    let json: serde_json::Value = serde_json::from_str(&stdout(&switchboard(
        dir.path(),
        &["conv", "list", "--json"],
    )))
    .unwrap();
    assert_eq!(json[0]["title"], "Weather");

    let o = switchboard(dir.path(), &["conversations", "delete", &id]);
    assert_eq!(stdout(&o), format!("deleted {id}\n"));
    let list = stdout(&switchboard(dir.path(), &["conversations", "list"]));
    assert_eq!(list, "no conversations\n");
}

#[test]
fn an_unknown_flag_is_one_line_and_exit_code_two() {
    let dir = tempfile::tempdir().unwrap();
    let o = switchboard(dir.path(), &["--frobnicate"]);
    assert_one_line_error(
        &o,
        2,
        "switchboard: unexpected argument '--frobnicate' found (see `switchboard --help`)",
    );
}

#[test]
fn an_unusable_data_dir_is_named_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "mine").unwrap();
    let bad = file.join("profile");
    let o = switchboard(&bad, &["conversations", "list"]);
    assert_one_line_error(
        &o,
        1,
        &format!(
            "switchboard: cannot use {} as the data directory: Not a directory (os error 20)",
            bad.display()
        ),
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

#[test]
fn a_corrupt_database_is_named_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("switchboard.db");
    let garbage = vec![0x5a_u8; 64 * 1024];
    std::fs::write(&db, &garbage).unwrap();
    let o = switchboard(dir.path(), &["conversations", "list"]);
    assert_one_line_error(
        &o,
        1,
        &format!(
            "switchboard: the database file {} is corrupt or not a Switchboard database; it was left untouched",
            db.display()
        ),
    );
    assert_eq!(std::fs::read(&db).unwrap(), garbage);
}

#[test]
fn the_window_without_a_display_says_so_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let o = crate::suite::support_cli::output_within_limit(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("--data-dir")
            .arg(dir.path())
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY"),
    );
    assert_one_line_error(
        &o,
        1,
        "switchboard: no display found (DISPLAY and WAYLAND_DISPLAY are unset); run a terminal command instead, e.g. `switchboard conversations list`",
    );
}

#[test]
fn the_data_dir_can_come_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let o = crate::suite::support_cli::output_within_limit(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["conversations", "new", "--title", "from env"])
            .env("SWITCHBOARD_DATA_DIR", dir.path()),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.path().join("switchboard.db").exists());
    assert!(dir.path().join("logs").is_dir());
}
