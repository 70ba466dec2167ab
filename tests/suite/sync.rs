//! Sync between two profiles through a real WebDAV server (`wsgidav` from PyPI, started here
//! on 127.0.0.1 with basic authentication): records made on each side reach the other, the
//! same record edited on both keeps the newer and sets the other aside, a deletion on one side
//! loses to an edit on the other, an interrupted sync resumes with nothing duplicated or lost,
//! and a server that is down, slow or full, a folder a newer version wrote and a wrong
//! passphrase are each refused in words. Also through the real binary (`switchboard sync`).

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use secrecy::SecretString;
use switchboard_engine::store::{
    MessageStatus, NewConversation, NewMessage, PageRequest, Role, Store,
};
use switchboard_engine::sync::{Remote, SyncError, SyncReport, Traffic, WebDavRemote, sync_once};
use switchboard_engine::vocab::content::ContentPart;

use super::mcp_serve_http::cli;
use super::support_py::{fixtures_py, free_port};

const USER: &str = "alice";
const PASSWORD: &str = "s3cret-pw";

/// A wsgidav server over a temporary folder, killed when dropped.
pub(crate) struct WebDav {
    child: Child,
    port: u16,
    pub(crate) root: tempfile::TempDir,
}

impl WebDav {
    pub(crate) fn start() -> Self {
        let root = tempfile::tempdir().unwrap();
        let port = free_port();
        let config = root.path().join("wsgidav.yaml");
        let served = root.path().join("dav");
        std::fs::create_dir(&served).unwrap();
        std::fs::write(
            &config,
            format!(
                "host: 127.0.0.1\nport: {port}\nprovider_mapping:\n  \"/\": \"{}\"\n\
                 http_authenticator:\n  domain_controller: null\n  accept_basic: true\n  \
                 accept_digest: false\n  default_to_digest: false\n\
                 simple_dc:\n  user_mapping:\n    \"*\":\n      \"{USER}\":\n        password: \"{PASSWORD}\"\n\
                 verbose: 0\nlogging:\n  enable_loggers: []\n",
                served.display()
            ),
        )
        .unwrap();
        let child = Command::new(fixtures_py().join(".venv/bin/wsgidav"))
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("wsgidav from tests/fixtures/mcp-py/.venv (scripts/deps.sh test)");
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "wsgidav did not listen"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Self { child, port, root }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/switchboard/", self.port)
    }

    fn remote(&self) -> WebDavRemote {
        WebDavRemote::new(
            &self.url(),
            Some(USER.into()),
            Some(SecretString::from(PASSWORD)),
            Duration::from_secs(30),
        )
        .unwrap()
    }

    fn served(&self, path: &str) -> std::path::PathBuf {
        self.root.path().join("dav/switchboard").join(path)
    }
}

impl Drop for WebDav {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A remote that fails every request after its first `budget` (a connection lost mid-sync).
struct Cut<'a> {
    inner: &'a dyn Remote,
    budget: AtomicU64,
}

impl<'a> Cut<'a> {
    fn after(inner: &'a dyn Remote, budget: u64) -> Self {
        Self {
            inner,
            budget: AtomicU64::new(budget),
        }
    }

    fn spend(&self) -> Result<(), SyncError> {
        let left = self
            .budget
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |b| b.checked_sub(1));
        left.map(|_| ()).map_err(|_| SyncError::Unreachable {
            url: "test".into(),
            reason: "connection reset".into(),
        })
    }
}

#[async_trait]
impl Remote for Cut<'_> {
    async fn get(&self, path: &str) -> Result<Option<Vec<u8>>, SyncError> {
        self.spend()?;
        self.inner.get(path).await
    }
    async fn put(&self, path: &str, body: Vec<u8>) -> Result<(), SyncError> {
        self.spend()?;
        self.inner.put(path, body).await
    }
    async fn mkdir(&self, path: &str) -> Result<(), SyncError> {
        self.spend()?;
        self.inner.mkdir(path).await
    }
    async fn folders(&self, path: &str) -> Result<Vec<String>, SyncError> {
        self.spend()?;
        self.inner.folders(path).await
    }
    fn traffic(&self) -> &Traffic {
        self.inner.traffic()
    }
}

async fn profile() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("switchboard.db"))
        .await
        .unwrap();
    (dir, store)
}

