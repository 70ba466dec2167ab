//! A turn that calls an MCP App tool (npm's server-system-monitor): tools hidden from the
//! model (`_meta.ui.visibility: ["app"]`) are not offered to it, the App is stored with the
//! tool result (so reopening the conversation renders it again), and the model never sees it.

use serde_json::json;
use switchboard_engine::agent::{ApprovalAnswer, TurnEnd};
use switchboard_engine::mcp::Conflict;
use switchboard_engine::vocab::content::ContentPart;

use super::model::{Model, Say};
use super::{Wire, conversation, engine, send};

fn monitor_js() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/mcp-apps/node_modules/@modelcontextprotocol/server-system-monitor/dist/index.js",
    );
    assert!(
        path.exists(),
        "{} is missing: run scripts/deps.sh test",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_app_tool_result_keeps_its_app_in_history_and_app_only_tools_stay_hidden_from_the_model()
{
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let doc = json!({"mcpServers": {"monitor": {
        "command": "node", "args": [monitor_js(), "--stdio"], "approval": "allow"}}});
    engine
        .mcp()
        .import_servers(&doc.to_string(), Conflict::Skip)
        .await
        .unwrap();
    engine.mcp().start_server("monitor").await.unwrap();
    let model = Model::start(vec![
        Say::Calls(vec![("monitor__get-system-info".into(), json!({}))]),
        Say::Text("Here is your system.".into()),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(
        &engine,
        &conv,
        "How is my machine?",
        ApprovalAnswer::AllowOnce,
    )
    .await;
    assert_eq!(ran.end, TurnEnd::Done);

    let requests = model.requests();
    assert_eq!(model.offered(0), ["monitor__get-system-info"]);
    let sent = requests[1].to_string();
    assert!(
        !sent.contains("mcp-app") && !sent.contains("<html"),
        "the model saw the App"
    );

    let branch = engine.agent().conversation_branch(&conv).await.unwrap();
    let stored = branch
        .iter()
        .flat_map(|m| &m.content)
        .find_map(|p| match p {
            ContentPart::ToolResult { content, .. } => Some(content.clone()),
            _ => None,
        });
    let app = stored.expect("a stored tool result")["app"].clone();
    assert_eq!(app["server"], "monitor");
    assert_eq!(app["tool"], "get-system-info");
    assert_eq!(app["resourceUri"], "ui://system-monitor/mcp-app.html");
    assert!(app["html"].as_str().unwrap().contains("poll-system-stats"));
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}
