//! The built-in model for real (SmolLM2-135M from `scripts/deps.sh`): its answers timed into
//! the measured speed the catalogue scales to each model it lists, and the tool-use probe run
//! on it within its bound, finding an answer rather than `unknown`.

use std::time::Duration;

use futures::StreamExt;
use switchboard_engine::provider::{ChatMessage, ChatRequest, SamplingParams};
use switchboard_engine::store::ToolSupport;

use super::super::local::{one_at_a_time, smollm2};
use super::engine;

const MODEL: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_of_the_built_in_model_is_timed_into_the_catalogues_expected_speeds() {
    let _one = one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let providers = engine.providers();
    providers.provide_default_model(&smollm2()).await.unwrap();
    let before = providers.model_catalogue().await.unwrap();
    assert!(
        before
            .iter()
            .all(|m| m.expected_speed.is_some_and(|s| !s.measured)),
        "an estimate before any answer"
    );
    let local = providers.ensure_local_provider().await.unwrap().provider.id;
    let client = providers.provider_client(&local).await.unwrap();
    let req = ChatRequest {
        model: MODEL.into(),
        messages: vec![ChatMessage::user(
            "Tell me a long story about a lighthouse keeper.",
        )],
        params: SamplingParams {
            temperature: Some(0.0),
            max_tokens: Some(64),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut events = client.stream(req).await.unwrap();
    while let Some(event) = events.next().await {
        event.unwrap();
    }
    // The speed is kept on a task of its own, just after the answer ends.
    let mut after = Vec::new();
    for _ in 0..100 {
        after = providers.model_catalogue().await.unwrap();
        if after[0].expected_speed.is_some_and(|s| s.measured) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let speeds: Vec<f32> = after
        .iter()
        .map(|m| {
            let speed = m.expected_speed.unwrap();
            assert!(speed.measured, "{m:?}");
            speed.tokens_per_second
        })
        .collect();
    assert!(speeds[0] > 0.0, "{speeds:?}");
    assert!(
        speeds.windows(2).all(|w| w[0] >= w[1]),
        "a larger file is slower: {speeds:?}"
    );
    assert_eq!(after.iter().filter(|m| m.recommended).count(), 1);
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_built_in_model_is_probed_within_its_bound() {
    let _one = one_at_a_time().await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let providers = engine.providers();
    providers.provide_default_model(&smollm2()).await.unwrap();
    let local = providers.ensure_local_provider().await.unwrap().provider.id;
    let found = tokio::time::timeout(
        Duration::from_secs(200),
        providers.probe_model(&local, MODEL),
    )
    .await
    .expect("the probe is bounded")
    .unwrap();
    assert_ne!(found.support, ToolSupport::Unknown, "{found:?}");
    assert!(!found.note.unwrap_or_default().is_empty());
    let kept = providers.model_probes(&local).await.unwrap();
    assert_eq!(kept.len(), 1);
    engine.shutdown().await;
}