async fn sync(store: &Store, dav: &WebDav, passphrase: Option<&str>) -> SyncReport {
    let passphrase = passphrase.map(SecretString::from);
    sync_once(store, &dav.remote(), passphrase.as_ref(), "test")
        .await
        .unwrap()
}

async fn chat(store: &Store, title: &str, texts: &[&str]) -> String {
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
    conv.id
}

async fn say(store: &Store, conversation: &str, text: &str) {
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
        .unwrap();
}

async fn texts(store: &Store, conversation: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut page = PageRequest::first(500);
    loop {
        let listed = store.list_messages(conversation, &page).await.unwrap();
        out.extend(listed.items.iter().map(|m| {
            let content = serde_json::to_value(&m.content).unwrap();
            content[0]["text"].as_str().unwrap_or_default().to_owned()
        }));
        match listed.next_cursor {
            Some(cursor) => {
                page = PageRequest {
                    limit: 500,
                    cursor: Some(cursor),
                }
            }
            None => return out,
        }
    }
}

async fn count_messages(store: &Store) -> usize {
    let mut total = 0;
    let mut page = PageRequest::first(500);
    loop {
        let listed = store
            .list_conversations(&page, &Default::default())
            .await
            .unwrap();
        for conv in &listed.items {
            total += texts(store, &conv.id).await.len();
        }
        match listed.next_cursor {
            Some(cursor) => {
                page = PageRequest {
                    limit: 500,
                    cursor: Some(cursor),
                }
            }
            None => return total,
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn two_profiles_sync_through_a_real_webdav_server_with_conflicts_and_deletions_resolved() {
    let dav = WebDav::start();
    runtime().block_on(async {
        let ((_a_dir, a), (_b_dir, b)) = (profile().await, profile().await);
        let from_a = chat(&a, "From A", &["hello", "你好"]).await;
        let from_b = chat(&b, "From B", &["bonjour"]).await;
        let shared = chat(&a, "Shared", &["one"]).await;
        let doomed = chat(&a, "Doomed", &["keep this"]).await;
        sync(&a, &dav, Some("pass phrase")).await;
        sync(&b, &dav, Some("pass phrase")).await;
        sync(&a, &dav, Some("pass phrase")).await;
        assert_eq!(texts(&b, &from_a).await, ["hello", "你好"]);
        assert_eq!(texts(&a, &from_b).await, ["bonjour"]);

        // The same record on both sides: the newer title wins, the other is set aside.
        b.rename_conversation(&shared, "B's title").await.unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        a.rename_conversation(&shared, "A's title").await.unwrap();
        // Deleted on A, continued on B.
        a.delete_conversation(&doomed).await.unwrap();
        say(&b, &doomed, "and this").await;
        // Different conversations on each side.
        say(&a, &from_b, "reply from A").await;
        say(&b, &from_a, "reply from B").await;

        sync(&a, &dav, Some("pass phrase")).await;
        let report = sync(&b, &dav, Some("pass phrase")).await;
        assert!(report.conflicts >= 2, "{report:?}");
        sync(&a, &dav, Some("pass phrase")).await;
        sync(&b, &dav, Some("pass phrase")).await;
        for store in [&a, &b] {
            assert_eq!(
                store.get_conversation(&shared).await.unwrap().title,
                "A's title"
            );
            assert_eq!(texts(store, &doomed).await, ["keep this", "and this"]);
            assert_eq!(
                texts(store, &from_a).await,
                ["hello", "你好", "reply from B"]
            );
            assert_eq!(texts(store, &from_b).await, ["bonjour", "reply from A"]);
            let conflicts = store.sync_conflicts().await.unwrap();
            assert!(
                conflicts.iter().any(|c| c.other["title"] == "B's title"),
                "{conflicts:?}"
            );
            assert!(conflicts.iter().any(|c| c.deleted && c.record_id == doomed));
        }
        // Nothing readable on the server.
        let batch = std::fs::read_dir(dav.served("devices"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        for file in std::fs::read_dir(batch.path()).unwrap() {
            let bytes = std::fs::read(file.unwrap().path()).unwrap();
            assert!(!String::from_utf8_lossy(&bytes).contains("hello"));
        }
        // A wrong passphrase opens nothing and changes nothing.
        let (_c_dir, c) = profile().await;
        let wrong = SecretString::from("guess");
        let err = sync_once(&c, &dav.remote(), Some(&wrong), "c")
            .await
            .unwrap_err();
        assert!(
            err.to_string().contains("passphrase does not open"),
            "{err}"
        );
        assert_eq!(count_messages(&c).await, 0);
        let err = sync_once(&c, &dav.remote(), None, "c").await.unwrap_err();
        assert!(
            err.to_string().contains("encrypted: enter its passphrase"),
            "{err}"
        );
    });
}

#[test]
fn an_interrupted_sync_resumes_with_nothing_duplicated_and_nothing_lost() {
    let dav = WebDav::start();
    runtime().block_on(async {
        let ((_a_dir, a), (_b_dir, b)) = (profile().await, profile().await);
        // More than two batches' worth.
        for i in 0..5 {
            let texts: Vec<String> = (0..1000).map(|j| format!("message {i}-{j}")).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            chat(&a, &format!("Long {i}"), &refs).await;
        }
        let remote = dav.remote();
        // A's push is cut after its first batch.
        let err = sync_once(&a, &Cut::after(&remote, 6), None, "a")
            .await
            .unwrap_err();
        assert!(err.to_string().contains("connection reset"), "{err}");
        sync_once(&a, &remote, None, "a").await.unwrap();
        // B's pull is cut after its first batch.
        let err = sync_once(&b, &Cut::after(&remote, 5), None, "b")
            .await
            .unwrap_err();
        assert!(err.to_string().contains("connection reset"), "{err}");
        let partial = count_messages(&b).await;
        assert!(partial > 0 && partial < 5000, "{partial}");
        sync_once(&b, &remote, None, "b").await.unwrap();
        assert_eq!(count_messages(&b).await, 5000);
        let again = sync_once(&b, &remote, None, "b").await.unwrap();
        assert_eq!((again.pulled, again.pushed), (0, 0), "{again:?}");
    });
}

/// Answers every request with `status` (after reading it), or never when `None`.
fn fixed_server(status: Option<u16>) -> (u16, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        listener.set_nonblocking(false).unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            stream
                .set_read_timeout(Some(Duration::from_millis(500)))
                .unwrap();
            let mut buf = [0u8; 65536];
            let n = stream.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]).into_owned();
            let code = match (status, request.split(' ').next()) {
                (None, _) => {
                    held.push(stream);
                    if Instant::now() > deadline {
                        break;
                    }
                    continue;
                }
                (Some(_), Some("GET")) => 404,
                (Some(_), Some("MKCOL")) => 201,
                (Some(code), _) => code,
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {code} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            if Instant::now() > deadline {
                break;
            }
        }
    });
    (port, handle)
}

#[test]
fn a_server_that_is_down_slow_or_full_or_a_folder_from_a_newer_version_is_refused_in_words() {
    runtime().block_on(async {
        let (_dir, a) = profile().await;
        chat(&a, "Safe", &["still here"]).await;
        let at = |port: u16, secs: u64| {
            WebDavRemote::new(
                &format!("http://127.0.0.1:{port}/dav/"),
                None,
                None,
                Duration::from_secs(secs),
            )
            .unwrap()
        };
        let down = free_port();
        let err = sync_once(&a, &at(down, 5), None, "a").await.unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cannot reach the WebDAV server"),
            "{err}"
        );

        let (slow, _slow) = fixed_server(None);
        let started = Instant::now();
        let err = sync_once(&a, &at(slow, 1), None, "a").await.unwrap_err();
        assert!(
            err.to_string().contains("did not answer within 1 s"),
            "{err}"
        );
        assert!(started.elapsed() < Duration::from_secs(15));

        let (full, _full) = fixed_server(Some(507));
        let err = sync_once(&a, &at(full, 5), None, "a").await.unwrap_err();
        assert!(err.to_string().contains("out of space"), "{err}");

        let dav = WebDav::start();
        let err = sync_once(&a, &Cut::after(&dav.remote(), 0), None, "a")
            .await
            .unwrap_err();
        assert!(err.to_string().contains("connection reset"));
        let remote = dav.remote();
        remote.mkdir("").await.unwrap();
        remote
            .put(
                "format.json",
                br#"{"format":"switchboard.sync","version":7}"#.to_vec(),
            )
            .await
            .unwrap();
        let err = sync_once(&a, &remote, None, "a").await.unwrap_err();
        assert!(
            err.to_string().contains("newer Switchboard (sync format 7"),
            "{err}"
        );
        remote
            .put("format.json", b"<html>not ours</html>".to_vec())
            .await
            .unwrap();
        let err = sync_once(&a, &remote, None, "a").await.unwrap_err();
        assert!(
            err.to_string().contains("not a Switchboard sync file"),
            "{err}"
        );
        assert_eq!(
            texts(
                &a,
                &a.list_conversations(&PageRequest::first(5), &Default::default())
                    .await
                    .unwrap()
                    .items[0]
                    .id
            )
            .await,
            ["still here"]
        );
        std::fs::remove_file(dav.served("format.json")).unwrap();
        let sent = sync_once(&a, &remote, None, "a").await.unwrap();
        assert_eq!(
            sent.pushed, 2,
            "the conversation and its message, once the folder is usable"
        );
    });
}

