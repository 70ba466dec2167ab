//! An MCP App's approvals (finding 4): the user's "Always" on an App's approval card covers
//! that App's calls of that tool only — not the model's calls of the same tool, not another
//! App of the server — and an identity change of the server drops it.

use switchboard_engine::agent::ApprovalAnswer;
use switchboard_engine::mcp::{AppCallOutcome, Decision};
use switchboard_engine::vocab::server::Approval;

use crate::suite::mcp_apps::{call, npm_app, started};
use crate::suite::servers::engine;

#[tokio::test]
async fn an_apps_always_covers_that_apps_calls_only_and_never_the_models() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    started(
        &engine,
        npm_app("basic", "server-basic-vanillajs", Approval::Ask),
    )
    .await;
    let always = Some(ApprovalAnswer::AllowAlways);
    let granted = engine
        .mcp()
        .apps()
        .call(call("basic", "get-time", always))
        .await
        .unwrap();
    assert!(
        matches!(granted, AppCallOutcome::Done { .. }),
        "{granted:?}"
    );

    // The same App, in another conversation too: no question.
    let mut elsewhere = call("basic", "get-time", None);
    elsewhere.conversation_id = "c2".into();
    let again = engine.mcp().apps().call(elsewhere).await.unwrap();
    assert!(matches!(again, AppCallOutcome::Done { .. }), "{again:?}");

    // The model's call of that tool still asks, and no tool policy was set.
    let model = engine
        .mcp()
        .decide("basic", "get-time", "c1")
        .await
        .unwrap();
    assert_eq!(model, Decision::Ask);
    assert!(
        engine
            .mcp()
            .tool_policies("basic")
            .await
            .unwrap()
            .is_empty()
    );

    // Another App of the same server, and a call that names no App, still ask.
    let mut other = call("basic", "get-time", None);
    other.app = Some("ui://basic/other.html".into());
    let other = engine.mcp().apps().call(other).await.unwrap();
    assert_eq!(other, AppCallOutcome::NeedsApproval);
    let mut nameless = call("basic", "get-time", None);
    nameless.app = None;
    let nameless = engine.mcp().apps().call(nameless).await.unwrap();
    assert_eq!(nameless, AppCallOutcome::NeedsApproval);

    // A denial the user sets for the tool still wins over the App's grant.
    engine
        .mcp()
        .set_tool_policy("basic", "get-time", Some(Approval::Deny))
        .await
        .unwrap();
    let refused = engine
        .mcp()
        .apps()
        .call(call("basic", "get-time", None))
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("denied"), "{refused}");
    engine.shutdown().await;
}

#[tokio::test]
async fn an_apps_always_is_dropped_when_its_server_changes_identity() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let config = npm_app("basic", "server-basic-vanillajs", Approval::Ask);
    started(&engine, config.clone()).await;
    let always = Some(ApprovalAnswer::AllowAlways);
    engine
        .mcp()
        .apps()
        .call(call("basic", "get-time", always))
        .await
        .unwrap();
    let mut moved = config;
    if let switchboard_engine::vocab::server::Transport::Stdio { args, .. } = &mut moved.transport {
        args.push("--changed".into());
    }
    engine.mcp().update_server("basic", moved).await.unwrap();
    let asked = engine
        .mcp()
        .apps()
        .call(call("basic", "get-time", None))
        .await
        .unwrap();
    assert_eq!(
        asked,
        AppCallOutcome::NeedsApproval,
        "the grant outlived the old program"
    );
    engine.shutdown().await;
}
