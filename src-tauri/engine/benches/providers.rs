//! Provider benchmarks: decoding a 10,000-token stream per wire format (cost per chunk), and
//! the time to the first event through `HttpProvider` against a raw reqwest read of the same
//! loopback response (the engine's added latency).
//!
//! `cargo bench -p switchboard-engine --bench providers`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use switchboard_engine::provider::{
    ChatMessage, ChatRequest, Endpoint, HttpOptions, HttpProvider, Provider, ProviderKind, framing,
    wire_format,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TOKENS: usize = 10_000;

/// A 10,000-token answer in `kind`'s wire format.
fn stream_body(kind: ProviderKind) -> String {
    let token = |i: usize| format!("tok{i} ");
    let mut out = String::new();
    match kind {
        // The built-in model has no wire format of its own (it is not parsed from HTTP).
        ProviderKind::Openai | ProviderKind::Local => {
            for i in 0..TOKENS {
                out += &format!(
                    "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1742800010,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{}\"}},\"finish_reason\":null}}]}}\n\n",
                    token(i)
                );
            }
            out += "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
        }
        ProviderKind::Ollama => {
            for i in 0..TOKENS {
                out += &format!(
                    "{{\"model\":\"qwen2.5:3b\",\"created_at\":\"2025-07-08T00:43:58.8729945Z\",\"message\":{{\"role\":\"assistant\",\"content\":\"{}\"}},\"done\":false}}\n",
                    token(i)
                );
            }
            out += "{\"model\":\"qwen2.5:3b\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done_reason\":\"stop\",\"done\":true,\"prompt_eval_count\":3,\"eval_count\":10000}\n";
        }
        ProviderKind::Anthropic => {
            out += "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n";
            out += "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n";
            for i in 0..TOKENS {
                out += &format!(
                    "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{}\"}}}}\n\n",
                    token(i)
                );
            }
            out += "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n";
            out += "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":10000}}\n\n";
            out += "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        }
        ProviderKind::Gemini => {
            for i in 0..TOKENS {
                out += &format!(
                    "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"text\":\"{}\"}}],\"role\":\"model\"}},\"index\":0}}]}}\r\n\r\n",
                    token(i)
                );
            }
            out += "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":10000}}\r\n\r\n";
        }
        ProviderKind::Dashscope => {
            for i in 0..TOKENS {
                out += &format!(
                    "id:{i}\nevent:result\n:HTTP_STATUS/200\ndata:{{\"output\":{{\"choices\":[{{\"message\":{{\"content\":\"{}\",\"role\":\"assistant\"}},\"finish_reason\":\"null\"}}]}},\"usage\":{{\"input_tokens\":3,\"output_tokens\":{i}}},\"request_id\":\"r\"}}\n\n",
                    token(i)
                );
            }
            out += "id:x\nevent:result\n:HTTP_STATUS/200\ndata:{\"output\":{\"choices\":[{\"message\":{\"content\":\"\",\"role\":\"assistant\"},\"finish_reason\":\"stop\"}]},\"usage\":{\"input_tokens\":3,\"output_tokens\":10000},\"request_id\":\"r\"}\n\n";
        }
    }
    out
}

/// The body cut into 16 KiB network reads.
fn reads(body: &str) -> Vec<Vec<u8>> {
    body.as_bytes()
        .chunks(16 * 1024)
        .map(<[u8]>::to_vec)
        .collect()
}

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse_10k_token_stream");
    group.throughput(Throughput::Elements(TOKENS as u64));
    group.sample_size(20);
    for kind in [
        ProviderKind::Openai,
        ProviderKind::Ollama,
        ProviderKind::Anthropic,
        ProviderKind::Gemini,
        ProviderKind::Dashscope,
    ] {
        let body = stream_body(kind);
        let format = wire_format(kind);
        group.bench_function(format!("{kind:?}"), |b| {
            b.iter(|| {
                let events = futures::executor::block_on(framing::decode_all(
                    reads(&body),
                    format.framing(),
                    format.parser(),
                ));
                assert!(events.iter().filter(|e| e.is_ok()).count() >= TOKENS);
                events
            })
        });
    }
    group.finish();
}

/// A loopback HTTP/1.1 server that answers every POST with a short SSE answer, keep-alive.
async fn serve(listener: tokio::net::TcpListener) {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    loop {
        let Ok((mut sock, _)) = listener.accept().await else {
            return;
        };
        let _ = sock.set_nodelay(true);
        tokio::spawn(async move {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            loop {
                let Some(end) = find(&buf, b"\r\n\r\n") else {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                    continue;
                };
                let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                while buf.len() < end + 4 + len {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                buf.drain(..end + 4 + len);
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                );
                if sock.write_all(reply.as_bytes()).await.is_err() {
                    return;
                }
            }
        });
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn first_event(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let url = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(serve(listener));
        url
    });
    let endpoint = Endpoint {
        kind: ProviderKind::Openai,
        base_url: url.clone(),
        headers: Default::default(),
        strict_tools: false,
    };
    let provider = HttpProvider::new(endpoint, None, HttpOptions::default()).unwrap();
    let raw = reqwest::Client::builder()
        .tcp_nodelay(true)
        .build()
        .unwrap();
    let request = ChatRequest {
        model: "m".into(),
        messages: vec![ChatMessage::user("hi")],
        ..Default::default()
    };
    let raw_body = wire_format(ProviderKind::Openai)
        .build(&request)
        .unwrap()
        .body;

    let mut group = c.benchmark_group("time_to_first_event");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("raw_reqwest_first_chunk", |b| {
        b.to_async(&rt).iter(|| async {
            let resp = raw
                .post(format!("{url}/chat/completions"))
                .json(&raw_body)
                .send()
                .await
                .unwrap();
            let mut s = resp.bytes_stream();
            s.next().await.unwrap().unwrap()
        })
    });
    group.bench_function("engine_first_event", |b| {
        b.to_async(&rt).iter(|| async {
            let mut s = provider.stream(request.clone()).await.unwrap();
            s.next().await.unwrap().unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, parse, first_event);
criterion_main!(benches);
