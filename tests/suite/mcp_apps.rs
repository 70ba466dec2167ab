//! MCP Apps (SEP-1865), host side, against real App servers from npm
//! (`tests/fixtures/mcp-apps`: server-basic-vanillajs, server-system-monitor,
//! server-budget-allocator) and our hostile App server: the UI extension is advertised, a
//! tool's `ui://` resource is read and stored with its result, tools hidden from the model
//! are not offered to it, and an App's own `tools/call` is held to its server, to tools
//! visible to Apps, and to the approval policy.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use switchboard_engine::agent::ApprovalAnswer;
use switchboard_engine::mcp::{AppCall, AppCallOutcome};
use switchboard_engine::vocab::mcp::Visibility;
use switchboard_engine::vocab::server::{Approval, ServerConfig, Transport};
use switchboard_engine::{Engine, ErrorKind};

use super::servers::engine;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-apps")
}

/// A stdio server running `node <script> [args]` from the App fixtures.
fn node_server(name: &str, script: &str, args: &[&str], approval: Approval) -> ServerConfig {
    let path = fixtures().join(script);
    assert!(
        path.exists(),
        "{} is missing: run `scripts/deps.sh test`",
        path.display()
    );
    let mut all = vec![path.to_string_lossy().into_owned()];
    all.extend(args.iter().map(|a| a.to_string()));
    let transport = Transport::Stdio {
        command: "node".into(),
        args: all,
        env: Default::default(),
        cwd: None,
    };
    let mut config = ServerConfig::new(name, transport);
    config.approval = approval;
    config.startup_timeout = std::time::Duration::from_secs(60);
    config
}

pub(crate) fn npm_app(name: &str, package: &str, approval: Approval) -> ServerConfig {
    let script = format!("node_modules/@modelcontextprotocol/{package}/dist/index.js");
    node_server(name, &script, &["--stdio"], approval)
}

pub(crate) async fn started(engine: &Engine, config: ServerConfig) {
    let name = config.name.clone();
    engine.mcp().add_server(config).await.unwrap();
    engine.mcp().start_server(&name).await.unwrap();
}

pub(crate) fn call(server: &str, tool: &str, approval: Option<ApprovalAnswer>) -> AppCall {
    AppCall {
        server: server.into(),
        tool: tool.into(),
        arguments: json!({}),
        conversation_id: "c1".into(),
        app: Some(format!("ui://{server}/app.html")),
        approval,
    }
}

#[tokio::test]
async fn the_ui_extension_is_advertised_in_the_client_capabilities() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    started(
        &engine,
        node_server("hostile", "hostile-app.mjs", &[], Approval::Allow),
    )
    .await;
    let result = engine
        .mcp()
        .call_tool(
            "hostile",
            "client-capabilities",
            json!({}),
            Default::default(),
        )
        .await
        .unwrap();
    let caps = result.structured.unwrap();
    assert_eq!(
        caps["extensions"][switchboard_engine::mcp::UI_EXTENSION],
        json!({"mimeTypes": [switchboard_engine::vocab::mcp::APP_MIME]})
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn each_real_app_servers_ui_resource_is_read_and_stored_with_the_tool_result() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let servers = [
        ("basic", "server-basic-vanillajs", "get-time"),
        ("monitor", "server-system-monitor", "get-system-info"),
        ("budget", "server-budget-allocator", "get-budget-data"),
    ];
    for (name, package, _) in servers {
        started(&engine, npm_app(name, package, Approval::Allow)).await;
    }
    for (name, _, tool) in servers {
        let view = engine
            .mcp()
            .apps()
            .view(name, tool)
            .await
            .unwrap()
            .expect("an App");
        assert_eq!((view.server.as_str(), view.tool.as_str()), (name, tool));
        assert!(
            view.resource_uri.starts_with("ui://"),
            "{}",
            view.resource_uri
        );
        assert!(
            view.html.contains("<html") || view.html.contains("<!DOCTYPE"),
            "{name}"
        );
        let result = engine
            .mcp()
            .call_tool(name, tool, json!({}), Default::default())
            .await
            .unwrap();
        let stored =
            switchboard_engine::mcp::apps_result_json(engine.mcp(), name, tool, &result).await;
        assert_eq!(
            stored["app"]["resourceUri"],
            Value::String(view.resource_uri.clone())
        );
        assert_eq!(stored["is_error"], Value::Bool(false));
    }
    engine.shutdown().await;
}

