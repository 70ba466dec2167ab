//! Side by side: one message answered by two scripted models at once, each with its own tool
//! call on the real server-everything and its own approval; the answers are branches under the
//! one user message, the first model's shown, the other kept by a branch switch; bad requests
//! (one model, an unknown provider) are refused before anything is stored.

use serde_json::json;
use switchboard_engine::agent::{ApprovalAnswer, CompareModel, TurnEnd};
use switchboard_engine::store::{NewConversation, Role};

use super::model::{Model, Say};
use super::*;

fn echo(message: &str) -> Say {
    Say::Calls(vec![(
        "everything__echo".into(),
        json!({ "message": message }),
    )])
}

/// Runs a compare, answering every approval with `answer`; the events of each model.
async fn compare(
    engine: &Engine,
    conv: &str,
    text: &str,
    models: &[CompareModel],
    answer: ApprovalAnswer,
) -> (Vec<TurnEnd>, Vec<Vec<ChatEvent>>) {
    let mut senders = Vec::new();
    let mut collecting = Vec::new();
    for _ in models {
        let (tx, rx) = mpsc::unbounded_channel();
        senders.push(tx);
        collecting.push(answering(engine, rx, answer));
    }
    let ends = tokio::time::timeout(
        Duration::from_secs(60),
        engine.agent().compare(conv, text, models, senders),
    )
    .await
    .expect("the compare hung")
    .unwrap();
    let mut events = Vec::new();
    for c in collecting {
        events.push(c.await.unwrap());
    }
    (ends.into_iter().map(|e| e.reason).collect(), events)
}

#[tokio::test(flavor = "multi_thread")]
async fn two_models_answer_one_message_side_by_side_each_with_its_own_tool_call_and_approval() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "ask").await;
    let a = Model::start(vec![echo("from A"), Say::Text("A heard: from A.".into())]).await;
    let b = Model::start(vec![echo("from B"), Say::Text("B heard: from B.".into())]).await;
    let pa = provider(&engine, "fake-a", &a.url).await;
    let pb = provider(&engine, "fake-b", &b.url).await;
    let conv = engine
        .store()
        .create_conversation(NewConversation::default())
        .await
        .unwrap();
    let models = [
        CompareModel {
            provider_id: pa.clone(),
            model: "model-a".into(),
        },
        CompareModel {
            provider_id: pb.clone(),
            model: "model-b".into(),
        },
    ];
    let (ends, events) = compare(
        &engine,
        &conv.id,
        "Echo something",
        &models,
        ApprovalAnswer::AllowOnce,
    )
    .await;
    assert_eq!(ends, [TurnEnd::Done, TurnEnd::Done]);
    for (i, (lane, who)) in events.iter().zip(["A", "B"]).enumerate() {
        let approvals = lane
            .iter()
            .filter(|e| matches!(e, ChatEvent::ApprovalNeeded { .. }))
            .count();
        assert_eq!(approvals, 1, "model {i} asked once for its own call");
        assert_eq!(
            results(lane),
            vec![(format!("Echo: from {who}"), false)],
            "model {i}"
        );
        assert_eq!(text(lane), format!("{who} heard: from {who}."));
        let finished = lane
            .iter()
            .filter(|e| matches!(e, ChatEvent::Finished { .. }))
            .count();
        assert_eq!(finished, 1, "model {i}");
    }
    // Named after the message at once, then after the first model's answer (after its
    // `finished`: all models had to end).
    assert_eq!(
        events[0].first(),
        Some(&ChatEvent::Titled {
            title: "Echo something".into()
        })
    );
    assert!(matches!(events[0].last(), Some(ChatEvent::Titled { .. })));
    // Each model was asked with its own model name and got only its own tool result.
    assert_eq!(a.requests()[0]["model"], "model-a");
    assert_eq!(b.requests()[0]["model"], "model-b");
    assert_eq!(a.requests().len(), 2);
    assert_eq!(b.requests().len(), 2);
    let a_second = a.requests()[1].to_string();
    assert!(a_second.contains("Echo: from A") && !a_second.contains("from B"));

    // One user message; the first model's branch is shown; the second is a sibling branch.
    let branch = engine.agent().conversation_branch(&conv.id).await.unwrap();
    let roles: Vec<Role> = branch.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    assert_eq!(branch[1].model.as_deref(), Some("model-a"));
    let user = &branch[0];
    let Some(ChatEvent::Finished {
        head_id: b_head, ..
    }) = events[1].last().cloned()
    else {
        panic!("no finished event");
    };
    assert!(!b_head.is_empty());
    engine.agent().switch_branch(&b_head).await.unwrap();
    let kept = engine.agent().conversation_branch(&conv.id).await.unwrap();
    assert_eq!(
        kept[0].id, user.id,
        "both answers hang under the one message"
    );
    assert_eq!(kept[3].model.as_deref(), Some("model-b"));
    let title = engine
        .store()
        .get_conversation(&conv.id)
        .await
        .unwrap()
        .title;
    assert_eq!(title, "Scripted title");
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_compare_of_one_model_or_with_an_unknown_provider_is_refused_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let model = Model::start(vec![]).await;
    let p = provider(&engine, "fake", &model.url).await;
    let conv = engine
        .store()
        .create_conversation(NewConversation::default())
        .await
        .unwrap();
    let one = [CompareModel {
        provider_id: p.clone(),
        model: "m".into(),
    }];
    let (tx, _rx) = mpsc::unbounded_channel();
    let err = engine
        .agent()
        .compare(&conv.id, "Hi", &one, vec![tx])
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("2 to 4 models"), "{err}");
    let unknown = [
        one[0].clone(),
        CompareModel {
            provider_id: "nope".into(),
            model: "m".into(),
        },
    ];
    let senders = (0..2).map(|_| mpsc::unbounded_channel().0).collect();
    let err = engine
        .agent()
        .compare(&conv.id, "Hi", &unknown, senders)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
    let branch = engine.agent().conversation_branch(&conv.id).await.unwrap();
    assert!(branch.is_empty());
    assert!(!engine.agent().turn_running(&conv.id));
}

