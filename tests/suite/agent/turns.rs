//! Turns against the scripted model and the real server-everything: one call, parallel
//! calls, a chain, a denial, a tool error the model recovers from, the step limit, the loop
//! breaker, stops while streaming and while a tool runs, and a history bigger than the
//! window. After each, the next request must pass the model's history validation.

use std::time::Duration;

use serde_json::json;
use switchboard_engine::agent::{ApprovalAnswer, ChatEvent, TurnEnd};
use switchboard_engine::store::{MessageStatus, Role};
use switchboard_engine::vocab::content::ContentPart;

use super::model::{Model, Say};
use super::*;

fn calls(list: &[(&str, Value)]) -> Say {
    Say::Calls(
        list.iter()
            .map(|(n, a)| ((*n).to_owned(), a.clone()))
            .collect(),
    )
}

fn say(text: &str) -> Say {
    Say::Text(text.to_owned())
}

/// The `role: tool` contents of a request body.
fn tool_contents(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn one_tool_call_runs_on_the_real_server_and_the_model_answers_with_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let model = Model::start(vec![
        calls(&[("everything__echo", json!({"message": "rain in California"}))]),
        say("The tool says: rain in California."),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(
        &engine,
        &conv,
        "What does the echo say?",
        ApprovalAnswer::Deny,
    )
    .await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert_eq!(
        results(&ran.events),
        vec![("Echo: rain in California".to_owned(), false)]
    );
    assert_eq!(text(&ran.events), "The tool says: rain in California.");
    let branch = engine.agent().conversation_branch(&conv).await.unwrap();
    let roles: Vec<Role> = branch.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    assert!(branch.iter().all(|m| m.status == MessageStatus::Complete));
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0]["tools"].as_array().unwrap().len() > 5);
    assert_eq!(tool_contents(&requests[1]), ["Echo: rain in California"]);
    assert_eq!(model.rejected(), Vec::<String>::new());
    let title = engine.store().get_conversation(&conv).await.unwrap().title;
    assert_eq!(
        title, "Scripted title",
        "the model named it after the first turn"
    );
    // Named after its first line at once (the window hears it), then by the model.
    let titles: Vec<&str> = (ran.events.iter())
        .filter_map(|e| match e {
            ChatEvent::Titled { title } => Some(title.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(titles, ["What does the echo say?", title.as_str()]);
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn two_parallel_calls_both_run_and_their_results_keep_the_calls_order() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let model = Model::start(vec![
        calls(&[
            ("everything__get-sum", json!({"a": 2, "b": 3})),
            ("everything__echo", json!({"message": "two"})),
        ]),
        say("Done."),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "Add and echo", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    let requests = model.requests();
    let contents = tool_contents(&requests[1]);
    assert_eq!(contents.len(), 2);
    assert!(contents[0].contains('5'), "{contents:?}");
    assert_eq!(contents[1], "Echo: two");
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_three_step_chain_reuses_call_ids_across_steps_without_breaking_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let model = Model::start(vec![
        calls(&[("everything__echo", json!({"message": "one"}))]),
        calls(&[("everything__echo", json!({"message": "two"}))]),
        calls(&[("everything__echo", json!({"message": "six"}))]),
        say("one, two, six"),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "Chain", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    let steps = ran
        .events
        .iter()
        .filter(|e| matches!(e, ChatEvent::StepFinished { .. }))
        .count();
    assert_eq!(steps, 4);
    assert_eq!(model.requests().len(), 4);
    assert_eq!(
        tool_contents(&model.requests()[3]),
        ["Echo: one", "Echo: two", "Echo: six"]
    );
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_denied_call_does_not_run_and_the_model_is_told_the_user_refused() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "ask").await;
    let model = Model::start(vec![
        calls(&[("everything__echo", json!({"message": "secret"}))]),
        say("You refused, so I did not echo."),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "Echo secret", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert!(
        ran.events
            .iter()
            .any(|e| matches!(e, ChatEvent::ApprovalNeeded { .. }))
    );
    assert!(
        !ran.events
            .iter()
            .any(|e| matches!(e, ChatEvent::ToolStarted { .. }))
    );
    let r = results(&ran.events);
    assert_eq!(r.len(), 1);
    assert!(r[0].1 && r[0].0.contains("denied"), "{r:?}");
    // The chat shows the call as denied, not failed: the event and the stored result say so.
    assert_eq!(denied_marks(&ran.events), [true]);
    let branch = engine.agent().conversation_branch(&conv).await.unwrap();
    let stored: Vec<&serde_json::Value> = (branch.iter().filter(|m| m.role == Role::Tool))
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            ContentPart::ToolResult { content, .. } => Some(content),
            _ => None,
        })
        .collect();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["denied"], json!(true), "{stored:?}");
    // The model is told in words only.
    let told = tool_contents(&model.requests()[1]);
    assert!(
        told[0].contains("denied this tool call") && !told[0].contains("\"denied\""),
        "{told:?}"
    );
    assert_eq!(model.rejected(), Vec::<String>::new());
    assert_eq!(engine.agent().approvals().waiting(), 0);
    engine.shutdown().await;
}

/// For each tool result a turn reported, whether its content is marked denied.
fn denied_marks(events: &[ChatEvent]) -> Vec<bool> {
    events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::ToolResult { content, .. } => {
                Some(content.get("denied") == Some(&json!(true)))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn allow_for_this_chat_asks_once_then_runs_later_calls_of_the_tool_without_asking() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "ask").await;
    let model = Model::start(vec![
        calls(&[("everything__echo", json!({"message": "a"}))]),
        calls(&[("everything__echo", json!({"message": "b"}))]),
        say("ok"),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "twice", ApprovalAnswer::AllowForChat).await;
    assert_eq!(ran.end, TurnEnd::Done);
    let asked = ran
        .events
        .iter()
        .filter(|e| matches!(e, ChatEvent::ApprovalNeeded { .. }))
        .count();
    assert_eq!(asked, 1);
    assert_eq!(
        results(&ran.events),
        vec![("Echo: a".into(), false), ("Echo: b".into(), false)]
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_error_is_fed_back_and_the_model_recovers_with_a_valid_call() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let model = Model::start(vec![
        calls(&[("everything__get-sum", json!({"a": "two", "b": 3}))]),
        calls(&[("everything__nope", json!({}))]),
        calls(&[("everything__get-sum", json!({"a": 2, "b": 3}))]),
        say("5"),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "2+3?", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    let r = results(&ran.events);
    assert!(
        r[0].1 && r[0].0.contains("/a"),
        "a schema violation names the field: {r:?}"
    );
    assert!(
        r[1].1 && r[1].0.contains("no tool named \"everything__nope\""),
        "{r:?}"
    );
    assert!(!r[2].1 && r[2].0.contains('5'), "{r:?}");
    // Failures are not denials.
    assert_eq!(denied_marks(&ran.events), [false, false, false]);
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn max_steps_ends_the_turn_and_the_next_turn_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let echo = || calls(&[("everything__echo", json!({"message": "again"}))]);
    let model = Model::start(vec![echo(), echo(), say("fine")]).await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    set_settings(&engine, &conv, json!({"maxSteps": 2})).await;
    let ran = send(&engine, &conv, "loop", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::MaxSteps);
    let ran = send(&engine, &conv, "stop looping", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_failing_call_three_times_breaks_the_loop() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let bad = || calls(&[("everything__get-sum", json!({"a": "x"}))]);
    let model = Model::start(vec![bad(), bad(), bad(), say("never")]).await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "sum", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::LoopBroken);
    assert_eq!(model.requests().len(), 3);
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_ollama_wire_format_runs_the_same_loop() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let model = Model::start(vec![
        calls(&[("everything__echo", json!({"message": "from ollama"}))]),
        say("It said: from ollama"),
        calls(&[("everything__echo", json!({"message": "again"}))]),
        say("again"),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::Ollama).await;
    let ran = send(&engine, &conv, "Echo", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert_eq!(
        results(&ran.events),
        vec![("Echo: from ollama".into(), false)]
    );
    assert_eq!(text(&ran.events), "It said: from ollama");
    let ran = send(&engine, &conv, "Again", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}

/// Sends in the background; stops the turn once `when` matches an event.
async fn send_and_stop(
    engine: &Engine,
    conv: &str,
    text: &str,
    when: fn(&ChatEvent) -> bool,
) -> Ran {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (e, c) = (engine.clone(), conv.to_owned());
    let watcher = tokio::spawn(async move {
        let mut events = Vec::new();
        while let Some(ev) = rx.recv().await {
            if when(&ev) {
                assert!(e.agent().stop_turn(&c));
            }
            events.push(ev);
        }
        events
    });
    let end = tokio::time::timeout(
        Duration::from_secs(30),
        engine.agent().send_message(conv, text, tx),
    )
    .await
    .expect("the turn hung")
    .unwrap();
    Ran {
        end,
        events: watcher.await.unwrap(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stop_while_streaming_keeps_the_partial_answer_and_the_next_turn_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let slow: Vec<String> = (0..50).map(|i| format!("w{i} ")).collect();
    let model = Model::start(vec![
        Say::Slow(slow, Duration::from_millis(100)),
        say("hello again"),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send_and_stop(&engine, &conv, "talk", |e| {
        matches!(e, ChatEvent::TextDelta { .. })
    })
    .await;
    assert_eq!(ran.end, TurnEnd::Cancelled);
    let branch = engine.agent().conversation_branch(&conv).await.unwrap();
    let last = branch.last().unwrap();
    assert_eq!(
        (last.role, last.status),
        (Role::Assistant, MessageStatus::Cancelled)
    );
    assert!(!engine.agent().turn_running(&conv));
    let ran = send(&engine, &conv, "go on", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    let last = model.requests().last().unwrap().clone();
    let partial = &last["messages"][1];
    assert_eq!(partial["role"], "assistant");
    assert!(
        partial["content"].as_str().unwrap().starts_with("w0 "),
        "{partial}"
    );
    assert_eq!(model.rejected(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stop_while_a_tool_runs_answers_the_call_and_the_next_turn_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let model = Model::start(vec![
        calls(&[(
            "everything__trigger-long-running-operation",
            json!({"duration": 30, "steps": 30}),
        )]),
        say("ok, stopped"),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send_and_stop(&engine, &conv, "long", |e| {
        matches!(e, ChatEvent::ToolStarted { .. })
    })
    .await;
    assert_eq!(ran.end, TurnEnd::Cancelled);
    let r = results(&ran.events);
    assert!(
        r.len() == 1 && r[0].1 && r[0].0.contains("stopped"),
        "{r:?}"
    );
    let ran = send(&engine, &conv, "and now?", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_history_larger_than_the_window_is_trimmed_to_whole_exchanges_and_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let long = "lorem ipsum dolor sit amet ".repeat(150);
    let mut script = Vec::new();
    for _ in 0..6 {
        script.push(calls(&[(
            "everything__echo",
            json!({"message": long.clone()}),
        )]));
        script.push(say("noted"));
    }
    let model = Model::start(script).await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    set_settings(
        &engine,
        &conv,
        json!({"contextWindow": 6000, "servers": ["everything"]}),
    )
    .await;
    for i in 0..6 {
        let ran = send(
            &engine,
            &conv,
            &format!("message {i}"),
            ApprovalAnswer::Deny,
        )
        .await;
        assert_eq!(ran.end, TurnEnd::Done);
    }
    assert_eq!(model.rejected(), Vec::<String>::new());
    let last = model.requests().last().unwrap().clone();
    let messages = last["messages"].as_array().unwrap();
    assert_eq!(
        messages[0]["role"], "user",
        "trimming starts at a user message"
    );
    assert_ne!(
        messages[0]["content"], "message 0",
        "the oldest exchange was dropped"
    );
    assert_eq!(messages.last().unwrap()["role"], "tool");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_conversation_without_a_provider_ends_with_a_clear_error_event() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let conv = engine
        .store()
        .create_conversation(Default::default())
        .await
        .unwrap()
        .id;
    let ran = send(&engine, &conv, "hello?", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Error);
    let message = ran.events.iter().find_map(|e| match e {
        ChatEvent::Error { message, .. } => Some(message.clone()),
        _ => None,
    });
    assert!(message.unwrap().contains("no model provider is configured"));
}

#[tokio::test(flavor = "multi_thread")]
async fn regenerate_and_edit_make_sibling_branches_and_switching_shows_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let model = Model::start(vec![say("first"), say("second"), say("edited answer")]).await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    send(&engine, &conv, "hi", ApprovalAnswer::Deny).await;
    let first = engine.agent().conversation_branch(&conv).await.unwrap();
    let (tx, _rx) = mpsc::unbounded_channel();
    assert_eq!(
        engine.agent().regenerate(&conv, tx).await.unwrap(),
        TurnEnd::Done
    );
    let second = engine.agent().conversation_branch(&conv).await.unwrap();
    assert_eq!(second[0].id, first[0].id, "same user message");
    assert_ne!(second[1].id, first[1].id);
    assert_eq!(
        engine.store().siblings(&first[1].id).await.unwrap().len(),
        2
    );
    let (tx, _rx) = mpsc::unbounded_channel();
    engine
        .agent()
        .edit_and_resend(&first[0].id, "hello", tx)
        .await
        .unwrap();
    let edited = engine.agent().conversation_branch(&conv).await.unwrap();
    assert_eq!(edited.len(), 2);
    assert_ne!(edited[0].id, first[0].id);
    engine.agent().switch_branch(&first[0].id).await.unwrap();
    let back = engine.agent().conversation_branch(&conv).await.unwrap();
    assert_eq!(back[0].id, first[0].id);
    assert_eq!(
        back[1].id, second[1].id,
        "the newest answer under the old message"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_of_a_long_running_tool_reaches_the_turn_as_tool_progress_events() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "allow").await;
    let op = json!({"duration": 1, "steps": 4});
    let model = Model::start(vec![
        calls(&[("everything__trigger-long-running-operation", op)]),
        say("finished"),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let ran = send(&engine, &conv, "long", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    let progress: Vec<(f64, Option<f64>)> = ran
        .events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::ToolProgress {
                progress, total, ..
            } => Some((*progress, *total)),
            _ => None,
        })
        .collect();
    assert_eq!(
        progress,
        [
            (1.0, Some(4.0)),
            (2.0, Some(4.0)),
            (3.0, Some(4.0)),
            (4.0, Some(4.0))
        ]
    );
    let result_at = ran
        .events
        .iter()
        .position(|e| matches!(e, ChatEvent::ToolResult { .. }));
    let last_progress = ran
        .events
        .iter()
        .rposition(|e| matches!(e, ChatEvent::ToolProgress { .. }));
    assert!(
        last_progress < result_at,
        "progress comes before the result"
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_always_allowed_tool_runs_without_asking_in_later_turns() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    with_everything(&engine, "ask").await;
    let model = Model::start(vec![
        calls(&[("everything__echo", json!({"message": "a"}))]),
        say("ok"),
        calls(&[("everything__echo", json!({"message": "b"}))]),
        say("ok again"),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let first = send(&engine, &conv, "one", ApprovalAnswer::AllowAlways).await;
    let asked = |r: &Ran| {
        r.events
            .iter()
            .filter(|e| matches!(e, ChatEvent::ApprovalNeeded { .. }))
            .count()
    };
    assert_eq!(asked(&first), 1);
    let decision = engine
        .mcp()
        .decide("everything", "echo", "another chat")
        .await
        .unwrap();
    assert_eq!(decision, switchboard_engine::mcp::Decision::Allow);
    let second = send(&engine, &conv, "two", ApprovalAnswer::Deny).await;
    assert_eq!(asked(&second), 0, "stored as always allowed");
    assert_eq!(results(&second.events), vec![("Echo: b".to_owned(), false)]);
    engine.shutdown().await;
}
