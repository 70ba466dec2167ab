//! server-everything over the legacy HTTP+SSE transport (`GET /sse`, bound to 127.0.0.1 by
//! `bind-loopback.cjs`), plus a refused connection and a stream that never names its endpoint.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use super::{args, free_port, start_everything_over};
use crate::mcp::client::process::ServerProcess;
use crate::mcp::client::{IgnoreNotifications, McpClient};
use crate::vocab::mcp::McpError;
use crate::vocab::mcp::ResultPart;
use crate::vocab::server::{ServerSpec, Transport};

/// Starts server-everything's SSE transport on a free loopback port.
async fn start_sse_server() -> (ServerProcess, impl Sized, u16) {
    start_everything_over("sse").await
}

fn sse_spec(port: u16) -> ServerSpec {
    let headers = BTreeMap::from([(
        "Authorization".to_owned(),
        "Bearer not-a-real-token".to_owned(),
    )]);
    let url = format!("http://127.0.0.1:{port}/sse");
    ServerSpec::new("everything-sse", Transport::Sse { url, headers })
}

#[tokio::test]
async fn sse_connects_lists_tools_and_calls_echo() {
    let (server, _pipes, port) = start_sse_server().await;
    let client = McpClient::connect(&sse_spec(port), IgnoreNotifications)
        .await
        .expect("connect");
    assert_eq!(client.server_info().protocol_version, "2025-11-25");
    let tools = client.list_tools().await.expect("list tools");
    assert!(tools.iter().any(|t| t.name == "echo"), "{tools:?}");
    let result = client
        .call_tool(
            "echo",
            args(json!({"message": "over sse"})),
            Duration::from_secs(10),
            CancellationToken::new(),
        )
        .await
        .expect("echo");
    assert_eq!(
        result.content,
        vec![ResultPart::Text {
            text: "Echo: over sse".to_owned()
        }]
    );
    client.shutdown().await;
    server.shutdown(Duration::ZERO).await;
}

#[tokio::test]
async fn an_sse_url_that_refuses_connections_is_a_connect_error() {
    let port = free_port();
    let result = McpClient::connect(&sse_spec(port), IgnoreNotifications).await;
    match result {
        Err(McpError::Connect(message)) => {
            assert!(message.contains("cannot open the SSE stream"), "{message}");
            assert!(message.contains(&port.to_string()), "{message}");
            assert!(!message.contains("not-a-real-token"), "{message}");
        }
        other => panic!("expected a Connect error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_stream_without_an_endpoint_event_times_out() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        let mut request = vec![0u8; 4096];
        let _ = socket.read(&mut request).await;
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                    cache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n";
        socket.write_all(head.as_bytes()).await.expect("write");
        let comment = ": still here\n\n";
        let chunk = format!("{:x}\r\n{comment}\r\n", comment.len());
        socket.write_all(chunk.as_bytes()).await.expect("write");
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    let mut spec = sse_spec(port);
    spec.startup_timeout = Duration::from_millis(500);
    let started = Instant::now();
    let result = McpClient::connect(&spec, IgnoreNotifications).await;
    assert!(
        matches!(result, Err(McpError::Timeout { after }) if after == spec.startup_timeout),
        "{result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    server.abort();
}

#[tokio::test]
async fn a_dropped_stream_closes_the_transport_and_later_sends_fail() {
    use crate::mcp::client::sse::{SseError, SseTransport};
    use rmcp::transport::Transport as _;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        let mut request = vec![0u8; 4096];
        let _ = socket.read(&mut request).await;
        let body = "event: endpoint\ndata: /messages?sessionId=1\n\n";
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(response.as_bytes()).await.expect("write");
    });
    let url = format!("http://127.0.0.1:{port}/sse");
    let mut transport = SseTransport::open(&url, Default::default(), Duration::from_secs(5))
        .await
        .expect("open");
    assert_eq!(
        transport.endpoint().as_str(),
        format!("http://127.0.0.1:{port}/messages?sessionId=1")
    );
    let next = tokio::time::timeout(Duration::from_secs(5), transport.receive()).await;
    assert!(next.expect("the stream end is noticed").is_none());
    let ping = serde_json::from_value(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .expect("a ping request");
    let sent = transport.send(ping).await;
    assert!(
        matches!(&sent, Err(SseError::Closed(reason)) if reason.contains("ended")),
        "{sent:?}"
    );
    server.await.expect("server");
}
