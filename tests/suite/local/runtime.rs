//! The runtime with SmolLM2: the same seed gives the same text, the token limit and the end
//! token end an answer, a stop request ends it at once, interleaved conversations keep their
//! own KV cache, and a broken file gives an error naming it while the runtime keeps working.

use std::time::Instant;

use switchboard_engine::local::LocalError;
use switchboard_engine::local::job::Finish;
use switchboard_engine::local::job::{Piece, Sampling};

use super::{chatml, generate, greedy, runtime, smollm2, start};

#[tokio::test(flavor = "multi_thread")]
async fn the_same_seed_gives_the_same_text_twice_greedy_or_sampled() {
    let _one = super::one_at_a_time().await;
    let rt = runtime();
    let prompt = chatml(&[], "Name three colours.");
    let (first, _) = generate(&rt, &prompt, greedy(24)).await;
    let (again, _) = generate(&rt, &prompt, greedy(24)).await;
    assert!(!first.trim().is_empty());
    assert_eq!(first, again);
    let sampled = Sampling {
        temperature: 0.9,
        seed: 42,
        max_tokens: 24,
        ..Sampling::default()
    };
    let (one, _) = generate(&rt, &prompt, sampled.clone()).await;
    let (two, _) = generate(&rt, &prompt, sampled).await;
    assert_eq!(one, two);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_token_limit_and_the_end_token_each_end_an_answer() {
    let _one = super::one_at_a_time().await;
    let rt = runtime();
    let prompt = chatml(&[], "Write a long story about a lighthouse keeper.");
    let (_, limited) = generate(&rt, &prompt, greedy(5)).await;
    assert_eq!((limited.generated, limited.finish), (5, Finish::Length));
    let (text, ended) = generate(&rt, &chatml(&[], "Say hello."), greedy(400)).await;
    assert_eq!(ended.finish, Finish::Eos, "{text}");
    assert!(ended.generated < 400);
    assert!(!text.contains("<|im_end|>"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stop_request_ends_the_generation_before_its_next_token() {
    let _one = super::one_at_a_time().await;
    let rt = runtime();
    let prompt = chatml(&[], "Write a very long story about the sea.");
    let mut running = start(&rt, smollm2(), &prompt, greedy(1500));
    let mut pieces = 0;
    while pieces < 3 {
        match running.rx.recv().await.unwrap().unwrap() {
            Piece::Text(_) => pieces += 1,
            Piece::Started { .. } => {}
            Piece::Done(r) => panic!("ended before the stop: {r:?}"),
        }
    }
    let asked = Instant::now();
    running.stop.stop();
    let stop = running.stop.clone();
    let (_, report) = running.finish().await.unwrap();
    eprintln!(
        "stop honoured {:?} after the request, {} tokens generated",
        asked.elapsed(),
        report.generated
    );
    assert_eq!(report.finish, Finish::Stopped);
    assert!(stop.is_stopped());
    // The pieces already sent, plus at most the token being decoded when the stop came.
    assert!(report.generated < 1500);
}

#[tokio::test(flavor = "multi_thread")]
async fn interleaved_conversations_keep_their_caches_and_evaluate_only_new_tokens() {
    let _one = super::one_at_a_time().await;
    let rt = runtime();
    let a1 = chatml(&[], "What is the capital of France?");
    let b1 = chatml(&[], "Give me a word that rhymes with cat.");
    let (a_answer, ra1) = generate(&rt, &a1, greedy(16)).await;
    let (b_answer, rb1) = generate(&rt, &b1, greedy(16)).await;
    assert_eq!(
        (ra1.reused, rb1.evaluated),
        (0, rb1.prompt_tokens - rb1.reused)
    );
    let a2 = chatml(
        &[("What is the capital of France?", &a_answer)],
        "And of Italy?",
    );
    let b2 = chatml(
        &[("Give me a word that rhymes with cat.", &b_answer)],
        "Another one?",
    );
    let (_, ra2) = generate(&rt, &a2, greedy(8)).await;
    let (_, rb2) = generate(&rt, &b2, greedy(8)).await;
    for (first, second, name) in [(&ra1, &ra2, "A"), (&rb1, &rb2, "B")] {
        eprintln!(
            "conversation {name}: turn 1 evaluated {} of {}; turn 2 evaluated {} of {} ({} reused)",
            first.evaluated,
            first.prompt_tokens,
            second.evaluated,
            second.prompt_tokens,
            second.reused
        );
        assert!(
            second.reused >= first.prompt_tokens,
            "conversation {name} evaluated its history again: {second:?} after {first:?}"
        );
        assert_eq!(second.evaluated, second.prompt_tokens - second.reused);
        assert!(second.evaluated < second.prompt_tokens - first.prompt_tokens + 1);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_truncated_or_foreign_file_is_refused_by_name_and_the_runtime_keeps_working() {
    let _one = super::one_at_a_time().await;
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let truncated = dir.path().join("truncated.gguf");
    let bytes = std::fs::read(smollm2()).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let foreign = dir.path().join("notes.gguf");
    std::fs::write(&foreign, "just some text, not a model").unwrap();
    for path in [&truncated, &foreign] {
        let err = start(&rt, path.clone(), "hello", greedy(4))
            .finish()
            .await
            .unwrap_err();
        assert_eq!(err, LocalError::Unloadable { path: path.clone() });
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(err.to_string().contains(&name), "{err}");
    }
    let (text, report) = generate(&rt, &chatml(&[], "Say hi."), greedy(8)).await;
    assert!(report.generated > 0, "{text}");
    assert_eq!(rt.loaded(), Some(smollm2()));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_unloads_after_the_idle_time_and_loads_again_on_use() {
    let _one = super::one_at_a_time().await;
    let rt =
        switchboard_engine::local::LocalRuntime::start(switchboard_engine::local::RuntimeOptions {
            idle: std::time::Duration::from_millis(200),
            max_context: 1024,
            threads: Some(1),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(rt.loaded(), None);
    generate(&rt, &chatml(&[], "Hi"), greedy(2)).await;
    let waited = tokio::time::timeout(super::HANG_GUARD, async {
        while rt.loaded().is_some() {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "the model stayed loaded");
    let (_, report) = generate(&rt, &chatml(&[], "Hi"), greedy(2)).await;
    assert_eq!(
        report.reused, 0,
        "a reloaded model starts with an empty cache"
    );
}
