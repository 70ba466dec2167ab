//! Approval policy: defaults, the read-only opt-in, destructive tools, explicit per-tool
//! policies and "allow for this chat" grants, against a real (temporary) database.

use std::collections::BTreeMap;

use crate::mcp::host::approval::{Asker, Decision, Policies};
use crate::mcp::host::approval::{Inputs, Verdict, resolve, verdict};
use crate::store::Store;
use crate::vocab::ApprovalAnswer;
use crate::vocab::mcp::ToolAnnotations;
use crate::vocab::server::{Approval, ServerConfig, Transport};

async fn store_with(approval: Approval) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).await.unwrap();
    let transport = Transport::Stdio {
        command: "node".to_owned(),
        args: Vec::new(),
        env: BTreeMap::new(),
        cwd: None,
    };
    let mut config = ServerConfig::new("srv", transport);
    config.approval = approval;
    store.insert_server(&config).await.unwrap();
    (dir, store)
}

const PLAIN: ToolAnnotations = ToolAnnotations {
    read_only: None,
    destructive: None,
    idempotent: None,
    open_world: None,
};
const READ_ONLY: ToolAnnotations = ToolAnnotations {
    read_only: Some(true),
    ..PLAIN
};
const DESTRUCTIVE: ToolAnnotations = ToolAnnotations {
    read_only: Some(false),
    destructive: Some(true),
    ..PLAIN
};
const ADDITIVE: ToolAnnotations = ToolAnnotations {
    read_only: Some(false),
    destructive: Some(false),
    ..PLAIN
};

#[test]
fn a_tool_is_destructive_unless_it_says_it_is_read_only_or_not_destructive() {
    use crate::mcp::host::approval::destructive;
    let cases = [
        (PLAIN, true),
        (DESTRUCTIVE, true),
        (ADDITIVE, false),
        (READ_ONLY, false),
        (
            ToolAnnotations {
                read_only: Some(true),
                destructive: Some(true),
                ..PLAIN
            },
            false,
        ),
    ];
    for (annotations, expected) in cases {
        assert_eq!(destructive(&annotations), expected, "{annotations:?}");
    }
}

#[tokio::test]
async fn by_default_every_tool_asks_even_a_read_only_one() {
    let (_dir, store) = store_with(Approval::Ask).await;
    let p = Policies::default();
    for annotations in [PLAIN, READ_ONLY, DESTRUCTIVE] {
        let d = p
            .decide(&store, "srv", "t", &annotations, "c1", &Asker::Model)
            .await
            .unwrap();
        assert_eq!(d, Decision::Ask, "{annotations:?}");
    }
}

#[tokio::test]
async fn read_only_tools_are_auto_allowed_only_with_the_opt_in() {
    let (_dir, store) = store_with(Approval::Ask).await;
    let p = Policies::default();
    let key = crate::mcp::host::approval::AUTO_ALLOW_READ_ONLY;
    store
        .set_setting(key, &serde_json::json!(true))
        .await
        .unwrap();
    let read_only = p
        .decide(&store, "srv", "r", &READ_ONLY, "c1", &Asker::Model)
        .await
        .unwrap();
    let plain = p
        .decide(&store, "srv", "p", &PLAIN, "c1", &Asker::Model)
        .await
        .unwrap();
    assert_eq!((read_only, plain), (Decision::Allow, Decision::Ask));
    store
        .set_setting(key, &serde_json::json!(false))
        .await
        .unwrap();
    let read_only = p
        .decide(&store, "srv", "r", &READ_ONLY, "c1", &Asker::Model)
        .await
        .unwrap();
    assert_eq!(read_only, Decision::Ask);
}

#[tokio::test]
async fn destructive_and_unannotated_tools_are_never_auto_allowed_even_when_the_server_allows_all()
{
    let (_dir, store) = store_with(Approval::Allow).await;
    let p = Policies::default();
    let key = crate::mcp::host::approval::AUTO_ALLOW_READ_ONLY;
    store
        .set_setting(key, &serde_json::json!(true))
        .await
        .unwrap();
    let destructive = p
        .decide(&store, "srv", "d", &DESTRUCTIVE, "c1", &Asker::Model)
        .await
        .unwrap();
    let plain = p
        .decide(&store, "srv", "p", &PLAIN, "c1", &Asker::Model)
        .await
        .unwrap();
    let additive = p
        .decide(&store, "srv", "a", &ADDITIVE, "c1", &Asker::Model)
        .await
        .unwrap();
    assert_eq!(
        (destructive, plain, additive),
        (Decision::Ask, Decision::Ask, Decision::Allow)
    );
}

