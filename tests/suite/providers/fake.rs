//! A fake model provider on 127.0.0.1: real TCP (TCP_NODELAY), real HTTP, replies scripted per
//! test — whole bodies, chunked bodies, a connection dropped mid-body, a body that stalls — and
//! every request recorded for assertions.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use bytes::Bytes;
use futures::stream;

/// How the body of a reply is sent.
#[derive(Clone, Debug)]
pub(crate) enum Send {
    /// In one piece.
    Whole(Vec<u8>),
    /// This prefix, then the connection breaks.
    DropAfter(Vec<u8>),
    /// This prefix, then nothing, forever.
    StallAfter(Vec<u8>),
}

/// One scripted reply.
#[derive(Clone, Debug)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Send,
}

impl Reply {
    pub(crate) fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type", content_type.into())],
            body: Send::Whole(body.into()),
        }
    }

    pub(crate) fn status(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: vec![("content-type", "application/json".into())],
            body: Send::Whole(body.into()),
        }
    }

    pub(crate) fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    pub(crate) fn with_body(mut self, body: Send) -> Self {
        self.body = body;
        self
    }
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub method: String,
    pub path_and_query: String,
    pub headers: Vec<(String, String)>,
    pub body: serde_json::Value,
}

impl Seen {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<Reply>>,
    seen: Mutex<Vec<Seen>>,
    dropped: tokio::sync::Notify,
    /// Questions about models (the model list, `/api/show`, Gemini's model) get an answer that
    /// says nothing, unscripted and unrecorded: for tests that script only the chat.
    quiet_about_models: bool,
}

/// Notifies when the stalled body it travels with is dropped (the client went away).
struct DropSignal(Arc<Script>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.dropped.notify_one();
    }
}

/// The running fake; it stops when dropped.
pub(crate) struct FakeProvider {
    pub url: String,
    script: Arc<Script>,
    _task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeProvider {
    fn drop(&mut self) {
        self._task.abort();
    }
}

impl FakeProvider {
    /// Starts a fake that answers with `replies` in order (then 500).
    pub(crate) async fn start(replies: Vec<Reply>) -> Self {
        Self::serve(replies, false).await
    }

    /// Starts a fake that answers questions about models with nothing to say (an empty list,
    /// an empty object) and everything else with `replies` in order; only the latter are seen.
    pub(crate) async fn chat_only(replies: Vec<Reply>) -> Self {
        Self::serve(replies, true).await
    }

    async fn serve(replies: Vec<Reply>, quiet_about_models: bool) -> Self {
        let script = Arc::new(Script {
            replies: Mutex::new(replies.into()),
            seen: Mutex::default(),
            dropped: Default::default(),
            quiet_about_models,
        });
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            url,
            script,
            _task: task,
        }
    }

    /// Resolves once a stalled response body has been dropped by the server.
    pub(crate) async fn body_dropped(&self) {
        self.script.dropped.notified().await;
    }

    /// Every request so far.
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.script.seen.lock().unwrap().clone()
    }
}

async fn handle(State(script): State<Arc<Script>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, 64 << 20)
        .await
        .unwrap_or_default();
    let path = parts.uri.path();
    let about_models = path.ends_with("/models")
        || path.ends_with("/api/show")
        || (path.contains("/models/") && !path.contains(':'));
    if script.quiet_about_models && about_models {
        let says_nothing = if path.ends_with("/models") {
            "{\"data\":[]}"
        } else {
            "{}"
        };
        return Response::builder()
            .header("content-type", "application/json")
            .body(Body::from(says_nothing))
            .unwrap();
    }
    script.seen.lock().unwrap().push(Seen {
        method: parts.method.to_string(),
        path_and_query: parts
            .uri
            .path_and_query()
            .map(|p| p.to_string())
            .unwrap_or_default(),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_owned()))
            .collect(),
        body: serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
    });
    let reply = script
        .replies
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or_else(|| Reply::status(500, "{\"error\":\"no scripted reply\"}"));
    let mut builder = Response::builder().status(reply.status);
    for (k, v) in &reply.headers {
        builder = builder.header(*k, v);
    }
    builder.body(body_of(reply.body, script.clone())).unwrap()
}

fn body_of(send: Send, script: Arc<Script>) -> Body {
    match send {
        Send::Whole(b) => Body::from(b),
        Send::DropAfter(prefix) => {
            let items: Vec<Result<Bytes, std::io::Error>> = vec![
                Ok(Bytes::from(prefix)),
                Err(std::io::Error::other("connection dropped by the fake")),
            ];
            Body::from_stream(stream::iter(items).then(|i| async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                i
            }))
        }
        Send::StallAfter(prefix) => {
            let signal = DropSignal(script);
            let first = stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(prefix)) });
            let rest = stream::pending().map(move |x: Result<Bytes, std::io::Error>| {
                let _keep = &signal;
                x
            });
            Body::from_stream(first.chain(rest))
        }
    }
}

use futures::StreamExt;
