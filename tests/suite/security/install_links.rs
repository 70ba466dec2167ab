//! Security, second pass: install links and every install confirmation: what will run is what is shown (issue 31, points 1 and 7).
//!
//! Through the app's IPC commands (Tauri's mock runtime over a real SQLite file) and the real
//! `switchboard` binary: a link may give only `type`, `command`, `args`, `env`, `url` and
//! `headers` (a grant is refused naming its key, and nothing is saved); its env values are in
//! the preview, and a loader-style variable (`NODE_OPTIONS`) it sets keeps it from being
//! installed until the caller passes the user's acceptance — shown by a real node process that
//! runs the preloaded script only then; bidi and zero-width characters in a command, an argument
//! or an env name, and env names that are not identifiers, are refused from a link, an import,
//! the form's command and the CLI; `inheritEnv` refuses key, token and password names.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};
use switchboard_engine::vocab::server::{ServerConfig, Transport};

use crate::suite::ipc::{Harness, harness, invoke};

fn link(name: &str, config: &Value) -> String {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(config.to_string());
    format!("switchboard://mcp/install?name={name}&config={encoded}")
}

fn message(error: &Value) -> String {
    error["message"].as_str().unwrap_or_default().to_owned()
}

fn servers(h: &Harness) -> Value {
    invoke(h, "list_servers", json!({})).unwrap()
}

fn switchboard(data: &Path, args: &[&str]) -> Output {
    crate::suite::support_cli::switchboard(data, args)
}

fn stdio(name: &str, command: &str, args: &[&str], env: &[(&str, &str)]) -> ServerConfig {
    ServerConfig::new(
        name,
        Transport::Stdio {
            command: command.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            cwd: None,
        },
    )
}

#[test]
fn a_link_carrying_a_grant_is_refused_naming_the_key_and_no_server_is_saved() {
    let h = harness();
    for (key, value) in [
        ("approval", json!("allow")),
        ("allowPrivate", json!(true)),
        ("inheritEnv", json!(["HOME"])),
        ("cwd", json!("/tmp")),
        ("autoStart", json!(false)),
        ("oauth", json!({ "clientId": "x" })),
    ] {
        let mut config = json!({ "command": "echo", "args": ["hi"] });
        config[key] = value;
        let text = link("granted", &config);
        let expected = format!(
            "the install link was refused: it sets {key:?}, which a link may not; it may give \
             only type, command, args, env, url, headers"
        );
        let shown = invoke(&h, "preview_install_link", json!({ "link": text })).unwrap_err();
        assert_eq!(message(&shown), expected);
        let installed = invoke(&h, "install_from_link", json!({ "link": text })).unwrap_err();
        assert_eq!(message(&installed), expected);
    }
    assert_eq!(servers(&h), json!([]), "no server entry appears");
}

#[test]
fn a_link_setting_node_options_shows_its_value_and_runs_nothing_until_it_is_accepted() {
    let h = harness();
    let work = tempfile::tempdir().unwrap();
    let marker = work.path().join("preloaded-ran");
    let preload = work.path().join("preload.js");
    std::fs::write(
        &preload,
        format!(
            "require('fs').writeFileSync({:?}, 'ran'); process.exit(0);",
            marker.to_string_lossy()
        ),
    )
    .unwrap();
    let options = format!("--require={}", preload.display());
    let config = json!({ "command": "node", "args": ["-e", "setInterval(() => {}, 1000)"],
                         "env": { "NODE_OPTIONS": options, "MODE": "fast" } });
    let text = link("preloaded", &config);

    let shown = invoke(&h, "preview_install_link", json!({ "link": text })).unwrap();
    assert_eq!(
        shown["env"],
        json!({ "NODE_OPTIONS": options, "MODE": "fast" })
    );
    assert_eq!(shown["riskyEnv"], json!(["NODE_OPTIONS"]));
    assert_eq!(
        (
            &shown["approval"],
            &shown["allowPrivate"],
            &shown["inheritEnv"]
        ),
        (&json!("ask"), &json!(false), &json!([]))
    );

    for accepted in [json!(null), json!([]), json!(["LD_PRELOAD"])] {
        let refused = invoke(
            &h,
            "install_from_link",
            json!({ "link": text, "acceptedRiskyEnv": accepted }),
        )
        .unwrap_err();
        assert_eq!(
            message(&refused),
            "the install link was refused: it sets NODE_OPTIONS, which can make the server run \
             other code; accept it in the preview first"
        );
    }
    assert_eq!(servers(&h), json!([]), "nothing is saved");
    assert!(!marker.exists(), "nothing ran");

    let installed = invoke(
        &h,
        "install_from_link",
        json!({ "link": text, "acceptedRiskyEnv": ["NODE_OPTIONS"] }),
    )
    .unwrap();
    assert_eq!(installed["record"]["config"]["name"], "preloaded");
    assert!(
        marker.exists(),
        "accepted, the server ran with the variable: {installed}"
    );
}

