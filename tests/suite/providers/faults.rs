//! The fault matrix, for every wire format: error statuses, a dropped connection, a garbage
//! line, a stall after the headers, an empty answer. Each ends in the typed error, keeps the
//! partial text already streamed, and never hangs.

use std::time::Duration;

use switchboard_engine::provider::{
    ChatMessage, ChatRequest, ProviderError, ProviderEvent, ProviderKind,
};

use super::fake::{FakeProvider, Reply, Send};
use super::{provider, run};

pub(super) const KINDS: [ProviderKind; 5] = [
    ProviderKind::Openai,
    ProviderKind::Ollama,
    ProviderKind::Anthropic,
    ProviderKind::Gemini,
    ProviderKind::Dashscope,
];

pub(super) fn content_type(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Ollama => "application/x-ndjson",
        _ => "text/event-stream",
    }
}

/// A valid beginning of an answer that streams "Hel" then "lo", in each wire format.
pub(super) fn partial(kind: ProviderKind) -> String {
    match kind {
        // The built-in model has no wire format; it is listed so that the match stays total.
        ProviderKind::Openai | ProviderKind::Local => [
            r#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}"#,
            r#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}"#,
        ]
        .map(|l| format!("{l}\n\n"))
        .concat(),
        ProviderKind::Ollama => [
            r#"{"model":"m","created_at":"2025-07-08T00:43:58Z","message":{"role":"assistant","content":"Hel"},"done":false}"#,
            r#"{"model":"m","created_at":"2025-07-08T00:43:58Z","message":{"role":"assistant","content":"lo"},"done":false}"#,
        ]
        .map(|l| format!("{l}\n"))
        .concat(),
        ProviderKind::Anthropic => [
            ("message_start", r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}"#),
            ("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
            ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}"#),
            ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}"#),
        ]
        .map(|(e, d)| format!("event: {e}\ndata: {d}\n\n"))
        .concat(),
        ProviderKind::Gemini => [
            r#"data: {"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}]}"#,
            r#"data: {"candidates":[{"content":{"parts":[{"text":"lo"}],"role":"model"},"index":0}]}"#,
        ]
        .map(|l| format!("{l}\r\n\r\n"))
        .concat(),
        ProviderKind::Dashscope => [
            r#"{"output":{"choices":[{"message":{"content":"Hel","role":"assistant"},"finish_reason":"null"}]},"usage":{"input_tokens":5,"output_tokens":1},"request_id":"r"}"#,
            r#"{"output":{"choices":[{"message":{"content":"lo","role":"assistant"},"finish_reason":"null"}]},"usage":{"input_tokens":5,"output_tokens":2},"request_id":"r"}"#,
        ]
        .iter()
        .enumerate()
        .map(|(i, d)| format!("id:{}\nevent:result\n:HTTP_STATUS/200\ndata:{d}\n\n", i + 1))
        .collect(),
    }
}

fn garbage(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Ollama => "{this is not json\n",
        _ => "data: {this is not json\n\n",
    }
}

fn request() -> ChatRequest {
    ChatRequest {
        model: "test-model".into(),
        messages: vec![ChatMessage::user("hi")],
        ..Default::default()
    }
}

fn hello() -> Vec<ProviderEvent> {
    vec![ProviderEvent::text("Hel"), ProviderEvent::text("lo")]
}

/// Runs one scripted reply against every wire format and checks the outcome.
async fn each_kind(
    reply: impl Fn(ProviderKind) -> Reply,
    check: impl Fn(ProviderKind, Vec<ProviderEvent>, Option<ProviderError>),
) {
    for kind in KINDS {
        let server = FakeProvider::start(vec![reply(kind)]).await;
        let p = provider(kind, &server.url, Some("sk-test"), 1);
        let (events, err) = tokio::time::timeout(Duration::from_secs(10), run(&p, request()))
            .await
            .unwrap_or_else(|_| panic!("{kind:?} hung"));
        check(kind, events, err);
    }
}

