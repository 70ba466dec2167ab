//! The tool execution API against server-everything: the tools of ready servers, argument
//! validation with JSON paths, unknown servers and tools, truncation of large results.

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::supervisor::everything;
use crate::mcp::client::backoff::Backoff;
use crate::mcp::supervisor::tools::Limits;
use crate::mcp::supervisor::tools::truncate;
use crate::mcp::supervisor::{ServerState, Supervisor};
use crate::vocab::error::{ToolError, Violation};
use crate::vocab::mcp::{ResultPart, ToolResult};

/// A supervisor running server-everything as `everything`, with `limits`.
async fn running(limits: Limits) -> Supervisor {
    let supervisor = Supervisor::new(Backoff::default(), limits);
    let state = supervisor.start(everything("everything")).await;
    assert!(matches!(state, ServerState::Ready { .. }), "{state:?}");
    supervisor
}

#[tokio::test]
async fn tools_for_lists_the_tools_of_ready_servers_with_their_server() {
    let supervisor = running(Limits::default()).await;
    let names = ["everything".to_owned(), "not-started".to_owned()];
    let tools = supervisor.tools_for(&names);
    assert!(tools.iter().all(|(server, _)| server == "everything"));
    assert!(tools.iter().any(|(_, t)| t.name == "echo"));
    assert!(tools.iter().any(|(_, t)| t.name == "get-sum"));
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn calling_echo_through_the_supervisor_returns_the_text() {
    let supervisor = running(Limits::default()).await;
    let result = supervisor
        .call(
            "everything",
            "echo",
            json!({"message": "hi"}),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        result,
        ToolResult {
            content: vec![ResultPart::Text {
                text: "Echo: hi".to_owned()
            }],
            structured: None,
            is_error: false,
        }
    );
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn validation_rejects_get_sum_with_a_string_argument_listing_every_path() {
    let supervisor = running(Limits::default()).await;
    let args = json!({"a": "two", "b": 40, "c": true});
    let error = supervisor
        .call("everything", "get-sum", args, CancellationToken::new())
        .await
        .unwrap_err();
    let ToolError::InvalidArguments { tool, violations } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(tool, "get-sum");
    let paths: Vec<&str> = violations.iter().map(|v| v.path.as_str()).collect();
    assert!(paths.contains(&"/a"), "{violations:?}");
    assert!(
        error
            .to_string()
            .starts_with("invalid arguments for `get-sum`: /a: ")
    );
    let missing = supervisor
        .call("everything", "get-sum", json!({}), CancellationToken::new())
        .await
        .unwrap_err();
    let ToolError::InvalidArguments { violations, .. } = missing else {
        panic!("{missing:?}");
    };
    assert!(
        violations.iter().all(|v: &Violation| v.path == "/"),
        "{violations:?}"
    );
    assert!(!violations.is_empty());
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn an_unknown_tool_and_an_unknown_server_each_give_a_specific_error() {
    let supervisor = running(Limits::default()).await;
    let cancel = CancellationToken::new;
    let tool = supervisor
        .call("everything", "no-such-tool", json!({}), cancel())
        .await
        .unwrap_err();
    assert_eq!(
        tool.to_string(),
        "the MCP server `everything` has no tool named `no-such-tool`"
    );
    assert!(matches!(tool, ToolError::UnknownTool { .. }));
    let server = supervisor
        .call("nowhere", "echo", json!({}), cancel())
        .await
        .unwrap_err();
    assert_eq!(
        server.to_string(),
        "no MCP server named `nowhere` is running"
    );
    assert!(matches!(server, ToolError::UnknownServer { .. }));
    supervisor.stop("everything").await;
    let stopped = supervisor
        .call("everything", "echo", json!({"message": "x"}), cancel())
        .await
        .unwrap_err();
    assert_eq!(
        stopped.to_string(),
        "the MCP server `everything` is not ready (stopped)"
    );
}

#[tokio::test]
async fn a_long_echo_is_truncated_with_a_marker_under_a_small_limit() {
    let limits = Limits {
        max_text_chars: 10,
        ..Limits::default()
    };
    let supervisor = running(limits).await;
    let message = "é".repeat(50);
    let result = supervisor
        .call(
            "everything",
            "echo",
            json!({"message": message}),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    // "Echo: " + 50 characters = 56; 10 kept.
    assert_eq!(
        result.content,
        vec![ResultPart::Text {
            text: "Echo: éééé[… truncated 46 characters]".to_owned()
        }]
    );
    supervisor.shutdown_all().await;
}

#[test]
fn an_oversized_image_is_replaced_by_a_note_and_text_within_the_limit_is_kept() {
    let limits = Limits {
        max_text_chars: 100,
        max_binary_bytes: 30,
    };
    let result = ToolResult {
        content: vec![
            ResultPart::Text {
                text: "short".to_owned(),
            },
            ResultPart::Image {
                mime: "image/png".to_owned(),
                data: "A".repeat(80),
            },
            ResultPart::Image {
                mime: "image/png".to_owned(),
                data: "A".repeat(40),
            },
        ],
        structured: Some(json!({"kept": true})),
        is_error: false,
    };
    let cut = truncate(result.clone(), &limits);
    assert_eq!(
        cut,
        ToolResult {
            content: vec![
                result.content[0].clone(),
                ResultPart::Text {
                    text: "[image image/png of 60 bytes omitted: larger than the limit]".to_owned()
                },
                result.content[2].clone(),
            ],
            ..result
        }
    );
}