/// Hostile texts: a bidi override or a zero-width space in a command, an argument or an env name.
const HIDDEN: &[(&str, &str, &str)] = &[
    ("np\u{202e}x", "-y", "MODE"),
    ("npx", "pkg\u{200b}@1", "MODE"),
    ("npx", "-y", "MO\u{202e}DE"),
    ("npx", "-y", "MO\u{200b}DE"),
];

#[test]
fn a_bidi_or_zero_width_character_in_a_command_argument_or_env_name_is_refused_everywhere() {
    let h = harness();
    let data = tempfile::tempdir().unwrap();
    for (command, arg, env) in HIDDEN {
        let entry = json!({ "command": command, "args": [arg], "env": { *env: "1" } });
        let from_link = invoke(
            &h,
            "preview_install_link",
            json!({ "link": link("hidden", &entry) }),
        )
        .unwrap_err();
        assert!(
            message(&from_link).contains("the hidden character U+"),
            "link: {from_link}"
        );
        let doc = json!({ "mcpServers": { "hidden": entry } }).to_string();
        let imported = invoke(
            &h,
            "import_servers",
            json!({ "json": doc, "replace": false }),
        )
        .unwrap_err();
        assert!(
            message(&imported).contains("the hidden character U+"),
            "import: {imported}"
        );
        let form = serde_json::to_value(stdio("hidden", command, &[arg], &[(env, "1")])).unwrap();
        let added = invoke(&h, "add_server", json!({ "input": form })).unwrap_err();
        assert!(
            message(&added).contains("the hidden character U+"),
            "form: {added}"
        );
        let env_arg = format!("{env}=1");
        let cli = switchboard(
            data.path(),
            &[
                "servers",
                "add",
                "hidden",
                "--command",
                command,
                &format!("--arg={arg}"),
                "--env",
                &env_arg,
            ],
        );
        let stderr = String::from_utf8_lossy(&cli.stderr);
        assert!(!cli.status.success(), "the CLI saved it");
        assert!(stderr.contains("the hidden character U+"), "CLI: {stderr}");
    }
    assert_eq!(servers(&h), json!([]));
    let listed = switchboard(data.path(), &["servers", "list", "--json"]);
    assert_eq!(String::from_utf8_lossy(&listed.stdout).trim(), "[]");
}

#[test]
fn an_env_name_holding_an_assignment_or_a_newline_is_refused_from_a_link_an_import_the_form_and_the_cli()
 {
    let h = harness();
    let data = tempfile::tempdir().unwrap();
    for name in ["NODE_OPTIONS=--require=/tmp/x.js", "A\nNODE_OPTIONS", "1A"] {
        let entry = json!({ "command": "node", "env": { name: "1" } });
        let from_link = invoke(
            &h,
            "preview_install_link",
            json!({ "link": link("named", &entry) }),
        )
        .unwrap_err();
        let doc = json!({ "mcpServers": { "named": entry } }).to_string();
        let imported = invoke(
            &h,
            "import_servers",
            json!({ "json": doc, "replace": false }),
        )
        .unwrap_err();
        let form = serde_json::to_value(stdio("named", "node", &[], &[(name, "1")])).unwrap();
        let added = invoke(&h, "add_server", json!({ "input": form })).unwrap_err();
        for refused in [&from_link, &imported, &added] {
            let why = message(refused);
            assert!(
                why.contains("is not a variable name") || why.contains("hidden character U+000A"),
                "{name:?}: {why}"
            );
        }
    }
    let cli = switchboard(
        data.path(),
        &[
            "servers",
            "add",
            "named",
            "--command",
            "node",
            "--env",
            "A\nNODE_OPTIONS=1",
        ],
    );
    assert!(!cli.status.success());
    assert!(String::from_utf8_lossy(&cli.stderr).contains("hidden character U+000A"));
    assert_eq!(servers(&h), json!([]));
}

#[test]
fn inherit_env_refuses_a_custom_providers_key_variable_and_any_token_or_password_name() {
    let h = harness();
    let presets = switchboard_engine::provider::presets::presets()
        .iter()
        .filter_map(|p| p.key_env.clone());
    let names: Vec<String> = ["MY_LLM_KEY", "HF_TOKEN", "DB_PASSWORD"]
        .into_iter()
        .map(str::to_owned)
        .chain(presets)
        .collect();
    assert!(
        names.len() > 6,
        "the presets' key variables are checked too: {names:?}"
    );
    for name in &names {
        let mut config = stdio("inherits", "node", &[], &[]);
        config.inherit_env = vec!["LANG".to_owned(), name.clone()];
        let input = serde_json::to_value(config).unwrap();
        let refused = invoke(&h, "add_server", json!({ "input": input })).unwrap_err();
        assert!(
            message(&refused).contains(&format!(
                "{name:?} looks like a provider key, token, secret or password"
            )),
            "{refused}"
        );
    }
    assert_eq!(servers(&h), json!([]));
}
