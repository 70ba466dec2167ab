//! Knowledge bases through the app's doors: the CLI (`knowledge create|search|files|remove`)
//! and a base's built-in MCP server called through the MCP host like any server's tool — real
//! files, a real SQLite file and the real multilingual-e5-small embedder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use switchboard_engine::Engine;
use switchboard_engine::knowledge::KnowledgeEvent;
use switchboard_engine::logging::Redactor;
use switchboard_engine::paths::Paths;
use switchboard_engine::secrets::{KeyringSecrets, Secrets};
use switchboard_engine::vocab::mcp::ResultPart;

/// The embedder GGUF `scripts/deps.sh` made.
pub(super) fn embed_gguf() -> PathBuf {
    let path = std::env::var_os("SWITCHBOARD_TEST_EMBED_GGUF")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            home.join(".cache/switchboard/models/multilingual-e5-small-q4_0.gguf")
        });
    assert!(
        path.is_file(),
        "{} is missing: run `scripts/deps.sh test`",
        path.display()
    );
    path
}

fn switchboard(data_dir: &Path, args: &[&str]) -> Output {
    crate::suite::support_cli::output_within_limit(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("--data-dir")
            .arg(data_dir)
            .args(args)
            .env_remove("SWITCHBOARD_DATA_DIR")
            .env_remove("RUST_LOG")
            .env("SWITCHBOARD_EMBED_GGUF", embed_gguf()),
    )
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A folder of notes: an English manual, a Chinese one, and a file that is not text.
fn notes(root: &Path) {
    std::fs::create_dir_all(root.join("manuals")).unwrap();
    std::fs::write(
        root.join("manuals/dishwasher.md"),
        "# Dishwasher X200\n\n## Error codes\n\nE24 means the drain hose is kinked or the filter is blocked: clean the filter under the lower basket.\n",
    )
    .unwrap();
    std::fs::write(
        root.join("manuals/空调.md"),
        "# 空调说明书\n\n遥控器显示“滤网清洗”时，请取下前面板，用温水冲洗滤网后晾干。\n",
    )
    .unwrap();
    std::fs::write(root.join("photo.txt"), [0u8, 159, 146, 150, 0, 1, 2]).unwrap();
}

#[test]
fn the_cli_creates_a_base_searches_it_lists_its_files_and_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    let (data, root) = (dir.path().join("data"), dir.path().join("notes"));
    notes(&root);
    let root_arg = root.to_string_lossy().into_owned();

    let o = switchboard(&data, &["knowledge", "create", "Home", &root_arg]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        !stderr.contains("llama"),
        "llama.cpp's warnings stay in the log: {stderr}"
    );
    assert_eq!(
        stdout(&o),
        "Home: 2 indexed (2 passages), 0 unchanged, 0 removed, 1 failed\n"
    );

    let o = switchboard(
        &data,
        &[
            "kb",
            "search",
            "Home",
            "my dishwasher shows E24",
            "--count",
            "1",
        ],
    );
    assert!(
        stdout(&o).contains("dishwasher.md:1\n# Dishwasher X200"),
        "{}",
        stdout(&o)
    );
    let o = switchboard(
        &data,
        &[
            "kb",
            "search",
            "Home",
            "空调滤网怎么清洗",
            "--count",
            "1",
            "--json",
        ],
    );
    let found: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        found[0]["path"].as_str().unwrap().ends_with("空调.md"),
        "{found}"
    );
    assert_eq!(found[0]["title"], "空调说明书");

    let o = switchboard(&data, &["kb", "files", "Home"]);
    assert!(stdout(&o).contains("photo.txt\terror:"), "{}", stdout(&o));
    let o = switchboard(&data, &["servers", "list"]);
    assert!(stdout(&o).contains("knowledge-Home"), "{}", stdout(&o));

    let o = switchboard(&data, &["kb", "remove", "Home"]);
    assert!(o.status.success());
    let o = switchboard(&data, &["kb", "search", "Home", "E24"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("there is no knowledge base named \"Home\"")
    );
    let o = switchboard(&data, &["servers", "list"]);
    assert!(!stdout(&o).contains("knowledge-Home"), "{}", stdout(&o));
    assert!(
        root.join("manuals/dishwasher.md").is_file(),
        "the user's files stay"
    );
}

