//! The IPC commands over running MCP servers and the client capabilities, through Tauri's mock
//! runtime: a built-in server added, started, browsed, called and stopped; roots and the
//! sampling model set; and a real server-everything sampling request approved over IPC and
//! answered by a fake OpenAI-compatible provider on 127.0.0.1.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_engine::Engine;
use switchboard_engine::mcp::InteractionEvent;
use tauri::Manager;

use super::ipc::{Harness, harness, invoke};
use super::providers::fake::{FakeProvider, Reply};

fn engine(h: &Harness) -> Engine {
    h.window.state::<Engine>().inner().clone()
}

fn everything_js() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp-node/node_modules/@modelcontextprotocol/server-everything")
        .join("dist/index.js");
    assert!(
        path.exists(),
        "run `npm ci --prefix tests/fixtures/mcp-node`"
    );
    path.to_string_lossy().into_owned()
}

/// The texts of a tool result's text parts.
fn texts(result: &Value) -> String {
    let parts = result["content"].as_array().unwrap();
    let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
    texts.join("\n")
}

#[test]
fn a_builtin_server_is_added_started_browsed_called_and_stopped_over_ipc() {
    let h = harness();
    let input = json!({ "input": {
        "name": "clock",
        "transport": { "type": "builtin", "server": "time" },
        "autoStart": false
    }});
    let added = invoke(&h, "add_server", input).unwrap();
    assert_eq!(
        added["config"]["transport"],
        json!({ "type": "builtin", "server": "time", "allowPrivate": false, "folders": [], "env": {}, "settings": {} })
    );
    assert_eq!(
        invoke(&h, "start_server", json!({ "name": "clock" })).unwrap(),
        Value::Null
    );
    let states = invoke(&h, "server_states", json!({})).unwrap();
    assert_eq!(states[0]["name"], "clock");
    assert_eq!(states[0]["state"]["type"], "ready");
    assert_eq!(states[0]["state"]["tools"], 2);
    let tools = invoke(&h, "server_tools", json!({ "name": "clock" })).unwrap();
    let names: Vec<&str> = (tools.as_array().unwrap().iter())
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["convert_time", "get_current_time"]);
    let args = json!({ "server": "clock", "tool": "get_current_time",
                       "args": { "timezone": "Asia/Shanghai" } });
    let result = invoke(&h, "call_tool", args).unwrap();
    assert!(texts(&result).contains("Asia/Shanghai"), "{result}");
    let bad = json!({ "server": "clock", "tool": "get_current_time", "args": { "timezone": 5 } });
    assert_eq!(
        invoke(&h, "call_tool", bad).unwrap_err()["kind"],
        "invalid_input"
    );
    let resources = invoke(&h, "server_resources", json!({ "name": "clock" })).unwrap();
    let prompts = invoke(&h, "server_prompts", json!({ "name": "clock" })).unwrap();
    assert_eq!((resources, prompts), (json!([]), json!([])));
    let logs = invoke(&h, "server_logs", json!({ "name": "clock" })).unwrap();
    assert_eq!(logs, json!({ "stderr": [], "messages": [] }));
    assert_eq!(
        invoke(&h, "restart_server", json!({ "name": "clock" })).unwrap(),
        Value::Null
    );
    assert_eq!(
        invoke(&h, "stop_server", json!({ "name": "clock" })).unwrap(),
        true
    );
    assert_eq!(
        invoke(&h, "stop_server", json!({ "name": "clock" })).unwrap(),
        false
    );
    let states = invoke(&h, "server_states", json!({})).unwrap();
    assert_eq!(states[0]["state"], json!({ "type": "stopped" }));
    let err = invoke(&h, "server_prompts", json!({ "name": "clock" })).unwrap_err();
    assert_eq!(err["kind"], "internal");
    let err = invoke(&h, "server_logs", json!({ "name": "nobody" })).unwrap_err();
    assert_eq!(err["kind"], "not_found");
}

#[test]
fn roots_are_checked_stored_and_listed_as_file_uris_over_ipc() {
    let h = harness();
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("my docs");
    std::fs::create_dir(&folder).unwrap();
    assert_eq!(invoke(&h, "list_roots", json!({})).unwrap(), json!([]));
    let err = invoke(
        &h,
        "set_roots",
        json!({ "folders": ["relative", "/no/such/dir"] }),
    )
    .unwrap_err();
    assert_eq!(
        err,
        json!({ "kind": "invalid_input", "message": "relative is not an absolute path; /no/such/dir is not an existing folder" })
    );
    let set = invoke(&h, "set_roots", json!({ "folders": [folder] })).unwrap();
    let expected = json!([{
        "path": folder,
        "uri": format!("file://{}", folder.display()).replace(' ', "%20"),
        "name": "my docs"
    }]);
    assert_eq!(set, expected);
    assert_eq!(invoke(&h, "list_roots", json!({})).unwrap(), expected);
    let stored = tauri::async_runtime::block_on(engine(&h).store().setting("mcp.roots")).unwrap();
    assert_eq!(stored, Some(json!([folder])));
}