#[tokio::test]
async fn a_401_is_an_authentication_error() {
    each_kind(
        |_| Reply::status(401, r#"{"error":{"message":"Incorrect API key provided"}}"#),
        |kind, events, err| {
            assert!(events.is_empty(), "{kind:?}");
            assert_eq!(
                err,
                Some(ProviderError::Auth {
                    status: 401,
                    message: "Incorrect API key provided".into()
                }),
                "{kind:?}"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn a_404_is_model_not_found() {
    each_kind(
        |_| {
            Reply::status(
                404,
                r#"{"error":"model \"test-model\" not found, try pulling it first"}"#,
            )
        },
        |kind, _, err| {
            assert_eq!(
                err,
                Some(ProviderError::ModelNotFound {
                    model: "test-model".into(),
                    message: "model \"test-model\" not found, try pulling it first".into()
                }),
                "{kind:?}"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn a_429_is_rate_limited_with_the_servers_retry_after() {
    each_kind(
        |_| Reply::status(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "7"),
        |kind, _, err| {
            assert_eq!(
                err,
                Some(ProviderError::RateLimited {
                    retry_after: Some(Duration::from_secs(7)),
                    message: "slow down".into()
                }),
                "{kind:?}"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn a_500_and_a_503_are_server_errors() {
    for status in [500, 503] {
        each_kind(
            |_| Reply::status(status, "upstream exploded"),
            |kind, _, err| {
                assert_eq!(
                    err,
                    Some(ProviderError::Server {
                        status,
                        message: "upstream exploded".into()
                    }),
                    "{kind:?}"
                );
            },
        )
        .await;
    }
}

#[tokio::test]
async fn a_connection_dropped_mid_stream_keeps_the_partial_text() {
    each_kind(
        |kind| {
            Reply::ok(content_type(kind), "").with_body(Send::DropAfter(partial(kind).into_bytes()))
        },
        |kind, events, err| {
            assert_eq!(events, hello(), "{kind:?}");
            assert!(
                matches!(err, Some(ProviderError::Network(_))),
                "{kind:?}: {err:?}"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn a_garbage_line_is_a_malformed_stream_after_the_partial_text() {
    each_kind(
        |kind| Reply::ok(content_type(kind), partial(kind) + garbage(kind)),
        |kind, events, err| {
            assert_eq!(events, hello(), "{kind:?}");
            assert!(
                matches!(err, Some(ProviderError::MalformedStream(_))),
                "{kind:?}: {err:?}"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn a_server_that_stalls_after_the_headers_times_out() {
    each_kind(
        |kind| {
            Reply::ok(content_type(kind), "")
                .with_body(Send::StallAfter(partial(kind).into_bytes()))
        },
        |kind, events, err| {
            assert_eq!(events, hello(), "{kind:?}");
            assert_eq!(
                err,
                Some(ProviderError::Timeout(Duration::from_millis(400))),
                "{kind:?}"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn an_empty_200_is_a_malformed_stream() {
    each_kind(
        |kind| Reply::ok(content_type(kind), ""),
        |kind, events, err| {
            assert!(events.is_empty(), "{kind:?}");
            assert!(
                matches!(err, Some(ProviderError::MalformedStream(_))),
                "{kind:?}: {err:?}"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn an_answer_cut_without_its_end_marker_keeps_the_text_and_says_so() {
    each_kind(
        |kind| Reply::ok(content_type(kind), partial(kind)),
        |kind, events, err| {
            assert_eq!(events, hello(), "{kind:?}");
            assert!(
                matches!(err, Some(ProviderError::MalformedStream(_))),
                "{kind:?}: {err:?}"
            );
        },
    )
    .await;
}

#[tokio::test]
async fn a_503_before_the_first_token_is_retried_and_then_succeeds() {
    let done = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let server = FakeProvider::start(vec![
        Reply::status(503, "busy"),
        Reply::ok("text/event-stream", partial(ProviderKind::Openai) + done),
    ])
    .await;
    let p = provider(ProviderKind::Openai, &server.url, None, 3);
    let (events, err) = run(&p, request()).await;
    assert_eq!(err, None);
    assert_eq!(events[..2], hello()[..]);
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection_at_once() {
    let server = FakeProvider::start(vec![
        Reply::ok("text/event-stream", "")
            .with_body(Send::StallAfter(partial(ProviderKind::Openai).into_bytes())),
    ])
    .await;
    let p = provider(ProviderKind::Openai, &server.url, None, 1);
    let mut stream = switchboard_engine::provider::Provider::stream(&p, request())
        .await
        .unwrap();
    let first = futures::StreamExt::next(&mut stream).await;
    assert_eq!(first, Some(Ok(ProviderEvent::text("Hel"))));
    drop(stream);
    let closed = tokio::time::timeout(Duration::from_secs(2), server.body_dropped()).await;
    assert!(closed.is_ok(), "the server still holds the response body");
}
