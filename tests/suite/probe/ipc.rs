//! The probe over IPC (mock runtime, real SQLite, the fake provider on 127.0.0.1):
//! `probe_model` runs it and returns the result in the UI's shape, `model_probes` lists what
//! was kept, "check again" replaces it, and an unknown provider is a typed error.

use serde_json::{Value, json};
use switchboard_engine::provider::ProviderKind;

use super::super::ipc::{harness, invoke};
use super::super::providers::fake::FakeProvider;
use super::{PROSE, Say, reply};

#[test]
fn probe_model_runs_the_probe_keeps_it_and_check_again_replaces_it() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let kind = ProviderKind::Openai;
    let server = runtime.block_on(FakeProvider::chat_only(vec![
        reply(kind, &Say::Call),
        reply(kind, &Say::Text(PROSE)),
        reply(kind, &Say::Text(PROSE)),
    ]));
    let h = harness();
    let input = json!({ "input": { "name": "Fake", "preset": "openai-compatible",
        "baseUrl": format!("{}/v1", server.url) } });
    let added = invoke(&h, "add_provider", input).unwrap();
    let id = added["provider"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        invoke(&h, "model_probes", json!({ "id": id })),
        Ok(json!([]))
    );

    let found = invoke(&h, "probe_model", json!({ "id": id, "model": "qwen3:8b" })).unwrap();
    assert_eq!(found["providerId"], id.as_str());
    assert_eq!(found["model"], "qwen3:8b");
    assert_eq!(found["support"], "native");
    assert!(
        found["note"].as_str().unwrap().contains("native"),
        "{found}"
    );
    assert!(found["checkedAt"].as_i64().unwrap() > 0);
    assert!(found["durationMs"].is_u64());
    assert_eq!(
        invoke(&h, "model_probes", json!({ "id": "Fake" })),
        Ok(json!([found.clone()]))
    );

    let again = invoke(&h, "probe_model", json!({ "id": id, "model": "qwen3:8b" })).unwrap();
    assert_eq!(again["support"], "none", "{again}");
    let kept = invoke(&h, "model_probes", json!({ "id": id })).unwrap();
    assert_eq!(kept.as_array().map(Vec::len), Some(1));
    assert_eq!(kept[0]["support"], "none");
    assert_eq!(server.seen().len(), 3);

    let err = invoke(&h, "probe_model", json!({ "id": "nobody", "model": "m" })).unwrap_err();
    assert_eq!(err["kind"], "not_found", "{err}");
    drop(runtime);
}

#[test]
fn removing_a_provider_forgets_its_probes() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let kind = ProviderKind::Ollama;
    let server = runtime.block_on(FakeProvider::chat_only(vec![reply(kind, &Say::Call)]));
    let h = harness();
    let input = json!({ "input": { "name": "Ollama", "preset": "ollama", "baseUrl": server.url } });
    let added = invoke(&h, "add_provider", input).unwrap();
    let id = added["provider"]["id"].clone();
    let found = invoke(&h, "probe_model", json!({ "id": id, "model": "llama3.2" })).unwrap();
    assert_eq!(found["support"], "native");
    assert_eq!(
        invoke(&h, "remove_provider", json!({ "id": id })),
        Ok(Value::Null)
    );
    let input = json!({ "input": { "name": "Ollama", "preset": "ollama", "baseUrl": server.url } });
    let again = invoke(&h, "add_provider", input).unwrap();
    assert_eq!(
        invoke(&h, "model_probes", json!({ "id": again["provider"]["id"] })),
        Ok(json!([]))
    );
}
