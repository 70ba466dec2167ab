//! Multi round-trip requests (SEP-2322) end to end against the suite's own 2026-07-28 server
//! ([`super::mrtr_server`]): a tool call answered with `input_required` asks for a form (answered
//! over IPC), a model's answer (approved over IPC, run on a fake OpenAI-compatible provider on
//! 127.0.0.1) and the roots (the configured folders); the call is retried with the answers and
//! the server's `requestState` echoed verbatim, each round in the server log, and the user's
//! answering time does not count against the call timeout. Prompts and resources take the same
//! path; a server that never stops asking is cut off at the bound.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde_json::json;
use switchboard_engine::Engine;
use switchboard_engine::mcp::{ElicitationReply, ElicitationRequest};
use switchboard_engine::mcp::{
    HostCapabilities, HostHandler, InteractionEvent, McpClient, RootInfo,
};
use switchboard_engine::vocab::mcp::ServerNotification;
use switchboard_engine::vocab::mcp::{ResourceBody, ResultPart};
use switchboard_engine::vocab::server::{ServerSpec, Transport};
use tauri::Manager;
use tokio::sync::broadcast;

use super::ipc::{Harness, harness, invoke};
use super::mrtr_server::{self, Asking, STATE};
use super::providers::fake::{FakeProvider, Reply};

fn engine(h: &Harness) -> Engine {
    h.window.state::<Engine>().inner().clone()
}

/// The fake model's streamed answer to the sampling request.
const TEAL: &str = concat!(
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"fake-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Teal.\"},\"finish_reason\":\"stop\"}]}\n\n",
    "data: [DONE]\n\n",
);

/// The next interaction event, within 20 s.
fn next(events: &mut broadcast::Receiver<InteractionEvent>) -> InteractionEvent {
    let event = tauri::async_runtime::block_on(async {
        tokio::time::timeout(Duration::from_secs(20), events.recv()).await
    });
    match event {
        Ok(Ok(event)) => event,
        other => panic!("no interaction event: {other:?}"),
    }
}

/// The id of a form request (skipping `Closed` notices).
fn next_form(events: &mut broadcast::Receiver<InteractionEvent>) -> String {
    loop {
        match next(events) {
            InteractionEvent::ElicitationRequested { id, server, .. } => {
                assert_eq!(server, "mrtr");
                return id;
            }
            InteractionEvent::Closed { .. } => {}
            other => panic!("expected a form, got {other:?}"),
        }
    }
}

fn accept(h: &Harness, id: &str, name: &str) {
    let answer = json!({ "id": id, "answer": { "type": "accept", "content": { "name": name } } });
    invoke(h, "answer_interaction", answer).unwrap();
}

/// Adds and starts the server at `url` with a 1 s call timeout.
fn add_mrtr(h: &Harness, url: &str) {
    let server = json!({ "input": {
        "name": "mrtr", "callTimeoutMs": 1000,
        "transport": { "type": "http", "url": url }
    }});
    invoke(h, "add_server", server).unwrap();
    invoke(h, "start_server", json!({ "name": "mrtr" })).unwrap();
}

fn texts(parts: &[ResultPart]) -> String {
    (parts.iter())
        .map(|p| match p {
            ResultPart::Text { text } => text.clone(),
            other => format!("{other:?}"),
        })
        .collect()
}

