//! What a server may ask of the user's model: a sampling request's `maxTokens` is clamped to
//! the setting (default 4096) before the user sees it, and a server over its rate is refused at
//! once, without a prompt (other servers are not affected).

use std::time::Duration;

use switchboard_engine::mcp::{DEFAULT_MAX_TOKENS, DEFAULT_PER_MINUTE};
use switchboard_engine::mcp::{InteractionEvent, Interactions};
use switchboard_engine::mcp::{
    SamplingContent, SamplingMessage, SamplingRefused, SamplingRequest, SamplingRole,
};

fn ask(max_tokens: u32) -> SamplingRequest {
    SamplingRequest {
        messages: vec![SamplingMessage {
            role: SamplingRole::User,
            content: vec![SamplingContent::Text {
                text: "write a novel".to_owned(),
            }],
        }],
        system_prompt: None,
        max_tokens,
        temperature: None,
        stop_sequences: vec![],
        model_hints: vec![],
    }
}

#[tokio::test]
async fn a_max_tokens_of_a_billion_is_clamped_before_the_user_is_asked() {
    let broker = Interactions::new(Duration::from_secs(30));
    let mut events = broker.subscribe();
    let asking = tokio::spawn({
        let broker = broker.clone();
        async move { broker.sample("greedy", ask(1_000_000_000)).await }
    });
    let InteractionEvent::SamplingRequested { request, .. } = events.recv().await.unwrap() else {
        panic!("not a sampling request");
    };
    assert_eq!(request.max_tokens, DEFAULT_MAX_TOKENS);
    broker.sampling_limits().set_max_tokens(100);
    asking.abort();
    // The abandoned request leaves the window.
    let closed = events.recv().await.unwrap();
    assert!(
        matches!(closed, InteractionEvent::Closed { .. }),
        "{closed:?}"
    );
    let asking = tokio::spawn({
        let broker = broker.clone();
        async move { broker.sample("greedy", ask(1_000_000_000)).await }
    });
    let InteractionEvent::SamplingRequested { request, .. } = events.recv().await.unwrap() else {
        panic!("not a sampling request");
    };
    assert_eq!(request.max_tokens, 100, "the setting is the cap");
    asking.abort();
}

#[tokio::test]
async fn a_server_over_its_sampling_rate_is_refused_without_asking_the_user() {
    let broker = Interactions::new(Duration::from_secs(30));
    let mut events = broker.subscribe();
    let mut waiting = Vec::new();
    for _ in 0..DEFAULT_PER_MINUTE {
        let broker = broker.clone();
        waiting.push(tokio::spawn(async move {
            broker.sample("chatty", ask(10)).await
        }));
        assert!(matches!(
            events.recv().await.unwrap(),
            InteractionEvent::SamplingRequested { .. }
        ));
    }
    let refused = tokio::time::timeout(Duration::from_secs(1), broker.sample("chatty", ask(10)))
        .await
        .expect("the request over the rate waited");
    assert!(
        matches!(refused, Err(SamplingRefused::RateLimited { .. })),
        "{refused:?}"
    );
    assert!(events.try_recv().is_err(), "the user was asked anyway");
    let other = tokio::spawn({
        let broker = broker.clone();
        async move { broker.sample("quiet", ask(10)).await }
    });
    assert!(matches!(
        events.recv().await.unwrap(),
        InteractionEvent::SamplingRequested { server, .. } if server == "quiet"
    ));
    other.abort();
    for task in waiting {
        task.abort();
    }
}
