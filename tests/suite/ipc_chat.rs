//! The chat commands over IPC (mock runtime, real SQLite): a turn started by `send_message`
//! stores the user's message and ends (here with a "no provider" error, sent on the channel),
//! the branch, settings and search commands read what it stored.

use std::time::Duration;

use serde_json::{Value, json};

use super::ipc::{harness, invoke};

#[test]
fn send_message_starts_a_turn_whose_messages_are_read_back_searched_and_configured() {
    let h = harness();
    let conv = invoke(&h, "create_conversation", json!({ "input": {} })).unwrap();
    let id = conv["id"].as_str().unwrap().to_owned();
    let sent = invoke(
        &h,
        "send_message",
        json!({ "conversationId": id, "text": "北京天气怎么样", "onEvent": "__CHANNEL__:7" }),
    );
    assert_eq!(sent, Ok(Value::Null));
    let mut messages = Value::Null;
    for _ in 0..100 {
        messages = invoke(&h, "conversation_messages", json!({ "conversationId": id })).unwrap();
        let running = invoke(&h, "stop_generation", json!({ "conversationId": id })).unwrap();
        if messages.as_array().is_some_and(|m| !m.is_empty()) && running == json!(false) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[0]["content"][0]["text"], "北京天气怎么样");

    let hits = invoke(
        &h,
        "search_messages",
        json!({ "query": "天气", "page": {} }),
    )
    .unwrap();
    assert_eq!(hits["items"][0]["conversationId"], id.as_str());
    assert_eq!(
        hits["items"][0]["snippet"][1],
        json!({ "text": "天气", "hit": true })
    );

    let patch = json!({ "model": "qwen3", "settings": { "servers": ["time"], "maxSteps": 5 } });
    let updated = invoke(
        &h,
        "update_conversation",
        json!({ "id": id, "patch": patch }),
    )
    .unwrap();
    assert_eq!(updated["model"], "qwen3");
    assert_eq!(updated["settings"]["maxSteps"], 5);

    let siblings = invoke(
        &h,
        "message_siblings",
        json!({ "messageId": messages[0]["id"] }),
    )
    .unwrap();
    assert_eq!(siblings, json!([messages[0]["id"]]));
    let answered = invoke(
        &h,
        "answer_approval",
        json!({ "approvalId": "nope", "answer": "deny" }),
    );
    assert_eq!(answered, Ok(json!(false)));
    let bad = invoke(
        &h,
        "answer_approval",
        json!({ "approvalId": "x", "answer": "maybe" }),
    );
    assert!(bad.is_err());
}

#[test]
fn open_external_refuses_anything_but_web_and_mail_links() {
    let h = harness();
    for url in [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "ipc://localhost/x",
        "not a url",
    ] {
        let err = invoke(&h, "open_external", json!({ "url": url })).unwrap_err();
        assert_eq!(err["kind"], "invalid_input", "{url}: {err}");
    }
    // The mock runtime has no opener plugin: a valid link reaches it and says so.
    let err = invoke(
        &h,
        "open_external",
        json!({ "url": "https://example.com/a" }),
    )
    .unwrap_err();
    assert_eq!(err["message"], "no opener is available to open links");
}

#[test]
fn an_artifact_is_saved_only_as_an_absolute_html_svg_mmd_or_txt_file_of_at_most_8_mib() {
    let h = harness();
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("chart.svg");
    let save = |path: &str, contents: &str| {
        invoke(
            &h,
            "save_artifact",
            json!({ "path": path, "contents": contents }),
        )
    };
    assert_eq!(save(good.to_str().unwrap(), "<svg/>"), Ok(Value::Null));
    assert_eq!(std::fs::read_to_string(&good).unwrap(), "<svg/>");
    let script = dir.path().join("run.sh");
    for path in [
        "chart.svg",
        script.to_str().unwrap(),
        dir.path().to_str().unwrap(),
    ] {
        let err = save(path, "x").unwrap_err();
        assert_eq!(err["kind"], "invalid_input", "{path}: {err}");
    }
    assert!(!script.exists());
    let huge = "x".repeat((8 << 20) + 1);
    let err = save(good.to_str().unwrap(), &huge).unwrap_err();
    assert_eq!(err["kind"], "invalid_input");
    assert_eq!(std::fs::read_to_string(&good).unwrap(), "<svg/>");
}

#[test]
fn tool_policies_are_set_read_back_and_cleared_over_ipc() {
    let h = harness();
    let doc = r#"{"mcpServers": {"clock": {"builtin": "time"}}}"#;
    invoke(
        &h,
        "import_servers",
        json!({ "json": doc, "replace": false }),
    )
    .unwrap();
    let set = json!({ "server": "clock", "tool": "get_current_time", "policy": "allow" });
    assert_eq!(invoke(&h, "set_tool_policy", set), Ok(Value::Null));
    let set = json!({ "server": "clock", "tool": "convert_time", "policy": "deny" });
    invoke(&h, "set_tool_policy", set).unwrap();
    let read = invoke(&h, "tool_policies", json!({ "server": "clock" })).unwrap();
    assert_eq!(
        read,
        json!({ "convert_time": "deny", "get_current_time": "allow" })
    );
    let clear = json!({ "server": "clock", "tool": "convert_time", "policy": null });
    invoke(&h, "set_tool_policy", clear).unwrap();
    let read = invoke(&h, "tool_policies", json!({ "server": "clock" })).unwrap();
    assert_eq!(read, json!({ "get_current_time": "allow" }));
    let err = invoke(&h, "tool_policies", json!({ "server": "nope" })).unwrap_err();
    assert_eq!(err["kind"], "not_found");
}

#[test]
fn cancelling_the_task_of_a_call_that_never_became_one_is_not_found() {
    let h = harness();
    let err = invoke(&h, "cancel_task", json!({ "callId": "call_nobody" })).unwrap_err();
    assert_eq!(
        err,
        json!({ "kind": "not_found", "message": "task call_nobody does not exist" })
    );
}