/// The server's log lines written by the rounds, once `count` of them are there.
fn mrtr_log(h: &Harness, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let logs = invoke(h, "server_logs", json!({ "name": "mrtr" })).unwrap();
        let lines: Vec<String> = (logs["messages"].as_array().into_iter().flatten())
            .filter_map(|l| l.as_str())
            .filter(|l| l.contains("switchboard/mrtr"))
            .map(str::to_owned)
            .collect();
        if lines.len() >= count || Instant::now() > deadline {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_tool_call_needing_a_form_a_model_and_the_roots_is_fulfilled_through_the_broker_and_retried() {
    let h = harness();
    let engine = engine(&h);
    let server = tauri::async_runtime::block_on(mrtr_server::start(Asking::default()));
    let fake = tauri::async_runtime::block_on(FakeProvider::start(vec![Reply::ok(
        "text/event-stream",
        TEAL,
    )]));
    let provider = json!({ "input": {
        "name": "Fake", "preset": "openai-compatible", "baseUrl": format!("{}/v1", fake.url)
    }});
    invoke(&h, "add_provider", provider).unwrap();
    let choice = json!({ "choice": { "provider": "Fake", "model": "fake-1" } });
    invoke(&h, "set_sampling_model", choice).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let roots = invoke(&h, "set_roots", json!({ "folders": [dir.path()] })).unwrap();
    let root_uri = roots[0]["uri"].as_str().unwrap().to_owned();
    add_mrtr(&h, &server.url);
    let mut events = engine.mcp().interactions().subscribe();
    let call = tauri::async_runtime::spawn({
        let engine = engine.clone();
        async move {
            let call = engine
                .mcp()
                .call_tool("mrtr", "ask_all", json!({}), Default::default());
            call.await
        }
    });
    // Round 1 asks for the form and the model's answer at once (and the roots, answered alone).
    let (mut form, mut sampling) = (None, None);
    while form.is_none() || sampling.is_none() {
        match next(&mut events) {
            InteractionEvent::ElicitationRequested { id, .. } => form = Some(id),
            InteractionEvent::SamplingRequested { id, request, .. } => {
                assert_eq!(request.max_tokens, 20);
                sampling = Some(id);
            }
            InteractionEvent::Closed { .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    // The user takes longer than the 1 s call timeout: only server round trips are timed.
    std::thread::sleep(Duration::from_millis(1500));
    accept(&h, &form.unwrap(), "Ada");
    let approve = json!({ "id": sampling.unwrap(), "answer": { "type": "approve" } });
    invoke(&h, "answer_interaction", approve).unwrap();
    // Round 2 asks for the form again.
    let again = next_form(&mut events);
    accept(&h, &again, "Bob");
    let result = tauri::async_runtime::block_on(call).unwrap().unwrap();
    assert_eq!(
        texts(&result.content),
        format!("hello Ada; the model said Teal.; roots: {root_uri}; then hello Bob")
    );
    assert_eq!(server.asking.bad_states.load(Ordering::SeqCst), 0);
    assert_eq!(fake.seen()[0].body["model"], "fake-1");
    let log = mrtr_log(&h, 3);
    let first = format!(
        "[Info] switchboard/mrtr: tools/call ask_all: round 1 needs input: sampling (colour), \
         elicitation (name), roots (roots); requestState of {} bytes echoed",
        STATE.len()
    );
    assert_eq!(log.first(), Some(&first), "{log:?}");
    assert!(log[1].starts_with("[Info] switchboard/mrtr: tools/call ask_all: round 2 needs input: elicitation (name); requestState of"), "{log:?}");
    assert_eq!(
        log[2],
        "[Info] switchboard/mrtr: tools/call ask_all: completed after 3 rounds"
    );
    tauri::async_runtime::block_on(engine.shutdown());
}

#[test]
fn a_server_that_never_stops_asking_is_cut_off_at_the_bound_with_a_clear_error() {
    let h = harness();
    let engine = engine(&h);
    let server = tauri::async_runtime::block_on(mrtr_server::start(Asking::default()));
    add_mrtr(&h, &server.url);
    let call = engine
        .mcp()
        .call_tool("mrtr", "ask_forever", json!({}), Default::default());
    let error = tauri::async_runtime::block_on(call).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tools/call still needed input after 10 rounds; stopped (a bound on rounds)"
    );
    let log = mrtr_log(&h, 11);
    assert_eq!(log.len(), 11, "{log:?}");
    assert_eq!(
        log[10],
        "[Info] switchboard/mrtr: tools/call ask_forever: gave up after 10 rounds"
    );
    tauri::async_runtime::block_on(engine.shutdown());
}

/// A host that fills every form with name "Cy" and has one root.
struct Filler;

impl HostHandler for Filler {
    fn notify(&self, _notification: ServerNotification) {}

    fn capabilities(&self) -> HostCapabilities {
        HostCapabilities::ALL
    }

    fn roots(&self) -> Vec<RootInfo> {
        vec![RootInfo {
            path: "/srv/data".into(),
            uri: "file:///srv/data".to_owned(),
            name: "data".to_owned(),
        }]
    }

    fn elicit(&self, _request: ElicitationRequest) -> BoxFuture<'static, ElicitationReply> {
        Box::pin(std::future::ready(ElicitationReply::Accept(Some(
            json!({ "name": "Cy" }),
        ))))
    }
}

#[tokio::test]
async fn a_prompt_and_a_resource_needing_input_are_fulfilled_with_the_state_echoed() {
    let server = mrtr_server::start(Asking::default()).await;
    let transport = Transport::Http {
        url: server.url.clone(),
        headers: BTreeMap::new(),
    };
    let client = McpClient::connect(&ServerSpec::new("mrtr", transport), Filler)
        .await
        .unwrap();
    let prompt = client
        .get_prompt("greeting", BTreeMap::new())
        .await
        .unwrap();
    let text = serde_json::to_value(&prompt.messages).unwrap().to_string();
    assert!(text.contains("Greet Cy (state echoed: true)"), "{text}");
    let contents = client.read_resource("mrtr://roots").await.unwrap();
    let bodies: Vec<&ResourceBody> = contents.iter().map(|c| &c.body).collect();
    let expected = ResourceBody::Text("roots: file:///srv/data (state echoed: true)".to_owned());
    assert_eq!(bodies, vec![&expected]);
    client.shutdown().await;
}
