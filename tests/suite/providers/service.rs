//! Configuring providers end to end: through IPC and the CLI, keys into the secret store (the
//! opt-in file, the real Secret Service when installed) and never into SQLite or responses.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use super::fake::{FakeProvider, Reply};

const TAGS: &str = r#"{"models":[{"name":"qwen2.5:3b","model":"qwen2.5:3b","modified_at":"2025-07-01T10:00:00Z","size":1929912432,"digest":"357c53fb659c","details":{"format":"gguf","family":"qwen2","parameter_size":"3.1B","quantization_level":"Q4_K_M"}},{"name":"llama3.2:latest","model":"llama3.2:latest","modified_at":"2025-06-01T10:00:00Z","size":2019393189,"digest":"a80c4f17acd5","details":{"format":"gguf","family":"llama","parameter_size":"3.2B","quantization_level":"Q4_K_M"}}]}"#;

fn switchboard(dir: &Path, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env("XDG_RUNTIME_DIR", dir)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every byte under `dir` (database, WAL, logs) as lossy text.
fn everything_under(dir: &Path) -> String {
    let mut all = String::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all += &everything_under(&path);
        } else if path.is_file() && path.file_name().is_some_and(|n| n != "secrets.json") {
            // Regular files only: the keyring daemon leaves its sockets in this directory.
            all += &String::from_utf8_lossy(&std::fs::read(&path).unwrap());
        }
    }
    all
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_added_from_the_terminal_keeps_its_key_out_of_the_database_and_logs() {
    let server = FakeProvider::start(vec![
        Reply::ok("application/json", TAGS),
        Reply::ok("application/json", TAGS),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-cli-secret-9f8e7d";
    let url = server.url.clone();
    let d = dir.path().to_owned();
    let run = move |args: Vec<String>, stdin: &'static str| {
        let d = d.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                switchboard(&d, &args, stdin, &[])
            })
            .await
            .unwrap()
        }
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();

    let o = run(
        s(&[
            "--secrets-file",
            "providers",
            "add",
            "local",
            "--preset",
            "ollama",
            "--base-url",
            &url,
            "--api-key-stdin",
        ]),
        "sk-cli-secret-9f8e7d\n",
    )
    .await;
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        format!("added local (ollama) {url} — key ••••8e7d from store\n")
    );
    let o = run(s(&["--secrets-file", "providers", "models", "local"]), "").await;
    assert_eq!(
        text(&o.stdout),
        "qwen2.5:3b\nllama3.2:latest\n",
        "{}",
        text(&o.stderr)
    );
    let o = run(s(&["--secrets-file", "providers", "test", "local"]), "").await;
    assert!(
        text(&o.stdout).starts_with("ok: 2 models in "),
        "{}",
        text(&o.stderr)
    );
    let seen = server.seen();
    assert_eq!(seen[0].path_and_query, "/api/tags");
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {key}").as_str())
    );

    let all = everything_under(dir.path());
    assert!(all.contains("local"), "the provider is in the database");
    assert!(
        !all.contains(key),
        "the key leaked into the database or logs"
    );
    let secrets = dir.path().join("config/secrets.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&secrets).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let o = run(s(&["--secrets-file", "providers", "remove", "local"]), "").await;
    assert!(o.status.success());
    assert!(!std::fs::read_to_string(&secrets).unwrap().contains(key));
}

#[test]
fn without_a_keychain_a_key_is_refused_in_one_line_and_nothing_is_added() {
    let dir = tempfile::tempdir().unwrap();
    let o = switchboard(
        dir.path(),
        &[
            "providers",
            "add",
            "x",
            "--preset",
            "openai",
            "--api-key-stdin",
        ],
        "sk-nope-1234\n",
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("switchboard: no keychain is available ("),
        "{err}"
    );
    assert!(
        err.ends_with("or start Switchboard with --secrets-file to keep keys in a private file\n"),
        "{err}"
    );
    let o = switchboard(dir.path(), &["providers", "list"], "", &[]);
    assert_eq!(
        text(&o.stdout),
        "no providers; add one with `switchboard providers add NAME --preset ollama`\n"
    );
}

#[test]
fn a_key_from_the_environment_is_used_and_shown_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let o = switchboard(
        dir.path(),
        &["providers", "add", "oa", "--preset", "openai"],
        "",
        &[],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = switchboard(
        dir.path(),
        &["providers", "list"],
        "",
        &[("OPENAI_API_KEY", "sk-env-abcd")],
    );
    assert_eq!(
        text(&o.stdout),
        "oa (openai) https://api.openai.com/v1 — key ••••abcd from env\n"
    );
}

#[test]
fn bad_provider_input_gets_specific_errors() {
    let dir = tempfile::tempdir().unwrap();
    let o = switchboard(
        dir.path(),
        &["providers", "add", "x", "--preset", "nope"],
        "",
        &[],
    );
    assert!(
        text(&o.stderr).starts_with(
            "switchboard: unknown preset \"nope\"; known presets: local, openai, anthropic, gemini, ollama"
        ),
        "{}",
        text(&o.stderr)
    );
    let o = switchboard(
        dir.path(),
        &["providers", "add", "x", "--preset", "openai-compatible"],
        "",
        &[],
    );
    assert_eq!(
        text(&o.stderr),
        "switchboard: \"\" is not an http(s) URL; give the provider's base URL, e.g. http://127.0.0.1:11434\n"
    );
    switchboard(
        dir.path(),
        &["providers", "add", "x", "--preset", "ollama"],
        "",
        &[],
    );
    let o = switchboard(
        dir.path(),
        &["providers", "add", "x", "--preset", "ollama"],
        "",
        &[],
    );
    assert_eq!(
        text(&o.stderr),
        "switchboard: a provider named \"x\" already exists\n"
    );
    let o = switchboard(dir.path(), &["providers", "models", "ghost"], "", &[]);
    assert_eq!(
        text(&o.stderr),
        "switchboard: provider ghost does not exist\n"
    );
}

/// The real Secret Service: a private D-Bus session with gnome-keyring-daemon, driven
/// through the CLI.
#[test]
fn keys_go_to_the_real_secret_service_when_one_runs() {
    let have = |bin: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {bin}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !(have("dbus-run-session") && have("gnome-keyring-daemon")) {
        eprintln!(
            "SKIPPED: dbus-run-session or gnome-keyring-daemon is not installed (make test installs them)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_switchboard");
    let d = dir.path().display();
    let script = format!(
        "export XDG_RUNTIME_DIR={d} HOME={d}; \
         printf 'pw' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; \
         printf 'sk-keyring-5678\\n' | {bin} --data-dir {d} providers add k --preset openai --api-key-stdin && \
         {bin} --data-dir {d} providers list"
    );
    let o = Command::new("dbus-run-session")
        .args(["--", "sh", "-c", &script])
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
    assert!(
        out.ends_with("k (openai) https://api.openai.com/v1 — key ••••5678 from store\n"),
        "{out}"
    );
    assert!(!everything_under(dir.path()).contains("sk-keyring-5678"));
}
