//! A stdio server's environment, end to end through the CLI binary: the app runs with provider
//! keys and other variables set (on the child CLI process only: no test touches its own
//! environment), and server-everything's `get-env` tool reports what the server received.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use crate::suite::agent::everything_js;

/// Runs the CLI on `data_dir` with the given extra environment variables.
fn switchboard(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    crate::suite::support_cli::output_within_limit(
        Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("--data-dir")
            .arg(data_dir)
            // No keychain here: a server's env values go to the private secrets file.
            .arg("--secrets-file")
            .args(args)
            .env_remove("SWITCHBOARD_DATA_DIR")
            .env_remove("RUST_LOG")
            .envs(env.iter().copied()),
    )
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Imports one server `envy` (server-everything over stdio) from `entry`'s extra fields.
fn import_envy(data_dir: &Path, extra: serde_json::Value) {
    let mut entry = serde_json::json!({"command": "node", "args": [everything_js(), "stdio"]});
    let (Some(entry_obj), Some(extra)) = (entry.as_object_mut(), extra.as_object()) else {
        unreachable!("both are objects");
    };
    entry_obj.extend(extra.clone());
    let doc = serde_json::json!({"mcpServers": {"envy": entry}});
    let file = data_dir.join("import.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let o = switchboard(
        data_dir,
        &["servers", "import", file.to_str().unwrap()],
        &[],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// The environment `envy` reports, with the app started with `app_env`.
fn server_env(data_dir: &Path, app_env: &[(&str, &str)]) -> BTreeMap<String, String> {
    let o = switchboard(data_dir, &["servers", "call", "envy", "get-env"], app_env);
    assert!(o.status.success(), "{}", text(&o.stderr));
    serde_json::from_str(&text(&o.stdout)).unwrap()
}

const APP_ENV: &[(&str, &str)] = &[
    ("OPENAI_API_KEY", "sk-security-suite-openai"),
    ("ANTHROPIC_API_KEY", "sk-security-suite-anthropic"),
    ("DASHSCOPE_API_KEY", "sk-security-suite-dashscope"),
    ("AWS_SECRET_ACCESS_KEY", "aws-security-suite"),
    ("SWITCHBOARD_SUITE_SHARED", "shared-on-request"),
];

#[test]
fn a_stdio_server_receives_only_the_allow_list_and_its_own_env_while_the_app_has_provider_keys() {
    let data = tempfile::tempdir().unwrap();
    import_envy(
        data.path(),
        serde_json::json!({"env": {"OWN_SETTING": "mine"}}),
    );
    let env = server_env(data.path(), APP_ENV);
    let allowed = [
        "HOME",
        "LOGNAME",
        "PATH",
        "SHELL",
        "TERM",
        "USER",
        "OWN_SETTING",
    ];
    let extra: Vec<&String> = env
        .keys()
        .filter(|k| !allowed.contains(&k.as_str()))
        .collect();
    assert!(extra.is_empty(), "the server also got {extra:?}");
    assert_eq!(env.get("OWN_SETTING").map(String::as_str), Some("mine"));
    assert!(env.contains_key("PATH"), "{env:?}");
    let leaked: Vec<_> = APP_ENV
        .iter()
        .filter(|(_, v)| env.values().any(|got| got.contains(v)))
        .collect();
    assert!(leaked.is_empty(), "{leaked:?} reached the server");
}

#[test]
fn a_package_mirror_an_npm_registry_and_a_proxy_reach_servers_unless_their_own_env_sets_them() {
    let data = tempfile::tempdir().unwrap();
    import_envy(
        data.path(),
        serde_json::json!({"env": {"npm_config_registry": "https://own.example"}}),
    );
    let set = |args: &[&str]| {
        let o = switchboard(data.path(), args, &[]);
        assert!(o.status.success(), "{}", text(&o.stderr));
    };
    set(&["runtimes", "index", "https://mirror.example/pypi/"]);
    set(&["runtimes", "npm-registry", "https://npm.example"]);
    set(&["runtimes", "proxy", "http://proxy.example:3128"]);
    let env = server_env(data.path(), &[]);
    let got = |name: &str| env.get(name).map(String::as_str);
    assert_eq!(
        got("UV_DEFAULT_INDEX"),
        Some("https://mirror.example/pypi/simple")
    );
    assert_eq!(
        got("PIP_INDEX_URL"),
        Some("https://mirror.example/pypi/simple")
    );
    assert_eq!(
        got("npm_config_registry"),
        Some("https://own.example"),
        "its own wins"
    );
    assert_eq!(got("HTTPS_PROXY"), Some("http://proxy.example:3128"));
    assert_eq!(got("http_proxy"), Some("http://proxy.example:3128"));

    set(&["runtimes", "index", "--default"]);
    set(&["runtimes", "proxy", "--none"]);
    let env = server_env(data.path(), &[]);
    assert!(
        !env.contains_key("UV_DEFAULT_INDEX") && !env.contains_key("HTTPS_PROXY"),
        "{env:?}"
    );
}

#[test]
fn a_variable_named_in_inherit_env_is_passed_on_and_survives_export() {
    let data = tempfile::tempdir().unwrap();
    import_envy(
        data.path(),
        serde_json::json!({"inheritEnv": ["SWITCHBOARD_SUITE_SHARED"]}),
    );
    let env = server_env(data.path(), APP_ENV);
    assert_eq!(
        env.get("SWITCHBOARD_SUITE_SHARED").map(String::as_str),
        Some("shared-on-request")
    );
    assert!(!env.contains_key("OPENAI_API_KEY"), "{env:?}");

    let o = switchboard(data.path(), &["servers", "export"], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        doc["mcpServers"]["envy"]["inheritEnv"],
        serde_json::json!(["SWITCHBOARD_SUITE_SHARED"])
    );
}

#[test]
fn an_inherit_env_naming_a_provider_key_is_refused_on_import() {
    let data = tempfile::tempdir().unwrap();
    let doc = serde_json::json!({"mcpServers": {"envy": {
        "command": "node", "inheritEnv": ["OPENAI_API_KEY"]
    }}});
    let file = data.path().join("import.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let o = switchboard(
        data.path(),
        &["servers", "import", file.to_str().unwrap()],
        &[],
    );
    assert!(!o.status.success(), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("inheritEnv"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn servers_add_inherit_env_passes_a_named_variable_and_refuses_a_provider_key() {
    let data = tempfile::tempdir().unwrap();
    let js = everything_js();
    let add = |name: &str, inherit: &str| {
        let args = [
            "servers",
            "add",
            name,
            "--command",
            "node",
            "--arg",
            &js,
            "--arg",
            "stdio",
            "--inherit-env",
            inherit,
        ];
        switchboard(data.path(), &args, &[])
    };
    let o = add("envy", "SWITCHBOARD_SUITE_SHARED");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let env = server_env(data.path(), APP_ENV);
    assert_eq!(
        env.get("SWITCHBOARD_SUITE_SHARED").map(String::as_str),
        Some("shared-on-request")
    );
    let o = add("leaky", "OPENAI_API_KEY");
    assert!(!o.status.success(), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("provider key"),
        "{}",
        text(&o.stderr)
    );
}
