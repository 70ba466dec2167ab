//! server-everything over streamable HTTP, bound to 127.0.0.1 by `bind-loopback.cjs`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{args, free_port, start_everything_over};
use crate::mcp::client::process::ServerProcess;
use crate::mcp::client::{IgnoreNotifications, McpClient};
use crate::vocab::mcp::McpError;
use crate::vocab::mcp::ResultPart;
use crate::vocab::server::{ServerSpec, Transport};

/// Starts server-everything's streamable HTTP transport on a free loopback port.
async fn start_http_server() -> (ServerProcess, impl Sized, u16) {
    start_everything_over("streamableHttp").await
}

fn http_spec(port: u16) -> ServerSpec {
    let headers = BTreeMap::from([(
        "Authorization".to_owned(),
        "Bearer not-a-real-token".to_owned(),
    )]);
    let url = format!("http://127.0.0.1:{port}/mcp");
    ServerSpec::new("everything-http", Transport::Http { url, headers })
}

#[tokio::test]
async fn streamable_http_connects_with_custom_headers_and_calls_echo() {
    let (server, _pipes, port) = start_http_server().await;
    let started = Instant::now();
    let client = McpClient::connect(&http_spec(port), IgnoreNotifications)
        .await
        .expect("connect");
    eprintln!("http connect: {:?}", started.elapsed());
    assert_eq!(client.server_info().protocol_version, "2025-11-25");
    let call = || {
        let args = args(json!({"message": "over http"}));
        client.call_tool(
            "echo",
            args,
            Duration::from_secs(10),
            CancellationToken::new(),
        )
    };
    let result = call().await.expect("echo");
    assert_eq!(
        result.content,
        vec![ResultPart::Text {
            text: "Echo: over http".to_owned()
        }]
    );
    let started = Instant::now();
    for _ in 0..20 {
        call().await.expect("echo");
    }
    eprintln!("http echo latency: {:?} per call", started.elapsed() / 20);
    client.shutdown().await;
    server.shutdown(Duration::ZERO).await;
}

#[tokio::test]
async fn the_http_fixture_listens_on_loopback_only() {
    let (server, _pipes, port) = start_http_server().await;
    let listening = std::fs::read_to_string("/proc/net/tcp").expect("/proc/net/tcp");
    let local = format!("0100007F:{port:04X}");
    let any = format!("00000000:{port:04X}");
    assert!(listening.contains(&local), "not on 127.0.0.1:{port}");
    assert!(!listening.contains(&any), "listening on all interfaces");
    server.shutdown(Duration::ZERO).await;
}

#[tokio::test]
async fn an_unreachable_url_fails_to_connect() {
    let spec = http_spec(free_port());
    let result = McpClient::connect(&spec, IgnoreNotifications).await;
    assert!(
        matches!(result, Err(McpError::Connect(_) | McpError::Handshake(_))),
        "{result:?}"
    );
}
