//! Reading a long conversation page by page over IPC (`conversation_messages` with `limit` and
//! `before`), as the chat pane does: its end first, then older pages on scrolling up.

use std::time::Duration;

use serde_json::{Value, json};

use super::ipc::{Harness, harness, invoke};

/// Sends `text` and waits until its turn (which ends with a "no provider" error) is over.
fn send_and_wait(h: &Harness, id: &str, text: &str, expected: usize) {
    let sent = invoke(
        h,
        "send_message",
        json!({ "conversationId": id, "text": text, "onEvent": "__CHANNEL__:7" }),
    );
    assert_eq!(sent, Ok(Value::Null));
    for _ in 0..200 {
        let all = invoke(h, "conversation_messages", json!({ "conversationId": id })).unwrap();
        let running = invoke(h, "stop_generation", json!({ "conversationId": id })).unwrap();
        if all.as_array().map(Vec::len) == Some(expected) && running == json!(false) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the turn for {text:?} did not end");
}

fn texts(messages: &Value) -> Vec<String> {
    let list = messages.as_array().unwrap();
    list.iter()
        .map(|m| m["content"][0]["text"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_conversation_is_read_from_its_end_then_page_by_page_before_the_oldest_message_shown() {
    let h = harness();
    let conv = invoke(&h, "create_conversation", json!({ "input": {} })).unwrap();
    let id = conv["id"].as_str().unwrap().to_owned();
    for i in 0..5 {
        send_and_wait(&h, &id, &format!("message {i}"), i + 1);
    }

    let last = invoke(
        &h,
        "conversation_messages",
        json!({ "conversationId": id, "limit": 2 }),
    )
    .unwrap();
    assert_eq!(texts(&last), ["message 3", "message 4"]);
    let oldest = last[0]["id"].clone();
    let older = invoke(
        &h,
        "conversation_messages",
        json!({ "conversationId": id, "limit": 2, "before": oldest }),
    )
    .unwrap();
    assert_eq!(texts(&older), ["message 1", "message 2"]);
    let first = invoke(
        &h,
        "conversation_messages",
        json!({ "conversationId": id, "limit": 2, "before": older[0]["id"] }),
    )
    .unwrap();
    assert_eq!(texts(&first), ["message 0"]);
    let none = invoke(
        &h,
        "conversation_messages",
        json!({ "conversationId": id, "limit": 2, "before": first[0]["id"] }),
    )
    .unwrap();
    assert_eq!(none, json!([]));
}

#[test]
fn a_page_before_a_message_of_another_conversation_is_refused_as_not_found() {
    let h = harness();
    let a = invoke(&h, "create_conversation", json!({ "input": {} })).unwrap();
    let b = invoke(&h, "create_conversation", json!({ "input": {} })).unwrap();
    let a_id = a["id"].as_str().unwrap().to_owned();
    send_and_wait(&h, &a_id, "only in a", 1);
    let all = invoke(
        &h,
        "conversation_messages",
        json!({ "conversationId": a_id }),
    )
    .unwrap();
    let err = invoke(
        &h,
        "conversation_messages",
        json!({ "conversationId": b["id"], "limit": 10, "before": all[0]["id"] }),
    )
    .unwrap_err();
    assert_eq!(err["kind"], "not_found");
}
