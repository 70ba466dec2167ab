//! Tests of [`super::ServeTransport`]: the shortcut parses a plain `tools/call` exactly as
//! rmcp's parse does, leaves every other line to rmcp, and messages keep their order.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use rmcp::model as rm;
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use super::{ServeTransport, shortcut};

/// rmcp's own parse of a line (what `AsyncRwTransport` does).
fn rmcp_parse(line: &str) -> Option<rm::ClientJsonRpcMessage> {
    serde_json::from_str(line).ok()
}

fn as_json(message: &rm::ClientJsonRpcMessage) -> Value {
    serde_json::to_value(message).unwrap()
}

#[test]
fn a_plain_call_is_parsed_as_rmcp_parses_it() {
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "everything__echo", "arguments": {"message": "hello"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "id": "abc-1", "method": "tools/call",
               "params": {"name": "time__now"}})
        .to_string(),
        json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call",
               "params": {"name": "t", "arguments": {}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "id": 9007199254740991_i64, "method": "tools/call",
               "params": {"name": "日本語", "arguments": {"n": 1.5, "list": [null, true, "x"],
                          "nested": {"a": {"b": []}}, "s": "line\nbreak \"quoted\""}}})
        .to_string(),
        // Key order and whitespace as other serializers write them.
        r#"{ "method" : "tools/call", "params" : { "arguments" : { "x" : 1 }, "name" : "a" }, "id" : 3, "jsonrpc" : "2.0" }"#.to_owned(),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "a", "arguments": null}})
        .to_string(),
    ];
    for line in lines {
        let theirs = rmcp_parse(&line).expect("rmcp parses it");
        let ours = shortcut(line.as_bytes()).unwrap_or_else(|| panic!("not taken: {line}"));
        assert!(
            matches!(
                &theirs,
                rm::JsonRpcMessage::Request(rm::JsonRpcRequest {
                    request: rm::ClientRequest::CallToolRequest(_),
                    ..
                })
            ),
            "{line}"
        );
        assert_eq!(as_json(&ours), as_json(&theirs), "{line}");
        assert_eq!(format!("{ours:?}"), format!("{theirs:?}"), "{line}");
    }
}

#[test]
fn anything_but_a_plain_call_is_left_to_rmcp() {
    let lines = [
        // other methods, notifications, answers
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        // a call with more than a name and arguments
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "a", "_meta": {"progressToken": 5}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "a", "requestState": "s"}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "a", "inputResponses": {}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "a", "task": {"ttl": 1000}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"},
               "extra": true}),
        // not a valid call
        json!({"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"name": "a"}}),
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "a"}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "a", "arguments": [1]}}),
        json!({"jsonrpc": "2.0", "id": null, "method": "tools/call", "params": {"name": "a"}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"},
               "result": {}}),
    ];
    for line in lines {
        let line = line.to_string();
        assert!(shortcut(line.as_bytes()).is_none(), "{line}");
    }
    assert!(shortcut(b"not json\n").is_none());
    assert!(shortcut(b"").is_none());
}

/// The method and id of a message read.
fn label(message: &rm::ClientJsonRpcMessage) -> String {
    let value = as_json(message);
    format!(
        "{} {}",
        value["method"].as_str().unwrap_or("-"),
        value["id"]
    )
}

#[tokio::test]
async fn messages_arrive_in_order_whichever_path_parses_them() {
    let (app_end, our_end) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(our_end);
    let mut transport = ServeTransport::new(read, write, 4096);
    let (_app_read, mut app_write) = tokio::io::split(app_end);

    let call = |id: u32, extra: Value| {
        let mut params = json!({"name": "echo", "arguments": {"message": "hi"}});
        if let Value::Object(extra) = extra {
            params.as_object_mut().unwrap().extend(extra);
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
    };
    // Calls taken by either path, a ping, a notification, a blank line, a line longer than
    // the limit (dropped by rmcp's reader), in one burst split across writes.
    let burst = [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        call(1, Value::Null),
        call(2, json!({"_meta": {"progressToken": 2}})),
        String::new(),
        json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}).to_string(),
        call(4, json!({"arguments": {"message": "x".repeat(8000)}})),
        call(5, Value::Null),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": 5}})
        .to_string(),
    ]
    .join("\n")
        + "\n";
    let (head, tail) = burst.split_at(burst.len() / 2 + 7);
    app_write.write_all(head.as_bytes()).await.unwrap();
    app_write.flush().await.unwrap();
    tokio::task::yield_now().await;
    app_write.write_all(tail.as_bytes()).await.unwrap();
    app_write.shutdown().await.unwrap();

    let mut read = Vec::new();
    while let Some(message) = transport.receive().await {
        read.push(label(&message));
    }
    assert_eq!(
        read,
        [
            "notifications/initialized null",
            "tools/call 1",
            "tools/call 2",
            "ping 3",
            "tools/call 5",
            "notifications/cancelled null",
        ]
    );
}
