//! The profile's permissions: after a start (the CLI, under the usual 022 umask) the data,
//! config and log folders are 0700 and the database and secrets files 0600, and a profile left
//! open (0755 folders, 0644 files) is repaired at the next start.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use switchboard_engine::Paths;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn start(data_dir: &Path) {
    let o = crate::suite::support_cli::output_within_limit(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("--data-dir")
            .arg(data_dir)
            .args(["servers", "list"])
            .env_remove("SWITCHBOARD_DATA_DIR"),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The database, its WAL and shared-memory files, and the secrets file, those that exist.
fn private_files(paths: &Paths) -> Vec<PathBuf> {
    let db = paths.database();
    let beside = |suffix: &str| {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    let secrets = paths.config_dir.join("secrets.json");
    [db.clone(), beside("-wal"), beside("-shm"), secrets]
        .into_iter()
        .filter(|p| p.exists())
        .collect()
}

/// Asserts the folders are 0700 and every private file 0600.
fn assert_owner_only(paths: &Paths) {
    let dirs = [&paths.data_dir, &paths.config_dir, &paths.log_dir];
    let dir_modes: Vec<u32> = dirs.iter().map(|d| mode(d)).collect();
    assert_eq!(dir_modes, [0o700; 3]);
    let files: Vec<(PathBuf, u32)> = private_files(paths)
        .into_iter()
        .map(|f| {
            let m = mode(&f);
            (f, m)
        })
        .collect();
    assert!(files.iter().all(|(_, m)| *m == 0o600), "{files:?}");
}

#[test]
fn a_new_profile_has_owner_only_folders_and_a_0600_database() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("profile");
    start(&root);
    let paths = Paths::under(&root);
    assert!(paths.database().exists());
    assert_owner_only(&paths);
}

#[test]
fn a_profile_left_open_is_repaired_at_the_next_start() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("profile");
    start(&root);
    let paths = Paths::under(&root);
    for dir in [&paths.data_dir, &paths.config_dir, &paths.log_dir] {
        set_mode(dir, 0o755);
    }
    set_mode(&paths.database(), 0o644);
    let secrets = paths.config_dir.join("secrets.json");
    std::fs::write(&secrets, "{}").unwrap();
    set_mode(&secrets, 0o644);
    start(&root);
    assert_eq!(mode(&secrets), 0o600);
    assert_owner_only(&paths);
}
