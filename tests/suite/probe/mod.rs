//! The tool-use probe against the fake provider servers on 127.0.0.1, in every wire format: a
//! model that calls `get_weather` natively, one that writes the call as JSON in its text, one
//! that calls it only in prompt mode, one that ignores tools, and failures (401, a stall)
//! that find `unknown` with the reason; the result kept, listed, and deciding auto tool mode.

mod auto;
mod ipc;
#[cfg(feature = "local")]
mod local;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_engine::provider::ProviderKind;
use switchboard_engine::providers::NewProvider;
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::store::{ModelProbe, ToolSupport};
use switchboard_engine::{Engine, Paths, Redactor, Secrets};

use super::providers::fake::{FakeProvider, Reply};

/// One scripted answer of the fake model.
#[derive(Clone, Debug)]
pub(super) enum Say {
    /// A native call of `get_weather` for Paris.
    Call,
    /// This text.
    Text(&'static str),
}

/// An answer written as a JSON call (what a model without native tools often does).
pub(super) const JSON_IN_TEXT: &str =
    "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}";
/// An answer that ignores the tool.
pub(super) const PROSE: &str = "I cannot look up the weather, but Paris is often mild in spring.";

/// The preset, base URL suffix and content type of each wire format.
fn wire(kind: ProviderKind) -> (&'static str, &'static str) {
    match kind {
        ProviderKind::Openai | ProviderKind::Local => ("openai-compatible", "/v1"),
        ProviderKind::Ollama => ("ollama", ""),
        ProviderKind::Anthropic => ("anthropic", ""),
        ProviderKind::Gemini => ("gemini", ""),
        ProviderKind::Dashscope => ("dashscope", ""),
    }
}

fn sse(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

/// The answer `say` in `kind`'s wire format.
pub(super) fn reply(kind: ProviderKind, say: &Say) -> Reply {
    let args = json!({"city": "Paris"});
    match kind {
        ProviderKind::Openai | ProviderKind::Local => {
            let delta = match say {
                Say::Call => {
                    json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1",
                    "type": "function", "function": {"name": "get_weather", "arguments": args.to_string()}}]})
                }
                Say::Text(t) => json!({"role": "assistant", "content": t}),
            };
            let finish = if matches!(say, Say::Call) {
                "tool_calls"
            } else {
                "stop"
            };
            let body = sse(&[
                json!({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]}),
                json!({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
            ]) + "data: [DONE]\n\n";
            Reply::ok("text/event-stream", body)
        }
        ProviderKind::Ollama => {
            let message = match say {
                Say::Call => json!({"role": "assistant", "content": "",
                    "tool_calls": [{"function": {"name": "get_weather", "arguments": args}}]}),
                Say::Text(t) => json!({"role": "assistant", "content": t}),
            };
            let lines = [
                json!({"model": "m", "created_at": "2025-07-08T00:43:57Z", "message": message, "done": false}),
                json!({"model": "m", "created_at": "2025-07-08T00:43:58Z", "message": {"role": "assistant", "content": ""},
                    "done_reason": "stop", "done": true, "prompt_eval_count": 90, "eval_count": 20}),
            ];
            let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
            Reply::ok("application/x-ndjson", body)
        }
        ProviderKind::Anthropic => {
            let (block, delta, stop) = match say {
                Say::Call => (
                    json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}),
                    json!({"type": "input_json_delta", "partial_json": args.to_string()}),
                    "tool_use",
                ),
                Say::Text(t) => (
                    json!({"type": "text", "text": ""}),
                    json!({"type": "text_delta", "text": t}),
                    "end_turn",
                ),
            };
            let events = [
                (
                    "message_start",
                    json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                    "role": "assistant", "content": [], "model": "m", "stop_reason": null,
                    "usage": {"input_tokens": 90, "output_tokens": 1}}}),
                ),
                (
                    "content_block_start",
                    json!({"type": "content_block_start", "index": 0, "content_block": block}),
                ),
                (
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": 0, "delta": delta}),
                ),
                (
                    "content_block_stop",
                    json!({"type": "content_block_stop", "index": 0}),
                ),
                (
                    "message_delta",
                    json!({"type": "message_delta", "delta": {"stop_reason": stop},
                    "usage": {"output_tokens": 20}}),
                ),
                ("message_stop", json!({"type": "message_stop"})),
            ];
            let body: String = events
                .iter()
                .map(|(e, d)| format!("event: {e}\ndata: {d}\n\n"))
                .collect();
            Reply::ok("text/event-stream", body)
        }
        ProviderKind::Gemini => {
            let part = match say {
                Say::Call => json!({"functionCall": {"name": "get_weather", "args": args}}),
                Say::Text(t) => json!({"text": t}),
            };
            let body = sse(&[
                json!({"candidates": [{"content": {"parts": [part], "role": "model"},
                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 90, "candidatesTokenCount": 20}}),
            ]);
            Reply::ok("text/event-stream", body)
        }
        ProviderKind::Dashscope => {
            let message = match say {
                Say::Call => json!({"content": "", "role": "assistant", "tool_calls": [{"index": 0,
                    "id": "call_1", "type": "function",
                    "function": {"name": "get_weather", "arguments": args.to_string()}}]}),
                Say::Text(t) => json!({"content": t, "role": "assistant"}),
            };
            let finish = if matches!(say, Say::Call) {
                "tool_calls"
            } else {
                "stop"
            };
            let data = json!({"output": {"choices": [{"message": message, "finish_reason": finish}]},
                "usage": {"input_tokens": 90, "output_tokens": 20}, "request_id": "r"});
            Reply::ok(
                "text/event-stream",
                format!("id:1\nevent:result\n:HTTP_STATUS/200\ndata:{data}\n\n"),
            )
        }
    }
}

