//! The IPC edits the settings screens make: replacing a server's configuration and a
//! provider's model settings.

use serde_json::{Value, json};
use switchboard_engine::Engine;
use tauri::Manager;

use super::ipc::{Harness, harness, invoke};

/// Stops the servers the window's saves started (the mock runtime outlives the test).
fn shut_down(h: &Harness) {
    let engine = h.window.state::<Engine>().inner().clone();
    tauri::async_runtime::block_on(engine.shutdown());
}

fn stdio(name: &str, command: &str) -> Value {
    json!({ "input": {
        "name": name,
        "transport": {"type": "stdio", "command": command, "args": []},
    }})
}

#[test]
fn a_server_is_edited_in_place_keeping_its_id() {
    let h = harness();
    let added = invoke(&h, "add_server", stdio("time", "uvx")).unwrap();
    invoke(&h, "add_server", stdio("files", "npx")).unwrap();
    let input = json!({
        "name": "clock",
        "transport": {"type": "sse", "url": "http://127.0.0.1:3001/sse",
                      "headers": {"Authorization": "Bearer t0ken-for-the-clock"}},
        "enabled": false, "startupTimeoutMs": 5000, "callTimeoutMs": 9000,
        "autoStart": false, "approval": "deny"
    });

    let updated = invoke(
        &h,
        "update_server",
        json!({ "id": added["id"], "input": input }),
    )
    .unwrap();

    assert_eq!(updated["id"], added["id"]);
    // The header's value comes back masked: it went to the keychain.
    let mut masked = input.clone();
    masked["transport"]["headers"]["Authorization"] = json!("••••••••");
    assert_eq!(updated["config"], masked);
    let listed = invoke(&h, "list_servers", json!({})).unwrap();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["config"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["clock", "files"]);
    shut_down(&h);
}

#[test]
fn a_server_edit_that_takes_another_name_or_breaks_the_config_is_refused() {
    let h = harness();
    let time = invoke(&h, "add_server", stdio("time", "uvx")).unwrap();
    invoke(&h, "add_server", stdio("files", "npx")).unwrap();

    let taken = stdio("files", "uvx")["input"].clone();
    let err = invoke(
        &h,
        "update_server",
        json!({ "id": time["id"], "input": taken }),
    )
    .unwrap_err();
    assert_eq!(
        err,
        json!({"kind": "invalid_input", "message": "a server named \"files\" already exists"})
    );

    let empty = stdio("time", " ")["input"].clone();
    let err = invoke(&h, "update_server", json!({ "id": "time", "input": empty })).unwrap_err();
    assert_eq!(err["kind"], "invalid_input", "{err}");
    assert!(
        err["message"].as_str().unwrap().contains("server \"time\""),
        "{err}"
    );

    let err = invoke(
        &h,
        "update_server",
        json!({ "id": "nope", "input": stdio("nope", "x")["input"] }),
    )
    .unwrap_err();
    assert_eq!(err["kind"], "not_found", "{err}");
    let listed = invoke(&h, "list_servers", json!({})).unwrap();
    assert_eq!(listed[1]["config"]["transport"]["command"], "uvx");
    shut_down(&h);
}

#[test]
fn provider_settings_are_saved_but_the_preset_and_key_variable_stay() {
    let h = harness();
    let input = json!({ "input": { "name": "OpenAI", "preset": "openai" } });
    let added = invoke(&h, "add_provider", input).unwrap();
    let settings = json!({
        "preset": "ollama",
        "keyEnv": "HOME",
        "defaultModel": "gpt-5-mini",
        "toolModes": {"gpt-5-mini": "native", "o3": "prompt"},
        "strictTools": false
    });

    let view = invoke(
        &h,
        "set_provider_settings",
        json!({ "id": added["provider"]["id"], "settings": settings }),
    )
    .unwrap();

    let expected = json!({
        "preset": "openai",
        "keyEnv": "OPENAI_API_KEY",
        "defaultModel": "gpt-5-mini",
        "toolModes": {"gpt-5-mini": "native", "o3": "prompt"},
        "strictTools": false
    });
    assert_eq!(view["provider"]["settings"], expected);
    let listed = invoke(&h, "list_providers", json!({})).unwrap();
    assert_eq!(listed[0]["provider"]["settings"], expected);

    let bad = json!({ "id": "OpenAI", "settings": {"toolModes": {"x": "sometimes"}} });
    let err = invoke(&h, "set_provider_settings", bad).unwrap_err();
    assert!(err.to_string().contains("sometimes"), "{err}");
}