/// An installed app (Tauri's layout: `<prefix>/bin/switchboard`, its resources in
/// `<prefix>/lib/Switchboard/`) embeds with the copy of the embedder it ships when neither the
/// environment nor the profile's models folder names one: an English question finds the Chinese
/// manual, which only vectors can do.
#[test]
fn an_installed_app_embeds_with_the_embedder_it_ships_when_the_profile_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let (data, root) = (dir.path().join("data"), dir.path().join("notes"));
    notes(&root);
    let config: serde_json::Value =
        serde_json::from_str(include_str!("../../tauri.conf.json")).unwrap();
    assert_eq!(config["productName"], switchboard_app::PRODUCT_NAME);
    let prefix = dir.path().join("usr");
    let (bin, models) = (
        prefix.join("bin"),
        prefix
            .join("lib")
            .join(switchboard_app::PRODUCT_NAME)
            .join(switchboard_engine::knowledge::embedder::PACKAGED_MODELS),
    );
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&models).unwrap();
    // A hard link or a copy, not a symbolic link: the binary finds its resources from its own
    // path, and a symbolic link resolves to the build's.
    let installed = bin.join("switchboard");
    let built = Path::new(env!("CARGO_BIN_EXE_switchboard"));
    if std::fs::hard_link(built, &installed).is_err() {
        std::fs::copy(built, &installed).unwrap();
    }
    std::os::unix::fs::symlink(
        embed_gguf(),
        models.join(switchboard_engine::knowledge::embedder::BUILTIN_FILE),
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(&installed)
            .arg("--data-dir")
            .arg(&data)
            .args(args)
            .env_remove("SWITCHBOARD_DATA_DIR")
            .env_remove("SWITCHBOARD_EMBED_GGUF")
            .env_remove("RUST_LOG")
            .output()
            .unwrap()
    };

    let o = run(&["knowledge", "create", "Home", &root.to_string_lossy()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let question = "the air conditioner remote control";
    let o = run(&[
        "kb", "search", "Home", question, "--mode", "vectors", "--count", "1", "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let found: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        found[0]["path"]
            .as_str()
            .unwrap_or_default()
            .ends_with("空调.md"),
        "{found}"
    );
    assert!(
        !data
            .join("models")
            .join(switchboard_engine::knowledge::embedder::BUILTIN_FILE)
            .exists(),
        "the shipped copy is used where it is, not copied into the profile"
    );
}

async fn open(dir: &Path) -> Engine {
    let paths = Paths::under(dir);
    paths.ensure().unwrap();
    std::fs::create_dir_all(paths.models_dir()).unwrap();
    // The engine looks for the embedder in the models folder.
    std::os::unix::fs::symlink(
        embed_gguf(),
        paths.models_dir().join("multilingual-e5-small-q4_0.gguf"),
    )
    .unwrap();
    let redactor = Redactor::default();
    let keychain = Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(keychain, Arc::new(|_: &str| None), redactor.clone());
    Engine::open(paths, redactor, secrets).await.unwrap()
}

#[tokio::test]
async fn a_bases_server_answers_a_tool_call_with_numbered_passages_and_file_sources() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("notes");
    notes(&root);
    let engine = open(&dir.path().join("profile")).await;
    let mut events = engine.knowledge().subscribe();
    engine
        .create_knowledge_base("Manuals", &[root.as_path()])
        .await
        .unwrap();
    // The window indexes a new base in the background, as here.
    engine.knowledge().index_in_background("Manuals");
    tokio::time::timeout(Duration::from_secs(60), async {
        while !matches!(events.recv().await, Ok(KnowledgeEvent::Indexed(_))) {}
    })
    .await
    .expect("indexed within 60 s");

    engine
        .mcp()
        .start_server("knowledge-Manuals")
        .await
        .unwrap();
    let result = engine
        .mcp()
        .call_tool(
            "knowledge-Manuals",
            "search",
            json!({"query": "what does E24 mean", "count": 1}),
            Default::default(),
        )
        .await
        .unwrap();
    let [ResultPart::Text { text }] = result.content.as_slice() else {
        panic!("{result:?}");
    };
    assert!(text.starts_with("Passages from the knowledge base \"Manuals\" for \"what does E24 mean\":\n\n[1] Dishwasher X200 — "), "{text}");
    assert!(text.contains("drain hose is kinked"), "{text}");
    let sources = result.structured.as_ref().unwrap();
    let first = &sources["results"][0];
    assert_eq!(first["n"], 1);
    let path = first["path"].as_str().unwrap();
    assert!(path.ends_with("manuals/dishwasher.md"), "{sources}");
    assert_eq!(first["url"], format!("file://{path}"));

    // A citation opens only a file a knowledge base indexed.
    assert!(engine.knowledge().indexed_file(path).await.is_ok());
    assert!(
        engine
            .knowledge()
            .indexed_file("/etc/passwd")
            .await
            .is_err()
    );
    let photo = root.join("photo.txt").to_string_lossy().into_owned();
    assert!(
        engine.knowledge().indexed_file(&photo).await.is_err(),
        "a file that failed is not opened"
    );
    engine.knowledge().unwatch();
    engine.shutdown().await;
}
