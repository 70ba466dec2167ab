//! The built-in servers, listed and called through [`McpClient`] over their in-memory pipe,
//! connected the way the app connects them (a `Transport::Builtin` spec).
//! The fetch tests talk only to a tiny HTTP server on 127.0.0.1.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use crate::mcp::builtin::BuiltinServer;
use crate::mcp::client::{IgnoreNotifications, McpClient};
use crate::vocab::mcp::{ResultPart, ToolResult};

pub(super) async fn client(server: BuiltinServer) -> McpClient {
    McpClient::connect(&server.spec(), IgnoreNotifications)
        .await
        .expect("connect")
}

/// Calls `tool` with `args` (an object), waiting up to 20 s.
pub(super) async fn call(client: &McpClient, tool: &str, args: Value) -> ToolResult {
    let args = args.as_object().expect("object").clone();
    client
        .call_tool(
            tool,
            args,
            Duration::from_secs(20),
            CancellationToken::new(),
        )
        .await
        .expect("call")
}

/// The one text part of `result`.
pub(super) fn text(result: &ToolResult) -> String {
    match result.content.as_slice() {
        [ResultPart::Text { text }] => text.clone(),
        other => panic!("expected one text part, got {other:?}"),
    }
}

async fn tool_names(client: &McpClient) -> Vec<String> {
    let mut names: Vec<String> = client
        .list_tools()
        .await
        .expect("list")
        .into_iter()
        .map(|t| t.name)
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn time_tools_are_listed_and_callable() {
    let client = client(BuiltinServer::Time).await;
    // Built-in servers are rmcp servers: they answer `server/discover`, so the stateless era.
    assert_eq!(client.server_info().protocol_version, "2026-07-28");
    let era = client.server_info().era;
    assert_eq!(era, crate::vocab::mcp::ProtocolEra::Stateless);
    assert_eq!(
        tool_names(&client).await,
        ["convert_time", "get_current_time"]
    );
    let now = call(
        &client,
        "get_current_time",
        json!({"timezone": "Europe/Paris"}),
    )
    .await;
    assert!(!now.is_error);
    let now: Value = serde_json::from_str(&text(&now)).expect("json");
    assert_eq!(now["timezone"], "Europe/Paris");
    assert!(
        now["datetime"].as_str().expect("datetime").len() >= 25,
        "{now}"
    );
    let converted = call(
        &client,
        "convert_time",
        json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Kathmandu"}),
    )
    .await;
    let converted: Value = serde_json::from_str(&text(&converted)).expect("json");
    assert_eq!(converted["time_difference"], "+5.75h");
    let bad = call(
        &client,
        "get_current_time",
        json!({"timezone": "Nowhere/Land"}),
    )
    .await;
    assert!(bad.is_error);
    assert_eq!(text(&bad), "Invalid timezone: Nowhere/Land");
    client.shutdown().await;
}

/// A loopback HTTP server answering every request with `content_type` and `body`; counts
/// the connections it accepts.
async fn http_server(content_type: &'static str, body: Vec<u8>) -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    let body = Arc::new(body);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let body = Arc::clone(&body);
            tokio::spawn(async move {
                let mut request = vec![0u8; 4096];
                let _ = socket.read(&mut request).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(&body).await;
            });
        }
    });
    (port, hits)
}

const PAGE: &str = "<html><head><title>T</title><script>evil()</script></head>\
    <body><h1>Hello</h1><p>World of <a href=\"/x\">links</a>.</p></body></html>";

#[tokio::test]
async fn fetch_returns_markdown_in_pages() {
    let (port, _) = http_server("text/html; charset=utf-8", PAGE.as_bytes().to_vec()).await;
    let client = client(BuiltinServer::Fetch {
        allow_private: true,
    })
    .await;
    assert_eq!(tool_names(&client).await, ["fetch"]);
    let url = format!("http://127.0.0.1:{port}/page");
    let whole = text(&call(&client, "fetch", json!({"url": url})).await);
    assert!(
        whole.starts_with(&format!("Contents of {url}:\n")),
        "{whole}"
    );
    assert!(whole.contains("# Hello"), "{whole}");
    assert!(whole.contains("[links](/x)"), "{whole}");
    assert!(!whole.contains("evil"), "{whole}");
    let first = text(&call(&client, "fetch", json!({"url": url, "max_length": 7})).await);
    assert!(
        first.ends_with("\n\nContent truncated. Call the fetch tool with a start_index of 7 to get more content."),
        "{first}"
    );
    let rest = text(&call(&client, "fetch", json!({"url": url, "start_index": 7})).await);
    assert!(!rest.contains("Content truncated"), "{rest}");
    let raw = text(&call(&client, "fetch", json!({"url": url, "raw": true})).await);
    assert!(raw.contains("<h1>Hello</h1>"), "{raw}");
    client.shutdown().await;
}

