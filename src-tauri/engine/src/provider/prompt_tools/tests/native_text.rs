//! Native answers that write their tool call as text: read as the call when it names an
//! offered tool, left as the answer otherwise.

use serde_json::json;

use super::super::scan_native_text;
use crate::provider::{EventStream, FinishReason, ProviderError, ProviderEvent, ToolCall};

const OFFERED: [&str; 2] = ["weather__get_weather", "time__now"];

/// The events of a native answer streamed as `deltas` and scanned.
async fn scan(deltas: &[&str]) -> Vec<ProviderEvent> {
    use futures::StreamExt;
    let mut items: Vec<Result<ProviderEvent, ProviderError>> =
        deltas.iter().map(|d| Ok(ProviderEvent::text(*d))).collect();
    items.push(Ok(ProviderEvent::Finish {
        reason: FinishReason::Stop,
    }));
    let events: EventStream = Box::pin(futures::stream::iter(items));
    let offered = OFFERED.iter().map(|s| (*s).to_owned()).collect();
    let out: Vec<ProviderEvent> = scan_native_text(events, offered)
        .map(Result::unwrap)
        .collect()
        .await;
    merge(out)
}

/// Adjacent text deltas joined, so the assertions do not depend on how text was held.
fn merge(events: Vec<ProviderEvent>) -> Vec<ProviderEvent> {
    let mut out: Vec<ProviderEvent> = Vec::new();
    for e in events {
        match (out.last_mut(), e) {
            (Some(ProviderEvent::TextDelta { text: a }), ProviderEvent::TextDelta { text: b }) => {
                a.push_str(&b)
            }
            (_, e) => out.push(e),
        }
    }
    out
}

fn call(name: &str, arguments: serde_json::Value) -> ProviderEvent {
    ProviderEvent::ToolCall {
        call: ToolCall {
            id: "call_0".into(),
            name: name.into(),
            arguments,
        },
    }
}

fn finish(reason: FinishReason) -> ProviderEvent {
    ProviderEvent::Finish { reason }
}

#[tokio::test]
async fn seed_000s_whole_answer_of_action_json_is_the_call_under_its_full_name() {
    let got = scan(&["{\"action\": \"get_", "weather\", \"location\": \"杭州\"}"]).await;
    assert_eq!(
        got,
        vec![
            call("weather__get_weather", json!({ "location": "杭州" })),
            finish(FinishReason::ToolCalls),
        ]
    );
}

#[tokio::test]
async fn a_leaked_tool_call_tag_after_prose_is_the_call_and_the_prose_stays() {
    let got = scan(&[
        "I'll check the weather.\n<tool",
        "_call>\n{\"name\": \"weather__get_weather\", \"arguments\": {\"location\": \"Boston\"}}\n</tool_call>",
    ])
    .await;
    assert_eq!(
        got,
        vec![
            ProviderEvent::text("I'll check the weather.\n"),
            call("weather__get_weather", json!({ "location": "Boston" })),
            finish(FinishReason::ToolCalls),
        ]
    );
}

#[tokio::test]
async fn json_naming_no_offered_tool_stays_the_answer() {
    let whole = "{\"action\": \"dance\", \"style\": \"waltz\"}";
    assert_eq!(
        scan(&[whole]).await,
        vec![ProviderEvent::text(whole), finish(FinishReason::Stop)]
    );
}

#[tokio::test]
async fn json_in_the_middle_of_an_answer_is_not_taken_as_a_call() {
    let whole =
        "To call it yourself, send {\"name\": \"weather__get_weather\", \"arguments\": {}}.";
    assert_eq!(
        scan(&[whole]).await,
        vec![ProviderEvent::text(whole), finish(FinishReason::Stop)]
    );
}