#[test]
fn the_sampling_model_names_an_existing_provider_and_unknown_answers_are_not_found() {
    let h = harness();
    assert_eq!(
        invoke(&h, "sampling_model", json!({})).unwrap(),
        Value::Null
    );
    let choice = json!({ "choice": { "provider": "nobody", "model": "m" } });
    assert_eq!(
        invoke(&h, "set_sampling_model", choice).unwrap_err()["kind"],
        "not_found"
    );
    let provider = json!({ "input": { "name": "Local", "preset": "lmstudio" } });
    let added = invoke(&h, "add_provider", provider).unwrap();
    let choice = json!({ "choice": { "provider": "Local", "model": "qwen3" } });
    invoke(&h, "set_sampling_model", choice).unwrap();
    let chosen = invoke(&h, "sampling_model", json!({})).unwrap();
    assert_eq!(
        chosen,
        json!({ "provider": added["provider"]["id"], "model": "qwen3" })
    );
    invoke(&h, "set_sampling_model", json!({ "choice": null })).unwrap();
    assert_eq!(
        invoke(&h, "sampling_model", json!({})).unwrap(),
        Value::Null
    );
    let answer = json!({ "id": "nope", "answer": { "type": "approve" } });
    let err = invoke(&h, "answer_interaction", answer).unwrap_err();
    assert_eq!(
        err,
        json!({ "kind": "not_found", "message": "no request nope is waiting for an answer" })
    );
}

/// An OpenAI streamed answer: two text chunks, then a stop.
const ANSWER: &str = concat!(
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"fake-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"A haiku \"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"fake-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"about rust.\"},\"finish_reason\":\"stop\"}]}\n\n",
    "data: [DONE]\n\n",
);