#[tokio::test]
async fn fetch_stops_downloading_at_5_mb() {
    let body = vec![b'a'; crate::mcp::builtin::guarded::DOWNLOAD_LIMIT + 1024 * 1024];
    let (port, _) = http_server("text/plain", body).await;
    let client = client(BuiltinServer::Fetch {
        allow_private: true,
    })
    .await;
    let start = crate::mcp::builtin::guarded::DOWNLOAD_LIMIT - 10;
    let args = json!({"url": format!("http://127.0.0.1:{port}/big"), "start_index": start});
    let tail = text(&call(&client, "fetch", args).await);
    assert!(
        tail.starts_with("Content type text/plain cannot be simplified"),
        "{tail}"
    );
    assert!(tail.ends_with(":\naaaaaaaaaa"), "{tail}");
    client.shutdown().await;
}

#[tokio::test]
async fn fetch_refuses_private_addresses_unless_allowed() {
    let (port, hits) = http_server("text/html", PAGE.as_bytes().to_vec()).await;
    let client = client(BuiltinServer::Fetch {
        allow_private: false,
    })
    .await;
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
        "http://10.0.0.1/".to_owned(),
        "http://[::1]:9/".to_owned(),
    ] {
        let result = call(&client, "fetch", json!({"url": url})).await;
        assert!(result.is_error, "{url}");
        let message = text(&result);
        assert!(
            message.contains("private, loopback or link-local"),
            "{message}"
        );
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0, "a refused fetch connected");
    let file = call(&client, "fetch", json!({"url": "file:///etc/passwd"})).await;
    assert!(file.is_error);
    client.shutdown().await;
}

/// A temp root with `notes/todo.txt` and `big.txt`, and a folder outside it with a secret.
fn fs_fixture() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let base = tempfile::tempdir().expect("tempdir");
    let root = base.path().join("root");
    let outside = base.path().join("outside");
    std::fs::create_dir_all(root.join("notes")).expect("mkdir");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(root.join("notes/todo.txt"), "buy milk").expect("write");
    let big = vec![b'x'; crate::mcp::builtin::filesystem::READ_LIMIT as usize + 1];
    std::fs::write(root.join("big.txt"), big).expect("write");
    std::fs::write(outside.join("secret.txt"), "s3cret").expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, root.join("escape")).expect("symlink");
    (base, root, outside)
}

#[tokio::test]
async fn filesystem_tools_work_inside_the_root_and_are_annotated() {
    let (_base, root, _) = fs_fixture();
    let client = client(BuiltinServer::Filesystem {
        roots: vec![root.clone()],
    })
    .await;
    let tools = client.list_tools().await.expect("list");
    for tool in &tools {
        let write = tool.name == "write_file";
        assert_eq!(tool.annotations.read_only, Some(!write), "{}", tool.name);
        if write {
            assert_eq!(tool.annotations.destructive, Some(true));
        }
    }
    assert_eq!(
        tool_names(&client).await,
        [
            "list_directory",
            "read_text_file",
            "search_files",
            "write_file"
        ]
    );
    let listing = text(&call(&client, "list_directory", json!({"path": root})).await);
    assert!(
        listing.contains("[DIR] notes") && listing.contains("[FILE] big.txt"),
        "{listing}"
    );
    let todo = call(&client, "read_text_file", json!({"path": "notes/todo.txt"})).await;
    assert_eq!(text(&todo), "buy milk");
    let found = text(&call(&client, "search_files", json!({"pattern": "*.TXT"})).await);
    assert!(
        found.contains("todo.txt") && !found.contains("secret"),
        "{found}"
    );
    let wrote = call(
        &client,
        "write_file",
        json!({"path": "notes/new.md", "content": "hi"}),
    )
    .await;
    assert!(!wrote.is_error, "{}", text(&wrote));
    assert_eq!(
        std::fs::read_to_string(root.join("notes/new.md")).expect("read"),
        "hi"
    );
    let big = call(&client, "read_text_file", json!({"path": "big.txt"})).await;
    assert!(
        big.is_error && text(&big).contains("limit"),
        "{}",
        text(&big)
    );
    client.shutdown().await;
}