#[tokio::test(flavor = "multi_thread")]
async fn switchboard_chat_compare_prints_each_models_answer_with_its_tokens_and_times() {
    let dir = tempfile::tempdir().unwrap();
    let a = Model::start(vec![Say::Text("Paris, says A.".into())]).await;
    let b = Model::start(vec![Say::Text("Paris, says B.".into())]).await;
    {
        let engine = engine(dir.path()).await;
        provider(&engine, "fake-a", &a.url).await;
        provider(&engine, "fake-b", &b.url).await;
        engine.shutdown().await;
    }
    let data = dir.path().to_owned();
    let o = tokio::task::spawn_blocking(move || {
        crate::suite::support_cli::output_within_limit(
            std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
                .arg("--data-dir")
                .arg(data)
                .args([
                    "chat",
                    "--compare",
                    "fake-a/model-a,fake-b/org/model-b",
                    "Capital of France?",
                ])
                .env_remove("SWITCHBOARD_DATA_DIR")
                .env_remove("RUST_LOG"),
        )
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let at_a = stdout
        .find("── fake-a/model-a · ")
        .expect("model A's header");
    let at_b = stdout
        .find("── fake-b/org/model-b · ")
        .expect("model B's header");
    assert!(at_a < at_b, "{stdout}");
    assert!(stdout[at_a..at_b].contains("Paris, says A."), "{stdout}");
    assert!(stdout[at_b..].contains("Paris, says B."), "{stdout}");
    assert!(stdout.contains("first token"), "{stdout}");
    assert_eq!(b.requests()[0]["model"], "org/model-b");

    let bad = crate::suite::support_cli::output_within_limit(
        std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .arg("--data-dir")
            .arg(dir.path())
            .args(["chat", "--compare", "fake-a", "Hi"])
            .env_remove("SWITCHBOARD_DATA_DIR"),
    );
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("PROVIDER/MODEL"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_fails_ends_its_own_lane_with_an_error_and_the_other_answer_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let good = Model::start(vec![Say::Text("Fine here.".into())]).await;
    let bad = Model::start(vec![Say::Refuse(
        500,
        "{\"error\":{\"message\":\"model crashed\"}}".into(),
    )])
    .await;
    let pb = provider(&engine, "bad", &bad.url).await;
    let pg = provider(&engine, "good", &good.url).await;
    let conv = engine
        .store()
        .create_conversation(NewConversation::default())
        .await
        .unwrap();
    let models = [
        CompareModel {
            provider_id: pb,
            model: "broken".into(),
        },
        CompareModel {
            provider_id: pg,
            model: "fine".into(),
        },
    ];
    let (ends, events) = compare(&engine, &conv.id, "Hi", &models, ApprovalAnswer::Deny).await;
    assert_eq!(ends, [TurnEnd::Error, TurnEnd::Done]);
    assert!(
        events[0]
            .iter()
            .any(|e| matches!(e, ChatEvent::Error { message, .. } if message.contains("HTTP 500"))),
        "{:?}",
        events[0]
    );
    assert_eq!(text(&events[1]), "Fine here.");
    // The failed lane left its error message; the conversation shows the answer that came.
    let branch = engine.agent().conversation_branch(&conv.id).await.unwrap();
    assert_eq!(branch.last().unwrap().model.as_deref(), Some("fine"));
    assert!(!engine.agent().turn_running(&conv.id));
}
