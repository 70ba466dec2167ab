//! MCP Bundles end to end: the small Node server of `tests/fixtures/mcpb/greeter` packed into
//! a `.mcpb` here by npm's real `@anthropic-ai/mcpb` CLI (`mcpb pack`, installed into
//! `tests/fixtures/mcp-node` by `scripts/deps.sh test`), previewed, installed with a
//! `user_config` value, its tool returning that value, then uninstalled leaving nothing; and
//! hostile bundles (zipped here with the `zip` crate, since `mcpb pack` refuses to make them)
//! refused through the host leaving nothing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use secrecy::ExposeSecret;
use switchboard_engine::mcp::BundleInstall;
use switchboard_engine::secrets::{KeyringSecrets, SecretStore};
use switchboard_engine::vocab::mcp::ResultPart;
use switchboard_engine::{Engine, Paths, Redactor, Secrets};
use tokio_util::sync::CancellationToken;
use zip::write::SimpleFileOptions;

/// Zips `dir` (every file, relative paths) into `out`.
fn pack(dir: &Path, out: &Path) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(out).unwrap());
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&d).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            zip.start_file(name, SimpleFileOptions::default()).unwrap();
            zip.write_all(&std::fs::read(&path).unwrap()).unwrap();
        }
    }
    zip.finish().unwrap();
}

/// Packs `dir` into `out` with npm's `mcpb pack` (which validates the manifest first).
pub(super) fn mcpb_pack(dir: &Path, out: &Path) {
    let mcpb = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp-node/node_modules/.bin/mcpb");
    assert!(
        mcpb.is_file(),
        "{} is missing: run scripts/deps.sh test",
        mcpb.display()
    );
    let o = std::process::Command::new(&mcpb)
        .arg("pack")
        .arg(dir)
        .arg(out)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(
        o.status.success() && out.is_file(),
        "mcpb pack failed:\n{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
}

pub(super) fn greeter() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcpb/greeter")
}

async fn engine(dir: &Path) -> (Engine, Arc<KeyringSecrets>) {
    let redactor = Redactor::default();
    let store = Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(store.clone(), Arc::new(|_: &str| None), redactor.clone());
    let engine = Engine::open(Paths::under(dir), redactor, secrets)
        .await
        .unwrap();
    (engine, store)
}

fn text_of(parts: &[ResultPart]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            ResultPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_packed_bundle_previews_installs_answers_with_its_configured_value_and_uninstalls_leaving_nothing()
 {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("greeter.mcpb");
    mcpb_pack(&greeter(), &file);
    let (engine, store) = engine(data.path()).await;
    let mcp = engine.mcp();

    let preview = engine.installer().preview_bundle(&file).unwrap();
    assert_eq!(
        (preview.name.as_str(), preview.version.as_str()),
        ("greeter", "1.0.0")
    );
    assert_eq!(preview.display_name, "Greeter");
    assert_eq!(preview.author, "Switchboard tests");
    assert_eq!(preview.server_type, "node");
    assert_eq!(preview.command_line, "node ${__dirname}/server/index.js");
    assert_eq!(preview.tools[0].name, "greet");
    assert_eq!(preview.prompts[0].name, "welcome");
    assert!(preview.user_config["greeting"].required && preview.user_config["greeting"].sensitive);
    assert_eq!(preview.platforms, ["darwin", "linux", "win32"]);
    assert_eq!(preview.runtimes["node"], ">=18.0.0");
    assert!(!preview.signed);
    assert!(
        !data.path().join("bundles").exists(),
        "a preview writes nothing"
    );

    let missing = engine
        .installer()
        .install_bundle(&file, &BundleInstall::default(), &digest(&file))
        .await
        .unwrap_err();
    assert_eq!(missing.to_string(), "greeting is required (Greeting)");
    let bundles = data.path().join("bundles");
    assert_eq!(
        std::fs::read_dir(&bundles).unwrap().count(),
        0,
        "a refused install leaves nothing"
    );

    let greeting = "Ahoy from the bundle config";
    let request = BundleInstall {
        server_name: None,
        config: [("greeting".to_owned(), greeting.to_owned())].into(),
    };
    let installed = engine
        .installer()
        .install_bundle(&file, &request, &digest(&file))
        .await
        .unwrap();
    assert_eq!(installed.start_error, None);
    let tools: Vec<_> = installed.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tools, ["greet"]);
    let dir = bundles.join("greeter/1.0.0");
    assert!(dir.join("server/index.js").is_file());
    let result = mcp
        .call_tool(
            "greeter",
            "greet",
            serde_json::json!({}),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&result.content), greeting);

    // The sensitive value is in the keychain, not the database.
    let id = installed.record.id.clone();
    let account = format!("mcp-server-values:{id}");
    let kept = store.get(&account).unwrap().unwrap();
    assert!(kept.expose_secret().contains(greeting));
    let db = std::fs::read(data.path().join("switchboard.db")).unwrap();
    assert!(!String::from_utf8_lossy(&db).contains(greeting));

    mcp.stop_server("greeter").await;
    mcp.remove_server("greeter").await.unwrap();
    assert_eq!(
        std::fs::read_dir(&bundles).unwrap().count(),
        0,
        "the bundle's folder is gone"
    );
    assert!(
        store.get(&account).unwrap().is_none(),
        "its secrets are gone"
    );
    assert!(mcp.list_servers().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_hostile_bundle_or_one_for_another_platform_is_refused_through_the_host_leaving_nothing()
{
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let src = work.path().join("src");
    std::fs::create_dir_all(src.join("server")).unwrap();
    let manifest = std::fs::read_to_string(greeter().join("manifest.json")).unwrap();
    std::fs::write(
        src.join("manifest.json"),
        manifest.replace("server/index.js\",\n", "../../etc/passwd\",\n"),
    )
    .unwrap();
    std::fs::write(src.join("server/index.js"), "x").unwrap();
    let file = work.path().join("evil.mcpb");
    pack(&src, &file);
    let (engine, _) = engine(data.path()).await;
    let request = BundleInstall {
        server_name: None,
        config: [("greeting".to_owned(), "hi".to_owned())].into(),
    };
    let error = engine
        .installer()
        .install_bundle(&file, &request, &digest(&file))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.ends_with("was refused: its entry point \"../../etc/passwd\" is outside the bundle"),
        "{error}"
    );
    let bundles = data.path().join("bundles");
    assert_eq!(std::fs::read_dir(&bundles).map_or(0, |d| d.count()), 0);
    assert!(engine.mcp().list_servers().await.unwrap().is_empty());

    // A bundle for another platform is refused before anything is unpacked.
    let manifest = std::fs::read_to_string(greeter().join("manifest.json")).unwrap();
    let other = manifest.replace(
        r#""platforms": ["darwin", "linux", "win32"]"#,
        r#""platforms": ["plan9"]"#,
    );
    std::fs::write(src.join("manifest.json"), other).unwrap();
    std::fs::write(src.join("server/index.js"), "x").unwrap();
    pack(&src, &file);
    let error = engine
        .installer()
        .install_bundle(&file, &request, &digest(&file))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("was refused: it runs on plan9, not on this computer"),
        "{error}"
    );
    assert_eq!(std::fs::read_dir(&bundles).map_or(0, |d| d.count()), 0);
}