#[test]
fn a_sampling_request_of_server_everything_is_approved_over_ipc_and_answered_by_the_chosen_model() {
    let h = harness();
    let engine = engine(&h);
    let fake = tauri::async_runtime::block_on(FakeProvider::start(vec![Reply::ok(
        "text/event-stream",
        ANSWER,
    )]));
    let provider = json!({ "input": {
        "name": "Fake", "preset": "openai-compatible", "baseUrl": format!("{}/v1", fake.url)
    }});
    invoke(&h, "add_provider", provider).unwrap();
    let choice = json!({ "choice": { "provider": "Fake", "model": "fake-1" } });
    invoke(&h, "set_sampling_model", choice).unwrap();
    let server = json!({ "input": {
        "name": "everything",
        "transport": { "type": "stdio", "command": "node", "args": [everything_js(), "stdio"] }
    }});
    invoke(&h, "add_server", server).unwrap();
    invoke(&h, "start_server", json!({ "name": "everything" })).unwrap();
    let has_sampling = || {
        let tools = invoke(&h, "server_tools", json!({ "name": "everything" })).unwrap();
        tools.to_string().contains("trigger-sampling-request")
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !has_sampling() {
        assert!(std::time::Instant::now() < deadline, "no sampling tool");
        std::thread::sleep(Duration::from_millis(100));
    }
    let prompts = invoke(&h, "server_prompts", json!({ "name": "everything" })).unwrap();
    let prompt_names: Vec<&str> = (prompts.as_array().unwrap().iter())
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(prompt_names.contains(&"simple-prompt"), "{prompts}");
    assert!(prompt_names.contains(&"args-prompt"), "{prompts}");
    let resources = invoke(&h, "server_resources", json!({ "name": "everything" })).unwrap();
    assert!(!resources.as_array().unwrap().is_empty(), "{resources}");
    let mut events = engine.mcp().interactions().subscribe();
    let call = tauri::async_runtime::spawn({
        let engine = engine.clone();
        async move {
            let args = json!({ "prompt": "write a haiku", "maxTokens": 64 });
            let cancel = Default::default();
            let call =
                engine
                    .mcp()
                    .call_tool("everything", "trigger-sampling-request", args, cancel);
            call.await
        }
    });
    let event = tauri::async_runtime::block_on(async {
        tokio::time::timeout(Duration::from_secs(20), events.recv()).await
    });
    let Ok(Ok(InteractionEvent::SamplingRequested {
        id,
        server,
        request,
    })) = event
    else {
        panic!("no sampling request: {event:?}");
    };
    assert_eq!((server.as_str(), request.max_tokens), ("everything", 64));
    let answer = json!({ "id": id, "answer": { "type": "approve" } });
    assert_eq!(
        invoke(&h, "answer_interaction", answer).unwrap(),
        Value::Null
    );
    let result = tauri::async_runtime::block_on(call).unwrap().unwrap();
    let text = result
        .content
        .iter()
        .map(|p| {
            serde_json::to_value(p).unwrap()["text"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect::<String>();
    assert!(text.contains("\"text\": \"A haiku about rust.\""), "{text}");
    assert!(text.contains("\"model\": \"fake-1\"") && text.contains("\"stopReason\": \"endTurn\""));
    let seen = fake.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path_and_query, "/v1/chat/completions");
    assert_eq!(seen[0].body["model"], "fake-1");
    assert_eq!(seen[0].body["max_tokens"], 64);
    assert_eq!(
        seen[0].body["messages"],
        json!([
            { "role": "system", "content": "You are a helpful test server." },
            { "role": "user", "content": "Resource trigger-sampling-request context: write a haiku" }
        ])
    );
    tauri::async_runtime::block_on(engine.shutdown());
}

#[test]
fn server_states_and_interactions_reach_the_windows_as_global_events() {
    use switchboard_app::events::{INTERACTION_EVENT, SERVER_EVENT, forward};
    use tauri::Listener;
    let h = harness();
    let engine = engine(&h);
    let app = h.window.app_handle().clone();
    let (tx, rx) = std::sync::mpsc::channel::<(&str, Value)>();
    for name in [SERVER_EVENT, INTERACTION_EVENT] {
        let tx = tx.clone();
        app.listen_any(name, move |event| {
            let payload = serde_json::from_str(event.payload()).unwrap();
            let _ = tx.send((name, payload));
        });
    }
    tauri::async_runtime::block_on(async { forward(&app, &engine) });
    let input = json!({ "input": {
        "name": "clock", "transport": { "type": "builtin", "server": "time" }
    }});
    invoke(&h, "add_server", input).unwrap();
    invoke(&h, "start_server", json!({ "name": "clock" })).unwrap();
    let next = || rx.recv_timeout(Duration::from_secs(10)).unwrap();
    let (name, starting) = next();
    assert_eq!(name, SERVER_EVENT);
    assert_eq!(
        starting,
        json!({ "type": "state", "server": "clock", "state": { "type": "starting" } })
    );
    let (_, ready) = next();
    assert_eq!(ready["state"]["type"], "ready");
    let broker = engine.mcp().interactions().clone();
    let elicit = tauri::async_runtime::spawn(async move {
        let request = switchboard_engine::mcp::ElicitationRequest::Form {
            message: "Name?".to_owned(),
            requested_schema: json!({ "type": "object", "properties": {} }),
        };
        broker.elicit("clock", request).await
    });
    let (name, asked) = next();
    assert_eq!(name, INTERACTION_EVENT);
    assert_eq!(asked["type"], "elicitation_requested");
    assert_eq!(
        asked["requestedSchema"],
        json!({ "type": "object", "properties": {} })
    );
    let answer = json!({ "id": asked["id"], "answer": { "type": "decline" } });
    invoke(&h, "answer_interaction", answer).unwrap();
    let reply = tauri::async_runtime::block_on(elicit).unwrap();
    assert_eq!(reply, switchboard_engine::mcp::ElicitationReply::Decline);
    let (_, closed) = next();
    assert_eq!(
        closed,
        json!({ "type": "closed", "id": asked["id"], "server": "clock", "reason": "answered" })
    );
    tauri::async_runtime::block_on(engine.shutdown());
}

#[test]
fn an_accepted_url_request_answers_the_server_even_where_no_browser_can_open() {
    let h = harness();
    let engine = engine(&h);
    let mut events = engine.mcp().interactions().subscribe();
    let broker = engine.mcp().interactions().clone();
    let asked = tauri::async_runtime::spawn(async move {
        let request = switchboard_engine::mcp::ElicitationRequest::Url {
            message: "Sign in".to_owned(),
            url: "https://example.com/login".to_owned(),
        };
        broker.elicit("remote", request).await
    });
    let event = tauri::async_runtime::block_on(events.recv()).unwrap();
    let InteractionEvent::ElicitationUrl { id, url, .. } = event else {
        panic!("expected a URL request: {event:?}");
    };
    assert_eq!(url, "https://example.com/login");
    let with_content = json!({ "id": id, "answer": { "type": "accept", "content": { "a": 1 } } });
    let err = invoke(&h, "answer_interaction", with_content).unwrap_err();
    assert_eq!(err["kind"], "invalid_input");
    let accept = json!({ "id": id, "answer": { "type": "accept" } });
    assert_eq!(
        invoke(&h, "answer_interaction", accept).unwrap(),
        Value::Null
    );
    let reply = tauri::async_runtime::block_on(asked).unwrap();
    assert_eq!(
        reply,
        switchboard_engine::mcp::ElicitationReply::Accept(None)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_roots_and_the_interaction_timeout_are_read_back_when_the_engine_opens() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().canonicalize().unwrap();
    let first = super::servers::engine(dir.path()).await;
    assert_eq!(
        first.mcp().interactions().timeout(),
        switchboard_engine::mcp::INTERACTION_TIMEOUT
    );
    first.mcp().set_roots(vec![folder.clone()]).await.unwrap();
    let key = switchboard_engine::mcp::INTERACTION_TIMEOUT_SETTING;
    first.store().set_setting(key, &json!(90)).await.unwrap();
    first.shutdown().await;
    let again = super::servers::engine(dir.path()).await;
    let roots: Vec<_> = again.mcp().roots().into_iter().map(|r| r.path).collect();
    assert_eq!(roots, vec![folder]);
    assert_eq!(
        again.mcp().interactions().timeout(),
        Duration::from_secs(90)
    );
    again.shutdown().await;
}