fn ok(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = crate::suite::support_cli::output_within_limit(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("--data-dir")
            .arg(dir)
            .arg("--secrets-file")
            .args(args)
            .env_remove("SWITCHBOARD_DATA_DIR")
            .envs(env.iter().copied()),
    );
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {said}");
    said
}

#[test]
fn the_cli_sets_sync_up_on_two_profiles_and_a_chat_made_on_one_is_listed_on_the_other() {
    let dav = WebDav::start();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let env = [
        ("SWITCHBOARD_SYNC_PASSWORD", PASSWORD),
        ("SWITCHBOARD_SYNC_PASSPHRASE", "correct horse"),
    ];
    let url = dav.url();
    let setup = [
        "sync",
        "setup",
        "--webdav",
        &url,
        "--user",
        USER,
        "--encrypt",
    ];
    ok(
        a.path(),
        &["conversations", "new", "--title", "Made on A"],
        &[],
    );
    let said = ok(a.path(), &setup, &env);
    assert!(
        said.starts_with("sync is set up; 0 records in, 1 out"),
        "{said}"
    );
    let said = ok(b.path(), &setup, &env);
    assert!(said.contains("1 records in"), "{said}");
    assert!(ok(b.path(), &["conversations", "list"], &[]).contains("Made on A"));
    let status = ok(b.path(), &["sync", "status"], &[]);
    assert!(
        status.contains("encrypted") && status.contains("1 batches applied"),
        "{status}"
    );
    // Stored, not asked again: the keychain keeps the password and the passphrase.
    let said = ok(b.path(), &["sync", "now"], &[]);
    assert!(said.starts_with("synced: 0 records in, 0 out"), "{said}");
    // A third profile with the wrong passphrase is refused and not set up.
    let c = tempfile::tempdir().unwrap();
    let (refused, said) = cli(
        c.path(),
        &[
            "--secrets-file",
            "sync",
            "setup",
            "--webdav",
            &url,
            "--user",
            USER,
            "--encrypt",
        ],
    );
    assert!(
        !refused && said.contains("--encrypt needs the passphrase"),
        "{said}"
    );
    let out = crate::suite::support_cli::output_within_limit(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args([
                "--data-dir",
                &c.path().display().to_string(),
                "--secrets-file",
            ])
            .args(setup)
            .env("SWITCHBOARD_SYNC_PASSWORD", PASSWORD)
            .env("SWITCHBOARD_SYNC_PASSPHRASE", "wrong horse"),
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("passphrase does not open"),
        "{said}"
    );
    assert!(ok(c.path(), &["sync", "status"], &[]).contains("not set up"));
    let said = ok(b.path(), &["sync", "off"], &[]);
    assert!(said.contains("sync is off"), "{said}");
    assert!(ok(b.path(), &["sync", "status"], &[]).contains("not set up"));
}