#[tokio::test]
async fn filesystem_refuses_paths_outside_the_root() {
    let (_base, root, outside) = fs_fixture();
    let client = client(BuiltinServer::Filesystem {
        roots: vec![root.clone()],
    })
    .await;
    let secret = outside.join("secret.txt");
    let attempts = [
        ("read_text_file", json!({"path": "../outside/secret.txt"})),
        ("read_text_file", json!({"path": secret})),
        ("read_text_file", json!({"path": "escape/secret.txt"})),
        ("list_directory", json!({"path": "escape"})),
        ("list_directory", json!({"path": "/"})),
        (
            "search_files",
            json!({"pattern": "secret", "path": "escape"}),
        ),
        (
            "write_file",
            json!({"path": "escape/new.txt", "content": "x"}),
        ),
        (
            "write_file",
            json!({"path": "escape/secret.txt", "content": "x"}),
        ),
        (
            "write_file",
            json!({"path": outside.join("new.txt"), "content": "x"}),
        ),
        (
            "write_file",
            json!({"path": "notes/../../outside/new.txt", "content": "x"}),
        ),
    ];
    for (tool, args) in attempts {
        let result = call(&client, tool, args.clone()).await;
        assert!(result.is_error, "{tool} {args} was allowed");
        let message = text(&result);
        assert!(
            message.contains("outside the allowed folders") || message.contains("`..`"),
            "{tool} {args}: {message}"
        );
    }
    assert_eq!(std::fs::read_to_string(&secret).expect("read"), "s3cret");
    assert!(!outside.join("new.txt").exists());
    client.shutdown().await;
}

#[tokio::test]
async fn a_filesystem_server_needs_existing_roots() {
    let missing = BuiltinServer::Filesystem {
        roots: vec!["/definitely/not/here".into()],
    };
    let result = McpClient::connect(&missing.spec(), IgnoreNotifications).await;
    assert!(result.is_err());
}

#[tokio::test]
async fn configured_builtin_servers_start_under_the_supervisor_and_filesystem_defaults_to_the_roots()
 {
    use crate::mcp::supervisor::{ServerState, Supervisor};
    use crate::vocab::server::{ServerConfig, Transport};
    let (_dir, root, _outside) = fs_fixture();
    let supervisor = Supervisor::default();
    let builtin = |name: &str, server: &str| {
        let transport = Transport::Builtin {
            server: server.to_owned(),
            allow_private: false,
            folders: Vec::new(),
            env: Default::default(),
            settings: Default::default(),
        };
        ServerConfig::new(name, transport)
    };
    let files = builtin("files", "filesystem");
    let ServerState::Failed { reason } = supervisor.start(files.clone()).await else {
        panic!("a filesystem server without roots started");
    };
    assert!(reason.contains("choose folders (roots) first"), "{reason}");
    supervisor.roots().set(vec![root.clone()]);
    let states = supervisor
        .start_all(&[builtin("clock", "time"), files])
        .await;
    for (name, state) in &states {
        assert!(
            matches!(state, ServerState::Ready { .. }),
            "{name}: {state:?}"
        );
    }
    let listing = supervisor
        .call(
            "files",
            "list_directory",
            json!({ "path": root }),
            Default::default(),
        )
        .await
        .unwrap();
    assert!(
        text(&listing).contains("[FILE] big.txt"),
        "{}",
        text(&listing)
    );
    let now = supervisor
        .call(
            "clock",
            "get_current_time",
            json!({ "timezone": "UTC" }),
            Default::default(),
        )
        .await
        .unwrap();
    assert!(text(&now).contains("UTC"), "{}", text(&now));
    let notes = root.join("notes");
    supervisor.set_roots(vec![notes.clone()]).await;
    let listing = supervisor
        .call(
            "files",
            "list_directory",
            json!({ "path": notes }),
            Default::default(),
        )
        .await
        .unwrap();
    assert!(
        text(&listing).contains("[FILE] todo.txt"),
        "{}",
        text(&listing)
    );
    let outside_now = supervisor
        .call(
            "files",
            "list_directory",
            json!({ "path": root }),
            Default::default(),
        )
        .await
        .unwrap();
    assert!(
        outside_now.is_error,
        "the old root is still allowed: {outside_now:?}"
    );
    supervisor.shutdown_all().await;
}
