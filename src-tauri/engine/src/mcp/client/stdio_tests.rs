//! Tests of [`super::StdioTransport`]: the shortcut parses exactly what rmcp's parse yields,
//! leaves everything else to rmcp, and messages keep their order.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use rmcp::model as rm;
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::{StdioTransport, shortcut};

/// rmcp's own parse of a line (what `AsyncRwTransport` does).
fn rmcp_parse(line: &str) -> Option<rm::ServerJsonRpcMessage> {
    serde_json::from_str(line).ok()
}

fn pending(id: i64) -> HashSet<rm::RequestId> {
    HashSet::from([rm::RequestId::Number(id)])
}

fn as_json(message: &rm::ServerJsonRpcMessage) -> Value {
    serde_json::to_value(message).unwrap()
}

/// Results a tool may answer with: every combination of the optional fields with content.
fn call_results() -> Vec<Value> {
    let contents = [
        json!([]),
        json!([{"type": "text", "text": "hello"}]),
        json!([{"type": "image", "data": "AAAA", "mimeType": "image/png"},
               {"type": "resource_link", "uri": "file:///a", "name": "a"}]),
    ];
    let mut results = Vec::new();
    for content in contents {
        for mask in 0..16u8 {
            let mut result = json!({"content": content});
            if mask & 1 != 0 {
                result["isError"] = json!(mask & 4 != 0);
            }
            if mask & 2 != 0 {
                result["structuredContent"] = json!({"n": 1, "list": [1.5, null, "x"]});
            }
            if mask & 4 != 0 {
                result["_meta"] = json!({"k": "v"});
            }
            if mask & 8 != 0 {
                result["resultType"] = json!("complete");
            }
            results.push(result);
        }
    }
    results
}

#[test]
fn a_pending_calls_result_is_parsed_as_rmcp_parses_it() {
    let mut taken = 0;
    for result in call_results() {
        let line = json!({"jsonrpc": "2.0", "id": 7, "result": result}).to_string();
        let theirs = rmcp_parse(&line).expect("rmcp parses it");
        let ours = shortcut(line.as_bytes(), &mut pending(7));
        if let Some(ours) = ours {
            taken += 1;
            assert!(matches!(
                &ours,
                rm::JsonRpcMessage::Response(rm::JsonRpcResponse {
                    result: rm::ServerResult::CallToolResult(_),
                    ..
                })
            ));
            assert!(
                matches!(
                    &theirs,
                    rm::JsonRpcMessage::Response(rm::JsonRpcResponse {
                        result: rm::ServerResult::CallToolResult(_),
                        ..
                    })
                ),
                "{line}"
            );
            assert_eq!(as_json(&ours), as_json(&theirs), "{line}");
        }
    }
    // Only `_meta` together with `resultType` is left to rmcp.
    assert_eq!(taken, 3 * 12);
}

#[test]
fn anything_but_a_pending_calls_plain_result_is_left_to_rmcp() {
    let lines = [
        // not a pending call
        json!({"jsonrpc": "2.0", "id": 8, "result": {"content": []}}),
        // fields of other results
        json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [], "tools": []}}),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"isError": false}}),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "input_required", "content": []}}),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [], "_meta": {}, "resultType": "complete"}}),
        // not a plain answer
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -1, "message": "no"}}),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"content": []}, "error": {"code": 1, "message": ""}}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
               "params": {"progressToken": 7, "progress": 1}}),
        json!({"jsonrpc": "1.0", "id": 7, "result": {"content": []}}),
        json!({"jsonrpc": "2.0", "id": 7, "result": []}),
        // content rmcp does not take as a CallToolResult
        json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "nope"}]}}),
    ];
    for line in lines {
        let line = line.to_string();
        assert!(
            shortcut(line.as_bytes(), &mut pending(7)).is_none(),
            "{line}"
        );
    }
    assert!(shortcut(b"not json\n", &mut pending(7)).is_none());
    assert!(shortcut(b"", &mut pending(7)).is_none());
}

#[test]
fn a_shortcut_answer_is_no_longer_pending() {
    let mut calls = pending(7);
    let line = json!({"jsonrpc": "2.0", "id": 7, "result": {"content": []}}).to_string();
    assert!(shortcut(line.as_bytes(), &mut calls).is_some());
    assert!(calls.is_empty());
    assert!(shortcut(line.as_bytes(), &mut calls).is_none());
}

/// A tools/call request with id `id`.
fn call(id: i64) -> rm::ClientJsonRpcMessage {
    let params = rm::CallToolRequestParams::new("echo");
    let request = rm::ClientRequest::CallToolRequest(rm::CallToolRequest::new(params));
    rm::ClientJsonRpcMessage::request(request, rm::RequestId::Number(id))
}

#[tokio::test]
async fn messages_arrive_in_order_whichever_path_parses_them() {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(client_end);
    let mut transport = StdioTransport::new(read, write, 1 << 20);
    let (server_read, mut server_write) = tokio::io::split(server_end);

    transport.send(call(1)).await.unwrap();
    transport.send(call(2)).await.unwrap();
    let mut sent = BufReader::new(server_read).lines();
    let first: Value = serde_json::from_str(&sent.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["method"], "tools/call");
    assert_eq!(first["id"], 1);

    // A progress notification, a line rmcp ignores, a blank line, an answer split across
    // writes, an answer with an unusual field, in one burst.
    let burst = [
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
               "params": {"progressToken": 0, "progress": 1}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/custom/ignored"}).to_string(),
        String::new(),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "a"}]}})
            .to_string(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [], "extra": true}}).to_string(),
    ]
    .join("\n")
        + "\n";
    let (head, tail) = burst.split_at(burst.len() / 2 + 7);
    server_write.write_all(head.as_bytes()).await.unwrap();
    server_write.flush().await.unwrap();
    tokio::task::yield_now().await;
    server_write.write_all(tail.as_bytes()).await.unwrap();

    let mut notifications = 0;
    let mut answers = Vec::new();
    while answers.len() < 2 {
        match transport.receive().await.unwrap() {
            rm::JsonRpcMessage::Notification(_) => {
                assert!(answers.is_empty(), "a notification after an answer");
                notifications += 1;
            }
            rm::JsonRpcMessage::Response(answer) => answers.push(answer),
            other => panic!("{other:?}"),
        }
    }
    assert!(notifications >= 1);
    assert_eq!(answers[0].id, rm::RequestId::Number(1));
    assert!(matches!(
        answers[0].result,
        rm::ServerResult::CallToolResult(_)
    ));
    assert_eq!(answers[1].id, rm::RequestId::Number(2));
    assert!(transport.calls.is_empty());

    // Both halves of the server's end closed: the end of the stream.
    drop((sent, server_write));
    assert!(transport.receive().await.is_none());
}