/// An engine on a fresh profile in `dir` with an in-memory keychain.
pub(super) async fn engine(dir: &Path) -> Engine {
    let redactor = Redactor::default();
    let store = std::sync::Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(store, std::sync::Arc::new(|_: &str| None), redactor.clone());
    Engine::open(Paths::under(dir), redactor, secrets)
        .await
        .unwrap()
}

/// Adds the fake at `url` as a provider of `kind`; returns its id.
pub(super) async fn add(engine: &Engine, kind: ProviderKind, url: &str) -> String {
    let (preset, suffix) = wire(kind);
    let view = engine
        .providers()
        .add_provider(NewProvider {
            name: format!("fake {preset}"),
            preset: preset.into(),
            base_url: Some(format!("{url}{suffix}")),
            ..Default::default()
        })
        .await
        .unwrap();
    view.provider.id
}

pub(super) const KINDS: [ProviderKind; 5] = [
    ProviderKind::Openai,
    ProviderKind::Ollama,
    ProviderKind::Anthropic,
    ProviderKind::Gemini,
    ProviderKind::Dashscope,
];

/// Probes `fake-model` of a fake of `kind` answering `replies`; the result and the requests.
async fn probe(kind: ProviderKind, replies: Vec<Reply>) -> (ModelProbe, Vec<Value>) {
    let server = FakeProvider::chat_only(replies).await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let id = add(&engine, kind, &server.url).await;
    let found = tokio::time::timeout(
        Duration::from_secs(60),
        engine.providers().probe_model(&id, "fake-model"),
    )
    .await
    .expect("the probe is bounded")
    .unwrap();
    let kept = engine.providers().model_probes(&id).await.unwrap();
    assert_eq!(kept, vec![found.clone()], "the result is kept");
    let bodies = server.seen().into_iter().map(|s| s.body).collect();
    engine.shutdown().await;
    (found, bodies)
}