#[test]
fn through_a_synced_folder_an_attached_image_reaches_the_other_profile_and_a_tampered_one_is_refused()
 {
    use sha2::Digest as _;
    use switchboard_engine::store::NewBlob;
    use switchboard_engine::sync::FolderRemote;
    use switchboard_engine::vocab::content::ImageRef;

    runtime().block_on(async {
        let ((_a_dir, a), (_b_dir, b)) = (profile().await, profile().await);
        let folder = tempfile::tempdir().unwrap();
        let data = b"\x89PNG\r\n\x1a\n not really a png, but bytes all the same".to_vec();
        let hash = format!("{:x}", sha2::Sha256::digest(&data));
        let blob = NewBlob {
            hash: hash.clone(),
            mime_type: "image/png".into(),
            width: 2,
            height: 1,
            data: data.clone(),
            thumb: data.clone(),
            thumb_mime: "image/png".into(),
        };
        a.put_blob(&blob).await.unwrap();
        let conv = chat(&a, "With a picture", &[]).await;
        a.append_as_head(NewMessage {
            conversation_id: conv.clone(),
            parent_id: None,
            role: Role::User,
            content: vec![
                ContentPart::text("what is this?"),
                ContentPart::ImageRef(ImageRef {
                    hash: hash.clone(),
                    mime_type: "image/png".into(),
                    width: 2,
                    height: 1,
                    name: Some("dot.png".into()),
                }),
            ],
            status: MessageStatus::Complete,
            model: None,
        })
        .await
        .unwrap();
        let remote = FolderRemote::new(folder.path());
        sync_once(&a, &remote, None, "a").await.unwrap();
        let stored = folder.path().join(format!("blobs/{hash}.blob"));
        assert!(stored.exists());

        // A blob file whose bytes are not its name is refused, and nothing is applied.
        let good = std::fs::read(&stored).unwrap();
        let other = tempfile::tempdir().unwrap();
        let (_c_dir, c) = profile().await;
        copy_dir(folder.path(), other.path());
        let evil = FolderRemote::new(other.path());
        let seal = switchboard_engine::sync::Seal::plain();
        let path = format!("blobs/{hash}.blob");
        let mut file: serde_json::Value =
            serde_json::from_slice(&seal.open(&path, &good).unwrap()).unwrap();
        file["data"] = serde_json::json!("ZXZpbA==");
        std::fs::write(
            other.path().join(&path),
            seal.seal(&path, file.to_string().as_bytes()).unwrap(),
        )
        .unwrap();
        let err = sync_once(&c, &evil, None, "c").await.unwrap_err();
        assert!(err.to_string().contains("do not match its name"), "{err}");
        assert!(c.get_conversation(&conv).await.is_err());

        sync_once(&b, &remote, None, "b").await.unwrap();
        assert_eq!(b.blob(&hash).await.unwrap().data, data);
        assert_eq!(texts(&b, &conv).await, ["what is this?"]);
    });
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn a_batch_with_a_record_the_database_refuses_is_named_and_nothing_of_it_is_applied() {
    use switchboard_engine::sync::{FolderRemote, Seal};

    runtime().block_on(async {
        let (_dir, b) = profile().await;
        let folder = tempfile::tempdir().unwrap();
        let remote = FolderRemote::new(folder.path());
        sync_once(&b, &remote, None, "b").await.unwrap();
        let peer = "e".repeat(32);
        std::fs::create_dir_all(folder.path().join(format!("devices/{peer}"))).unwrap();
        let conversation = serde_json::json!({"id": "c1", "title": "Fine", "created_at": 1, "updated_at": 1,
            "pinned": 0, "archived": 0, "settings": {}});
        let message = serde_json::json!({"id": "m1", "conversation_id": "c1", "role": "hacker",
            "content": [], "status": "complete", "created_at": 1, "updated_at": 1});
        let batch = serde_json::json!({"device": peer, "batch": 1, "records": [
            {"kind": "conversation", "id": "c1", "version": 5, "device": peer, "data": conversation},
            {"kind": "message", "id": "m1", "version": 5, "device": peer, "data": message},
        ]});
        let path = format!("devices/{peer}/0000000001.batch");
        let sealed = Seal::plain().seal(&path, batch.to_string().as_bytes()).unwrap();
        std::fs::write(folder.path().join(&path), sealed).unwrap();
        std::fs::write(
            folder.path().join(format!("devices/{peer}/head.json")),
            br#"{"last": 1, "name": "odd"}"#,
        )
        .unwrap();
        let err = sync_once(&b, &remote, None, "b").await.unwrap_err().to_string();
        assert!(err.contains("0000000001.batch") && err.contains("does not fit"), "{err}");
        assert!(b.get_conversation("c1").await.is_err(), "nothing of the batch is applied");
    });
}