#[tokio::test]
async fn a_tool_hidden_from_the_model_is_listed_as_app_only_and_apps_may_call_it() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    started(
        &engine,
        npm_app("monitor", "server-system-monitor", Approval::Allow),
    )
    .await;
    let tools = engine.mcp().server_tools("monitor").unwrap();
    let poll = tools
        .iter()
        .find(|t| t.name == "poll-system-stats")
        .unwrap();
    let ui = poll.ui.clone().unwrap();
    assert_eq!(ui.visibility, vec![Visibility::App]);
    assert!(!switchboard_engine::mcp::visible_to_model(Some(&ui)));
    // Unannotated tools always ask unless the user set a policy for them.
    let first = engine
        .mcp()
        .apps()
        .call(call("monitor", "poll-system-stats", None))
        .await
        .unwrap();
    assert_eq!(first, AppCallOutcome::NeedsApproval);
    let allow = Some(Approval::Allow);
    engine
        .mcp()
        .set_tool_policy("monitor", "poll-system-stats", allow)
        .await
        .unwrap();
    let outcome = engine
        .mcp()
        .apps()
        .call(call("monitor", "poll-system-stats", None))
        .await
        .unwrap();
    let AppCallOutcome::Done { result } = outcome else {
        panic!("{outcome:?}")
    };
    assert!(!result.is_error);
    assert!(result.structured.unwrap().get("memory").is_some());
    engine.shutdown().await;
}

#[tokio::test]
async fn an_apps_call_of_a_hidden_tool_or_another_servers_tool_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    started(
        &engine,
        node_server("hostile", "hostile-app.mjs", &[], Approval::Allow),
    )
    .await;
    started(
        &engine,
        npm_app("basic", "server-basic-vanillajs", Approval::Allow),
    )
    .await;
    let hidden = engine
        .mcp()
        .apps()
        .call(call("hostile", "model-only", None))
        .await
        .unwrap_err();
    assert_eq!(hidden.kind(), ErrorKind::InvalidInput);
    assert!(
        hidden.to_string().contains("not callable from Apps"),
        "{hidden}"
    );
    let other = engine
        .mcp()
        .apps()
        .call(call("hostile", "get-time", None))
        .await
        .unwrap_err();
    assert_eq!(other.kind(), ErrorKind::NotFound, "{other}");
    engine.shutdown().await;
}

#[tokio::test]
async fn the_approval_policy_applies_to_an_apps_calls() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    started(
        &engine,
        npm_app("basic", "server-basic-vanillajs", Approval::Ask),
    )
    .await;
    let first = engine
        .mcp()
        .apps()
        .call(call("basic", "get-time", None))
        .await
        .unwrap();
    assert_eq!(first, AppCallOutcome::NeedsApproval);
    let denied = engine
        .mcp()
        .apps()
        .call(call("basic", "get-time", Some(ApprovalAnswer::Deny)))
        .await
        .unwrap_err();
    assert!(denied.to_string().contains("denied"), "{denied}");
    let once = engine
        .mcp()
        .apps()
        .call(call("basic", "get-time", Some(ApprovalAnswer::AllowOnce)))
        .await
        .unwrap();
    assert!(matches!(once, AppCallOutcome::Done { .. }), "{once:?}");
    let for_chat = engine
        .mcp()
        .apps()
        .call(call(
            "basic",
            "get-time",
            Some(ApprovalAnswer::AllowForChat),
        ))
        .await
        .unwrap();
    assert!(matches!(for_chat, AppCallOutcome::Done { .. }));
    let again = engine
        .mcp()
        .apps()
        .call(call("basic", "get-time", None))
        .await
        .unwrap();
    assert!(
        matches!(again, AppCallOutcome::Done { .. }),
        "allow for this chat was not kept"
    );
    engine
        .mcp()
        .set_tool_policy("basic", "get-time", Some(Approval::Deny))
        .await
        .unwrap();
    let refused = engine
        .mcp()
        .apps()
        .call(call("basic", "get-time", Some(ApprovalAnswer::AllowOnce)))
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("denied"), "{refused}");
    engine.shutdown().await;
}
