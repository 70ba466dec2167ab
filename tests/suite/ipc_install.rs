//! The install commands through Tauri's mock runtime: an install link previewed (the exact
//! command, nothing saved; a hostile link refused) and installed only when asked, its server
//! started with its tools; and a bundle packed by npm's `mcpb pack` previewed and installed
//! with its `user_config` value, its tool answering with it.

use std::path::Path;

use serde_json::{Value, json};

use super::bundles::{greeter, mcpb_pack};
use super::ipc::{harness, invoke};

fn everything_js() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything")
        .join("dist/index.js");
    assert!(path.exists(), "run scripts/deps.sh test");
    path.to_string_lossy().into_owned()
}

fn link(name: &str, config: &Value) -> String {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(config.to_string());
    format!("switchboard://mcp/install?name={name}&config={encoded}")
}

fn names(value: &Value) -> Vec<String> {
    (value.as_array().unwrap().iter())
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn an_install_link_is_previewed_saving_nothing_and_installed_only_when_asked() {
    let h = harness();
    let config = json!({ "command": "node", "args": [everything_js(), "stdio"],
                         "env": { "EVERYTHING_TOKEN": "tok-123" } });
    let text = link("linked", &config);
    let shown = invoke(&h, "preview_install_link", json!({ "link": text })).unwrap();
    assert_eq!(
        shown,
        json!({ "link": text, "name": "linked", "transport": "stdio", "command": "node",
                "args": [everything_js(), "stdio"], "env": { "EVERYTHING_TOKEN": "tok-123" },
                "headers": {}, "approval": "ask", "allowPrivate": false, "inheritEnv": [],
                "riskyEnv": [] })
    );
    assert_eq!(
        invoke(&h, "list_servers", json!({})).unwrap(),
        json!([]),
        "a preview saves nothing"
    );
    let hostile = invoke(
        &h,
        "preview_install_link",
        json!({ "link": "switchboard://mcp/install?name=x&config=%%%" }),
    )
    .unwrap_err();
    assert_eq!(hostile["kind"], "invalid_input");
    assert_eq!(
        hostile["message"],
        "the install link was refused: its config is not base64"
    );

    let installed = invoke(&h, "install_from_link", json!({ "link": text })).unwrap();
    assert_eq!(installed["startError"], Value::Null);
    assert!(names(&installed["tools"]).contains(&"echo".to_owned()));
    assert_eq!(
        installed["record"]["config"]["transport"]["env"],
        json!({ "EVERYTHING_TOKEN": "••••••••" }),
        "the value is masked for the window"
    );
    let again = invoke(&h, "preview_install_link", json!({ "link": text })).unwrap_err();
    assert!(
        again["message"]
            .as_str()
            .unwrap()
            .contains("is already configured"),
        "{again}"
    );
    invoke(&h, "stop_server", json!({ "name": "linked" })).unwrap();
}

#[test]
fn a_bundle_packed_by_mcpb_is_previewed_and_installed_over_ipc_answering_with_its_value() {
    let h = harness();
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("greeter.mcpb");
    mcpb_pack(&greeter(), &file);
    let path = file.to_string_lossy().into_owned();
    let preview = invoke(&h, "preview_bundle", json!({ "path": path })).unwrap();
    assert_eq!(
        (
            &preview["displayName"],
            &preview["version"],
            &preview["signed"]
        ),
        (&json!("Greeter"), &json!("1.0.0"), &json!(false))
    );
    assert_eq!(preview["userConfig"]["greeting"]["sensitive"], true);
    let request = json!({ "config": { "greeting": "Hello over IPC" } });
    let installed = invoke(
        &h,
        "install_bundle",
        json!({ "path": path, "request": request, "digest": preview["digest"] }),
    )
    .unwrap();
    assert_eq!(names(&installed["tools"]), ["greet"]);
    let args = json!({ "server": "greeter", "tool": "greet", "args": {} });
    let result = invoke(&h, "call_tool", args).unwrap();
    assert_eq!(result["content"][0]["text"], "Hello over IPC");
    invoke(&h, "stop_server", json!({ "name": "greeter" })).unwrap();
}
