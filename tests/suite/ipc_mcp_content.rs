//! The composer's MCP commands over IPC against a real server-everything: resource templates
//! listed, a resource read, prompts expanded (with arguments, with an embedded resource, and
//! refused without a required argument); a message sent with an attached resource is stored
//! with it and reaches a fake OpenAI-compatible provider on 127.0.0.1 as text; the local
//! Ollama probe answers.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use switchboard_engine::Engine;
use tauri::Manager;

use super::ipc::{Harness, harness, invoke};
use super::providers::fake::{FakeProvider, Reply};

const ANSWER: &str = concat!(
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"fake-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Read it.\"},\"finish_reason\":\"stop\"}]}\n\n",
    "data: [DONE]\n\n",
);

fn start_everything(h: &Harness) {
    let js = super::agent::everything_js();
    let server = json!({ "input": {
        "name": "everything",
        "transport": { "type": "stdio", "command": "node", "args": [js, "stdio"] }
    }});
    invoke(h, "add_server", server).unwrap();
    invoke(h, "start_server", json!({ "name": "everything" })).unwrap();
}

fn stop(h: &Harness) {
    let engine = h.window.state::<Engine>().inner().clone();
    tauri::async_runtime::block_on(engine.shutdown());
}

#[test]
fn resource_templates_resources_and_prompts_of_server_everything_are_fetched_over_ipc() {
    let h = harness();
    start_everything(&h);
    let templates = invoke(
        &h,
        "server_resource_templates",
        json!({ "name": "everything" }),
    )
    .unwrap();
    let uris: Vec<&str> = (templates.as_array().unwrap().iter())
        .map(|t| t["uri_template"].as_str().unwrap())
        .collect();
    assert!(
        uris.contains(&"demo://resource/dynamic/text/{resourceId}"),
        "{templates}"
    );
    let read = json!({ "server": "everything", "uri": "demo://resource/dynamic/text/7" });
    let contents = invoke(&h, "read_resource", read).unwrap();
    assert_eq!(contents[0]["uri"], "demo://resource/dynamic/text/7");
    assert_eq!(contents[0]["body"]["kind"], "text");
    assert!(
        contents[0]["body"]["value"].as_str().unwrap().contains('7'),
        "{contents}"
    );

    let args = json!({ "server": "everything", "name": "args-prompt",
                       "args": { "city": "Beijing", "state": "" } });
    let prompt = invoke(&h, "get_prompt", args).unwrap();
    assert_eq!(prompt["messages"][0]["role"], "user");
    let text = prompt["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(text.contains("Beijing"), "{prompt}");

    let args = json!({ "server": "everything", "name": "resource-prompt",
                       "args": { "resourceType": "Text", "resourceId": "3" } });
    let prompt = invoke(&h, "get_prompt", args).unwrap();
    assert_eq!(prompt["messages"][1]["content"]["type"], "resource");
    assert_eq!(
        prompt["messages"][1]["content"]["uri"],
        "demo://resource/dynamic/text/3"
    );

    let missing = json!({ "server": "everything", "name": "args-prompt", "args": {} });
    let err = invoke(&h, "get_prompt", missing).unwrap_err();
    assert_eq!(err["kind"], "internal", "{err}");
    let err = invoke(
        &h,
        "read_resource",
        json!({ "server": "nobody", "uri": "x://y" }),
    )
    .unwrap_err();
    assert_eq!(err["kind"], "not_found");
    stop(&h);
}

#[test]
fn a_message_sent_with_an_attached_resource_stores_it_and_sends_it_to_the_model() {
    let h = harness();
    // The turn first asks the model list for the model's context window, then chats.
    let fake = tauri::async_runtime::block_on(FakeProvider::start(vec![
        Reply::ok("application/json", r#"{"object":"list","data":[]}"#),
        Reply::ok("text/event-stream", ANSWER),
    ]));
    let provider = json!({ "input": {
        "name": "Fake", "preset": "openai-compatible", "baseUrl": format!("{}/v1", fake.url)
    }});
    let added = invoke(&h, "add_provider", provider).unwrap();
    let conv = invoke(
        &h,
        "create_conversation",
        json!({ "input": { "title": "notes" } }),
    )
    .unwrap();
    let id = conv["id"].as_str().unwrap().to_owned();
    let patch = json!({ "providerId": added["provider"]["id"], "model": "fake-1" });
    invoke(
        &h,
        "update_conversation",
        json!({ "id": id, "patch": patch }),
    )
    .unwrap();
    let attachment = json!({
        "server": "docs", "uri": "file:///notes.md", "name": "notes.md",
        "mimeType": "text/markdown", "body": { "kind": "text", "value": "# Plan\nship it" }
    });
    let sent = invoke(
        &h,
        "send_message",
        json!({ "conversationId": id, "text": "summarize", "attachments": [attachment],
                "onEvent": "__CHANNEL__:9" }),
    );
    assert_eq!(sent, Ok(Value::Null));
    let deadline = Instant::now() + Duration::from_secs(20);
    let messages = loop {
        let messages =
            invoke(&h, "conversation_messages", json!({ "conversationId": id })).unwrap();
        let done = messages.as_array().is_some_and(|m| m.len() == 2)
            && messages[1]["status"] != "streaming";
        if done {
            break messages;
        }
        assert!(Instant::now() < deadline, "no answer: {messages}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut resource = attachment.clone();
    resource["type"] = json!("resource");
    assert_eq!(
        messages[0]["content"],
        json!([{ "type": "text", "text": "summarize" }, resource])
    );
    assert_eq!(messages[1]["status"], "complete", "{messages}");
    assert_eq!(messages[1]["content"][0]["text"], "Read it.");
    let seen = fake.seen();
    assert_eq!(seen.len(), 2);
    assert!(seen[0].path_and_query.ends_with("/models"), "{:?}", seen[0]);
    let user = seen[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    assert!(user.contains("summarize"), "{user}");
    assert!(
        user.contains(
            r#"<resource server=\"docs\" uri=\"file:///notes.md\" name=\"notes.md\" mimeType=\"text/markdown\">\n# Plan\nship it\n</resource>"#
        ),
        "{user}"
    );
}

#[test]
fn the_local_ollama_probe_answers_over_ipc_with_nothing_or_ollamas_models() {
    let h = harness();
    let found = invoke(&h, "detect_ollama", json!({})).unwrap();
    match found {
        Value::Null => {}
        Value::Object(o) => {
            assert_eq!(o["baseUrl"], "http://127.0.0.1:11434");
            assert!(o["models"].is_array());
        }
        other => panic!("unexpected answer {other}"),
    }
}