/// Whether a request body offers `get_weather` natively.
fn offers_natively(body: &Value) -> bool {
    let text = body.to_string();
    let described_in_prompt = text.contains("## get_weather");
    text.contains("get_weather") && !described_in_prompt
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_calls_the_tool_natively_is_native_in_every_wire_format() {
    for kind in KINDS {
        let (found, bodies) = probe(kind, vec![reply(kind, &Say::Call)]).await;
        assert_eq!(found.support, ToolSupport::Native, "{kind:?}: {found:?}");
        assert_eq!(found.model, "fake-model");
        assert_eq!(bodies.len(), 1, "{kind:?}: one request is enough");
        assert!(offers_natively(&bodies[0]), "{kind:?}: {}", bodies[0]);
        assert!(
            bodies[0].to_string().contains("Paris"),
            "{kind:?}: the question"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_writes_the_call_as_json_in_its_text_is_prompt_only() {
    for kind in KINDS {
        let (found, bodies) = probe(kind, vec![reply(kind, &Say::Text(JSON_IN_TEXT))]).await;
        assert_eq!(found.support, ToolSupport::Prompt, "{kind:?}: {found:?}");
        assert!(
            found.note.as_deref().unwrap().contains("as text"),
            "{found:?}"
        );
        assert_eq!(bodies.len(), 1, "{kind:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_calls_only_when_the_tool_is_in_the_prompt_is_prompt_only() {
    let kind = ProviderKind::Openai;
    let (found, bodies) = probe(
        kind,
        vec![
            reply(kind, &Say::Text(PROSE)),
            reply(
                kind,
                &Say::Text("```json\n{\"tool\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```"),
            ),
        ],
    )
    .await;
    assert_eq!(found.support, ToolSupport::Prompt, "{found:?}");
    assert_eq!(bodies.len(), 2);
    assert!(offers_natively(&bodies[0]));
    assert_eq!(bodies[1].get("tools"), None, "{}", bodies[1]);
    assert!(bodies[1].to_string().contains("## get_weather"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endpoint_that_refuses_tools_is_asked_again_in_prompt_mode() {
    let kind = ProviderKind::Ollama;
    let refusal = Reply::status(
        400,
        r#"{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}"#,
    );
    let (found, bodies) = probe(kind, vec![refusal, reply(kind, &Say::Text(JSON_IN_TEXT))]).await;
    assert_eq!(found.support, ToolSupport::Prompt, "{found:?}");
    assert!(
        found
            .note
            .as_deref()
            .unwrap()
            .contains("refused native tools"),
        "{found:?}"
    );
    assert_eq!(bodies.len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_ignores_tools_both_ways_calls_none() {
    for kind in KINDS {
        let (found, bodies) = probe(
            kind,
            vec![
                reply(kind, &Say::Text(PROSE)),
                reply(kind, &Say::Text(PROSE)),
            ],
        )
        .await;
        assert_eq!(found.support, ToolSupport::None, "{kind:?}: {found:?}");
        assert_eq!(bodies.len(), 2, "{kind:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_key_is_unknown_with_the_reason_not_no_tools() {
    let unauthorized = Reply::status(401, r#"{"error":{"message":"Incorrect API key provided"}}"#);
    let (found, bodies) = probe(ProviderKind::Openai, vec![unauthorized]).await;
    assert_eq!(found.support, ToolSupport::Unknown, "{found:?}");
    let note = found.note.unwrap();
    assert!(note.contains("credentials"), "{note}");
    assert!(note.contains("Incorrect API key"), "{note}");
    assert_eq!(bodies.len(), 1, "a failure is not asked again");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_provider_is_unknown_with_the_network_error() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    // A port nothing listens on: bound, then closed.
    let url = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let id = add(&engine, ProviderKind::Openai, &url).await;
    let found = engine.providers().probe_model(&id, "m").await.unwrap();
    assert_eq!(found.support, ToolSupport::Unknown, "{found:?}");
    assert!(
        found.note.as_deref().unwrap().contains("network"),
        "{found:?}"
    );
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn two_asks_for_the_same_model_share_one_probe() {
    let kind = ProviderKind::Openai;
    // One scripted answer: a second probe's request would get the fake's 500.
    let server = FakeProvider::chat_only(vec![reply(kind, &Say::Call)]).await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let id = add(&engine, kind, &server.url).await;
    let (a, b) = tokio::join!(
        engine.providers().probe_model(&id, "fake-model"),
        engine.providers().probe_model(&id, "fake-model"),
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a, b);
    assert_eq!(a.support, ToolSupport::Native);
    assert_eq!(server.seen().len(), 1);
    engine.shutdown().await;
}
