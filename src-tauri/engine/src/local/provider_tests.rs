//! Tool calls as the templates teach them, from recorded model outputs, through the same
//! pipeline a generation goes through (pieces → reasoning split → call scanner).

#![allow(clippy::unwrap_used)]

use futures::StreamExt;
use serde_json::json;

use super::*;
use crate::local::job::Finish;

/// The events for `pieces` streamed by a model, with `tools` offered.
async fn run(pieces: &[&str], tools: &[&str]) -> Vec<ProviderEvent> {
    let (tx, rx) = mpsc::unbounded_channel();
    for p in pieces {
        tx.send(Ok(Piece::Text((*p).to_owned()))).unwrap();
    }
    let report = Report {
        prompt_tokens: 10,
        reused: 0,
        evaluated: 10,
        generated: pieces.len(),
        finish: Finish::Eos,
    };
    tx.send(Ok(Piece::Done(report))).unwrap();
    let names = tools.iter().map(|t| (*t).to_owned()).collect();
    let events = events(rx, Shaper::new(false), StopOnDrop(StopFlag::default()));
    let all: Vec<_> = scan_tool_calls(events, names).collect().await;
    all.into_iter().map(Result::unwrap).collect()
}

fn calls(events: &[ProviderEvent]) -> Vec<(String, serde_json::Value)> {
    events
        .iter()
        .filter_map(|e| match e {
            ProviderEvent::ToolCall { call } => Some((call.name.clone(), call.arguments.clone())),
            _ => None,
        })
        .collect()
}

/// The two calls the array tests write: the weather in Rome, then the time.
fn rome_and_time() -> Vec<(String, serde_json::Value)> {
    vec![
        ("get_weather".into(), json!({ "city": "Rome" })),
        ("get_time".into(), json!({})),
    ]
}

fn finish(events: &[ProviderEvent]) -> Option<&FinishReason> {
    match events.last() {
        Some(ProviderEvent::Finish { reason }) => Some(reason),
        _ => None,
    }
}

#[tokio::test]
async fn hermes_and_qwen_tool_call_tags_become_calls() {
    let got = run(
        &[
            "<tool_call>\n{\"name\": \"get_weather\", \"argu",
            "ments\": {\"city\": \"Paris\"}}\n</tool_call>",
        ],
        &["get_weather"],
    )
    .await;
    assert_eq!(
        calls(&got),
        vec![("get_weather".into(), json!({ "city": "Paris" }))]
    );
    assert_eq!(finish(&got), Some(&FinishReason::ToolCalls));
}

#[tokio::test]
async fn llama_3_json_with_parameters_after_the_python_tag_becomes_a_call() {
    let got = run(
        &[
            "<|python_tag|>",
            "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}",
        ],
        &["get_weather"],
    )
    .await;
    assert_eq!(
        calls(&got),
        vec![("get_weather".into(), json!({ "city": "Oslo" }))]
    );
}

#[tokio::test]
async fn mistral_tool_calls_arrays_become_one_call_each() {
    let got = run(
        &[
            "[TOOL_CALLS]",
            "[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}, ",
            "{\"name\": \"get_time\", \"arguments\": {}}]",
        ],
        &["get_weather", "get_time"],
    )
    .await;
    assert_eq!(calls(&got), rome_and_time());
}

#[tokio::test]
async fn reasoning_then_prose_without_a_call_finishes_normally_with_usage() {
    let got = run(
        &["<think>The user greets.</think>", "Hello!"],
        &["get_weather"],
    )
    .await;
    assert_eq!(
        got[..2],
        [
            ProviderEvent::ReasoningDelta {
                text: "The user greets.".into()
            },
            ProviderEvent::text("Hello!"),
        ]
    );
    assert!(calls(&got).is_empty());
    assert!(matches!(got[2], ProviderEvent::Usage { usage } if usage.input_tokens == 10));
    assert_eq!(finish(&got), Some(&FinishReason::Stop));
}

#[tokio::test]
async fn an_apigen_array_in_one_tool_call_tag_becomes_one_call_each() {
    let got = run(
        &[
            "<tool_call>[\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}},\n",
            "{\"name\": \"get_time\", \"arguments\": {}}\n]</tool_call>",
        ],
        &["get_weather", "get_time"],
    )
    .await;
    assert_eq!(calls(&got), rome_and_time());
    assert_eq!(finish(&got), Some(&FinishReason::ToolCalls));
}

#[test]
fn an_answer_to_tool_results_is_sampled_cooler_unless_the_chat_sets_a_temperature() {
    let mut req = ChatRequest {
        messages: vec![ChatMessage::user("What time is it in Tokyo?")],
        ..Default::default()
    };
    assert_eq!(sampling(&req).temperature, DEFAULT_TEMPERATURE);
    req.messages.push(ChatMessage::Assistant {
        text: String::new(),
        tool_calls: vec![crate::provider::ToolCall {
            id: "c1".into(),
            name: "get_current_time".into(),
            arguments: json!({"timezone": "Asia/Tokyo"}),
        }],
    });
    req.messages.push(ChatMessage::Tool {
        call_id: "c1".into(),
        name: "get_current_time".into(),
        content: "{\"datetime\": \"2026-12-07T18:24:16+09:00\"}".into(),
        is_error: false,
    });
    assert_eq!(sampling(&req).temperature, RESULTS_TEMPERATURE);
    req.params.temperature = Some(0.9);
    assert_eq!(sampling(&req).temperature, 0.9);
}