fn cli(data: &Path, args: &[&str]) -> std::process::Output {
    crate::suite::support_cli::output_within_limit(
        std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("--data-dir")
            .arg(data)
            .arg("--secrets-file")
            .args(args)
            .env_remove("SWITCHBOARD_DATA_DIR")
            .env_remove("RUST_LOG")
            .stdin(std::process::Stdio::null()),
    )
}

#[test]
fn servers_install_file_mcpb_shows_the_preview_asks_then_installs_and_remove_leaves_nothing() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("greeter.mcpb");
    mcpb_pack(&greeter(), &file);
    let file = file.to_string_lossy().into_owned();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();

    let o = cli(
        data.path(),
        &["servers", "install", &file, "--config", "greeting=Hej hej"],
    );
    assert!(!o.status.success(), "no terminal, no --yes: refused");
    let shown = text(&o.stdout);
    assert!(
        shown.starts_with("bundle Greeter 1.0.0 by Switchboard tests (unsigned)\n"),
        "{shown}"
    );
    assert!(shown.contains("  command: node ${__dirname}/server/index.js\n  tool: greet\n  prompt: welcome\n  config: greeting (string, required, sensitive)\n"), "{shown}");
    assert!(
        text(&o.stderr).contains("confirm with --yes"),
        "{}",
        text(&o.stderr)
    );
    assert!(!data.path().join("bundles/greeter").exists());

    let o = cli(
        data.path(),
        &[
            "servers",
            "install",
            &file,
            "--config",
            "greeting=Hej hej",
            "--yes",
        ],
    );
    assert!(
        o.status.success(),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert!(
        text(&o.stdout).ends_with("installed greeter\n  tool greet\n"),
        "{}",
        text(&o.stdout)
    );
    let o = cli(data.path(), &["servers", "call", "greeter", "greet"]);
    assert!(
        text(&o.stdout).contains("Hej hej"),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );

    let o = cli(data.path(), &["servers", "remove", "greeter"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let left = std::fs::read_dir(data.path().join("bundles"))
        .unwrap()
        .count();
    assert_eq!(left, 0, "the bundle's folder is gone");
}

/// The digest a preview of `file` shows: `sha256:` and the hex of its bytes.
fn digest(file: &std::path::Path) -> String {
    use sha2::Digest;
    let bytes = std::fs::read(file).unwrap();
    format!("sha256:{:x}", sha2::Sha256::digest(bytes))
}