#[tokio::test]
async fn a_stored_tool_policy_overrides_the_server_default() {
    let (_dir, store) = store_with(Approval::Allow).await;
    let id = store.find_server("srv").await.unwrap().id;
    store
        .set_tool_policy(&id, "rm", Some(Approval::Deny))
        .await
        .unwrap();
    store
        .set_tool_policy(&id, "wipe", Some(Approval::Allow))
        .await
        .unwrap();
    let p = Policies::default();
    let rm = p
        .decide(&store, "srv", "rm", &PLAIN, "c1", &Asker::Model)
        .await
        .unwrap();
    let wipe = p
        .decide(&store, "srv", "wipe", &DESTRUCTIVE, "c1", &Asker::Model)
        .await
        .unwrap();
    assert_eq!((rm, wipe), (Decision::Deny, Decision::Allow));
    store.set_tool_policy(&id, "rm", None).await.unwrap();
    let rm = p
        .decide(&store, "srv", "rm", &ADDITIVE, "c1", &Asker::Model)
        .await
        .unwrap();
    assert_eq!(rm, Decision::Allow);
}

#[tokio::test]
async fn a_tool_policy_belongs_to_its_server_and_an_unknown_server_is_not_found() {
    let (_dir, store) = store_with(Approval::Ask).await;
    let transport = Transport::Stdio {
        command: "node".to_owned(),
        args: Vec::new(),
        env: BTreeMap::new(),
        cwd: None,
    };
    let other = store
        .insert_server(&ServerConfig::new("other", transport))
        .await
        .unwrap();
    store
        .set_tool_policy(&other.id, "rm", Some(Approval::Deny))
        .await
        .unwrap();
    let p = Policies::default();
    let ours = p
        .decide(&store, "srv", "rm", &PLAIN, "c1", &Asker::Model)
        .await
        .unwrap();
    let theirs = p
        .decide(&store, "other", "rm", &PLAIN, "c1", &Asker::Model)
        .await;
    let by_id = p
        .decide(&store, &other.id, "rm", &PLAIN, "c1", &Asker::Model)
        .await;
    assert_eq!(
        (ours, theirs.unwrap(), by_id.unwrap()),
        (Decision::Ask, Decision::Deny, Decision::Deny)
    );
    let missing = p
        .decide(&store, "nope", "rm", &PLAIN, "c1", &Asker::Model)
        .await;
    assert!(
        matches!(missing, Err(crate::store::StoreError::NotFound { .. })),
        "{missing:?}"
    );
}

#[tokio::test]
async fn allow_for_this_chat_is_scoped_to_one_conversation_and_never_beats_deny() {
    let (_dir, store) = store_with(Approval::Ask).await;
    let p = Policies::default();
    p.allow_for_chat("c1", "srv", "d");
    let here = p
        .decide(&store, "srv", "d", &DESTRUCTIVE, "c1", &Asker::Model)
        .await
        .unwrap();
    let there = p
        .decide(&store, "srv", "d", &DESTRUCTIVE, "c2", &Asker::Model)
        .await
        .unwrap();
    let other_tool = p
        .decide(&store, "srv", "e", &PLAIN, "c1", &Asker::Model)
        .await
        .unwrap();
    assert_eq!(
        (here, there, other_tool),
        (Decision::Allow, Decision::Ask, Decision::Ask)
    );
    p.forget_chat("c1");
    let here = p
        .decide(&store, "srv", "d", &DESTRUCTIVE, "c1", &Asker::Model)
        .await
        .unwrap();
    assert_eq!(here, Decision::Ask);
    let denied = Inputs {
        tool_policy: Some(Approval::Deny),
        allowed_for_chat: true,
        ..Inputs::default()
    };
    assert_eq!(resolve(denied), Decision::Deny);
}

#[test]
fn a_server_set_to_deny_refuses_its_tools_unless_a_tool_is_set_otherwise() {
    let server_denies = Inputs {
        server_approval: Approval::Deny,
        read_only: true,
        auto_allow_read_only: true,
        ..Inputs::default()
    };
    assert_eq!(resolve(server_denies), Decision::Deny);
    let tool_asks = Inputs {
        tool_policy: Some(Approval::Ask),
        ..server_denies
    };
    assert_eq!(resolve(tool_asks), Decision::Ask);
}

#[test]
fn the_verdict_runs_allowed_or_approved_calls_and_refuses_denied_ones() {
    use ApprovalAnswer::{AllowAlways, AllowForChat, AllowOnce, Deny};
    assert_eq!(verdict(Decision::Allow, None), Verdict::Run);
    assert_eq!(verdict(Decision::Deny, None), Verdict::Refused);
    assert_eq!(verdict(Decision::Deny, Some(AllowOnce)), Verdict::Refused);
    assert_eq!(verdict(Decision::Ask, None), Verdict::Unanswered);
    assert_eq!(verdict(Decision::Ask, Some(Deny)), Verdict::Refused);
    for answer in [AllowOnce, AllowAlways, AllowForChat] {
        assert_eq!(verdict(Decision::Ask, Some(answer)), Verdict::Run);
    }
}
