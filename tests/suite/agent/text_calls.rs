//! Models offered tools natively that write the call as text: a DashScope-native fake answering
//! like seed 000's qwen3 (`{"action": "get_weather", …}` as its whole content) and an
//! OpenAI-compatible one leaking Hermes `<tool_call>` tags. The call runs on the real FastMCP
//! weather server from PyPI and the model gets its result; JSON naming no offered tool stays
//! the answer.

use serde_json::json;
use switchboard_engine::agent::{ApprovalAnswer, TurnEnd};

use super::model::{Model, Say};
use super::*;
use crate::suite::support_py::{WEATHER_TEXT, weather_stdio_config};

/// An engine with the weather server running as `weather` (its calls are approved once).
async fn with_weather(dir: &Path) -> Engine {
    let engine = engine(dir).await;
    engine
        .mcp()
        .add_server(weather_stdio_config("weather"))
        .await
        .unwrap();
    engine.mcp().start_server("weather").await.unwrap();
    engine
}

/// Whether a request body (any wire) carries `text` in a message.
fn carries(body: &Value, text: &str) -> bool {
    body.to_string().contains(text)
}

async fn the_call_written_as_text_runs(wire: Wire, written: &str) {
    let dir = tempfile::tempdir().unwrap();
    let engine = with_weather(dir.path()).await;
    let answer = format!("The forecast says: {WEATHER_TEXT}.");
    let model = Model::start(vec![Say::Text(written.into()), Say::Text(answer.clone())]).await;
    let conv = conversation(&engine, &model.url, wire).await;
    let ran = send(
        &engine,
        &conv,
        "加州天气怎么样？",
        ApprovalAnswer::AllowOnce,
    )
    .await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert_eq!(results(&ran.events), vec![(WEATHER_TEXT.to_owned(), false)]);
    assert!(
        text(&ran.events).ends_with(&answer),
        "{}",
        text(&ran.events)
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        carries(&requests[1], WEATHER_TEXT),
        "the model got the result"
    );
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dashscope_model_answering_like_seed_000_with_action_json_has_the_tool_run() {
    let written = json!({"action": "get_weather", "location": "California"}).to_string();
    the_call_written_as_text_runs(Wire::DashScope, &written).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_openai_compatible_model_leaking_a_tool_call_tag_has_the_tool_run() {
    let call = json!({"name": "weather__get_weather", "arguments": {"location": "California"}});
    let written = format!("Let me look that up.\n<tool_call>\n{call}\n</tool_call>");
    the_call_written_as_text_runs(Wire::OpenAi, &written).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn json_that_names_no_offered_tool_stays_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let engine = with_weather(dir.path()).await;
    let written = json!({"action": "dance", "style": "waltz"}).to_string();
    let model = Model::start(vec![Say::Text(written.clone())]).await;
    let conv = conversation(&engine, &model.url, Wire::DashScope).await;
    let ran = send(&engine, &conv, "Give me JSON", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert_eq!(results(&ran.events), vec![]);
    assert_eq!(text(&ran.events), written);
    assert_eq!(model.requests().len(), 1);
    engine.shutdown().await;
}

/// The ids of the calls a turn proposed.
fn proposed_ids(events: &[ChatEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            ChatEvent::ToolCallProposed { call, .. } => Some(call.id.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_written_as_text_in_a_later_turn_gets_an_id_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let engine = with_weather(dir.path()).await;
    let call = json!({"name": "weather__get_weather", "arguments": {"location": "California"}});
    let written = format!("<tool_call>\n{call}\n</tool_call>");
    let model = Model::start(vec![
        Say::Text(written.clone()),
        Say::Text("Rain.".into()),
        Say::Text(written),
        Say::Text("Still rain.".into()),
    ])
    .await;
    let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
    let first = send(&engine, &conv, "Weather?", ApprovalAnswer::AllowOnce).await;
    let second = send(&engine, &conv, "And now?", ApprovalAnswer::AllowOnce).await;
    let (a, b) = (proposed_ids(&first.events), proposed_ids(&second.events));
    assert_eq!((a.len(), b.len()), (1, 1), "{a:?} {b:?}");
    assert_ne!(
        a[0], b[0],
        "both turns' calls have one id: a card, its result and the history would mix them"
    );
    assert_eq!(
        results(&second.events),
        vec![(WEATHER_TEXT.to_owned(), false)]
    );
    assert_eq!(second.end, TurnEnd::Done);
    engine.shutdown().await;
}
