//! A scripted chat model on 127.0.0.1 that speaks OpenAI's Chat Completions (SSE) on
//! `/v1/chat/completions`, Ollama's native `/api/chat` (NDJSON) and DashScope's native
//! generation endpoint (SSE, seed 000's shape), answering each request
//! with the next scripted reply. Like the real services it **rejects an invalid history**
//! (a tool result without its call, a call without its result, a repeated call id) with a
//! 400, so a test fails when the agent ever sends a broken conversation.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use serde_json::{Value, json};

/// One scripted answer.
#[derive(Clone, Debug)]
pub(super) enum Say {
    /// Text, in one chunk per word.
    Text(String),
    /// Tool calls (provider-safe name, arguments), with an optional text before them.
    Calls(Vec<(String, Value)>),
    /// Text chunks sent `every` apart (a slow model, for stop and crash tests).
    Slow(Vec<String>, Duration),
    /// An error status with its body, as the provider sends it (the request is still
    /// recorded).
    Refuse(u16, Value),
}

/// The running fake; it stops when dropped.
pub(super) struct Model {
    pub url: String,
    state: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Say>>,
    requests: Mutex<Vec<Value>>,
    rejected: Mutex<Vec<String>>,
    /// The paths of the questions about models (the list, Ollama's `/api/show`).
    asked: Mutex<Vec<String>>,
}

/// The context window the fake's model list (OpenRouter's `context_length`) gives.
pub(super) const LISTED_WINDOW: u32 = 65_536;
/// The context length the fake's `/api/show` gives (`qwen3.context_length`).
pub(super) const SHOWN_WINDOW: u32 = 12_288;

impl Drop for Model {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Model {
    /// Starts the fake with its script.
    pub(super) async fn start(script: Vec<Say>) -> Self {
        let state = Arc::new(Shared::default());
        *state.script.lock().unwrap() = script.into();
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { url, state, task }
    }

    /// Every request body received, in order (title requests left out).
    pub(super) fn requests(&self) -> Vec<Value> {
        self.state.requests.lock().unwrap().clone()
    }

    /// The tool names the model was offered in request `i` (OpenAI wire).
    pub(super) fn offered(&self, i: usize) -> Vec<String> {
        let requests = self.requests();
        let tools = requests[i]["tools"].as_array().cloned().unwrap_or_default();
        tools
            .iter()
            .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// The paths of the questions about models asked so far.
    pub(super) fn asked(&self) -> Vec<String> {
        self.state.asked.lock().unwrap().clone()
    }

    /// Why requests were rejected (empty when every history was valid).
    pub(super) fn rejected(&self) -> Vec<String> {
        self.state.rejected.lock().unwrap().clone()
    }
}

async fn handle(State(state): State<Arc<Shared>>, req: Request) -> Response {
    let path = req.uri().path().to_owned();
    let bytes = axum::body::to_bytes(req.into_body(), 64 << 20)
        .await
        .unwrap_or_default();
    if let Some(about) = about_models(&path) {
        state.asked.lock().unwrap().push(path);
        return Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(Body::from(about.to_string()))
            .unwrap();
    }
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let ollama = path.ends_with("/api/chat");
    let dashscope = path.ends_with("/text-generation/generation");
    let problem = if ollama {
        check_ollama(&body)
    } else if dashscope {
        check_openai(&body["input"])
    } else {
        check_openai(&body)
    };
    if let Some(problem) = problem {
        state.rejected.lock().unwrap().push(problem.clone());
        let err = json!({"error": {"message": problem, "type": "invalid_request_error"}});
        return Response::builder()
            .status(400)
            .header("content-type", "application/json")
            .body(Body::from(err.to_string()))
            .unwrap();
    }
    let messages = if dashscope {
        &body["input"]["messages"]
    } else {
        &body["messages"]
    };
    let title = messages
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .is_some_and(|c| c.starts_with("Write a short title"));
    if !title {
        state.requests.lock().unwrap().push(body.clone());
    }
    let next = if title {
        Some(Say::Text("\"Scripted title.\"".into()))
    } else {
        state.script.lock().unwrap().pop_front()
    };
    let Some(say) = next else {
        return Response::builder()
            .status(500)
            .body(Body::from("{\"error\":{\"message\":\"script exhausted\"}}"))
            .unwrap();
    };
    if let Say::Refuse(status, error) = say {
        return Response::builder()
            .status(status)
            .header("content-type", "application/json")
            .body(Body::from(error.to_string()))
            .unwrap();
    }
    let (chunks, every) = if ollama {
        ollama_chunks(&say)
    } else if dashscope {
        dashscope_chunks(&say)
    } else {
        openai_chunks(&say)
    };
    let content_type = if ollama {
        "application/x-ndjson"
    } else {
        "text/event-stream"
    };
    let stream = futures::stream::unfold(chunks.into_iter(), move |mut it| async move {
        let next = it.next()?;
        if !every.is_zero() {
            tokio::time::sleep(every).await;
        }
        Some((Ok::<_, std::convert::Infallible>(next), it))
    });
    Response::builder()
        .status(200)
        .header("content-type", content_type)
        .body(Body::from_stream(stream))
        .unwrap()
}

/// The answer to a question about the models (not a chat request), if `path` asks one.
fn about_models(path: &str) -> Option<Value> {
    if path.ends_with("/models") {
        return Some(json!({"object": "list", "data": [
            {"id": "the-only-model", "object": "model", "context_length": LISTED_WINDOW}]}));
    }
    path.ends_with("/api/show").then(|| {
        json!({"model_info": {"general.architecture": "qwen3",
            "qwen3.context_length": SHOWN_WINDOW, "qwen3.embedding_length": 4096}})
    })
}

fn words(text: &str) -> Vec<String> {
    text.split_inclusive(' ').map(str::to_owned).collect()
}

fn openai_chunks(say: &Say) -> (Vec<String>, Duration) {
    let chunk = |delta: Value, finish: Value| {
        let c = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
            "model": "fake", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {c}\n\n")
    };
    let (mut out, every, finish): (Vec<String>, Duration, &str) = match say {
        Say::Text(t) => (
            words(t).into_iter().map(|w| chunk(json!({"content": w}), Value::Null)).collect(),
            Duration::ZERO,
            "stop",
        ),
        Say::Slow(parts, every) => (
            parts.iter().map(|w| chunk(json!({"content": w}), Value::Null)).collect(),
            *every,
            "stop",
        ),
        Say::Refuse(..) => unreachable!("answered before"),
        Say::Calls(calls) => (
            calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| {
                    let tc = json!([{"index": i, "id": format!("call_{i}_{}", name.len()), "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}}]);
                    chunk(json!({"tool_calls": tc}), Value::Null)
                })
                .collect(),
            Duration::ZERO,
            "tool_calls",
        ),
    };
    out.push(chunk(json!({}), json!(finish)));
    let usage = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "fake",
        "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}});
    out.push(format!("data: {usage}\n\n"));
    out.push("data: [DONE]\n\n".to_owned());
    (out, every)
}

fn ollama_chunks(say: &Say) -> (Vec<String>, Duration) {
    let line = |message: Value| {
        format!(
            "{}\n",
            json!({"model": "fake", "message": message, "done": false})
        )
    };
    let (mut out, every): (Vec<String>, Duration) = match say {
        Say::Text(t) => (
            words(t)
                .into_iter()
                .map(|w| line(json!({"role": "assistant", "content": w})))
                .collect(),
            Duration::ZERO,
        ),
        Say::Slow(parts, every) => (
            parts
                .iter()
                .map(|w| line(json!({"role": "assistant", "content": w})))
                .collect::<Vec<_>>(),
            *every,
        ),
        Say::Refuse(..) => unreachable!("answered before"),
        Say::Calls(calls) => {
            let tc: Vec<Value> = calls
                .iter()
                .map(|(name, args)| json!({"function": {"name": name, "arguments": args}}))
                .collect();
            (
                vec![line(
                    json!({"role": "assistant", "content": "", "tool_calls": tc}),
                )],
                Duration::ZERO,
            )
        }
    };
    let done = json!({"model": "fake", "message": {"role": "assistant", "content": ""}, "done": true,
        "done_reason": "stop", "prompt_eval_count": 12, "eval_count": 5});
    out.push(format!("{done}\n"));
    (out, every)
}

/// DashScope's SSE events (seed 000): each a whole `output.choices[0].message` delta with
/// cumulative usage, `finish_reason` "null" until the last.
fn dashscope_chunks(say: &Say) -> (Vec<String>, Duration) {
    let event = |message: Value, finish: &str| {
        let e = json!({"output": {"choices": [{"message": message, "finish_reason": finish}]},
            "usage": {"input_tokens": 95, "output_tokens": 13, "total_tokens": 108},
            "request_id": "09dc09ea-ed80-9632-bd1d-77d05cde942e"});
        format!("id:1\nevent:result\n:HTTP_STATUS/200\ndata:{e}\n\n")
    };
    let (mut out, every, finish): (Vec<String>, Duration, &str) = match say {
        Say::Text(t) => (
            words(t)
                .into_iter()
                .map(|w| event(json!({"role": "assistant", "content": w}), "null"))
                .collect(),
            Duration::ZERO,
            "stop",
        ),
        Say::Slow(parts, every) => (
            parts
                .iter()
                .map(|w| event(json!({"role": "assistant", "content": w}), "null"))
                .collect(),
            *every,
            "stop",
        ),
        Say::Refuse(..) => unreachable!("answered before"),
        Say::Calls(calls) => {
            let tc: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| {
                    json!({"index": i, "id": format!("call_ds_{i}"),
                    "type": "function", "function": {"name": name, "arguments": args.to_string()}})
                })
                .collect();
            (
                vec![event(
                    json!({"role": "assistant", "content": "", "tool_calls": tc}),
                    "null",
                )],
                Duration::ZERO,
                "tool_calls",
            )
        }
    };
    out.push(event(json!({"role": "assistant", "content": ""}), finish));
    (out, every)
}

/// OpenAI's history rules: every assistant `tool_calls` entry is answered by a `tool`
/// message right after it; no `tool` message answers anything else; ids are unique.
fn check_openai(body: &Value) -> Option<String> {
    let messages = body["messages"].as_array()?;
    let mut pending: HashSet<String> = HashSet::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or("");
        if role == "tool" {
            let id = m["tool_call_id"].as_str().unwrap_or("");
            if !pending.remove(id) {
                return Some(format!(
                    "messages[{i}]: role 'tool' must answer a preceding tool call ({id:?} does not)"
                ));
            }
            continue;
        }
        if !pending.is_empty() {
            return Some(format!(
                "messages[{i}]: tool calls {pending:?} have no tool message"
            ));
        }
        if !["system", "user", "assistant"].contains(&role) {
            return Some(format!("messages[{i}]: invalid role {role:?}"));
        }
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            let id = call["id"].as_str().unwrap_or("").to_owned();
            if id.is_empty() || !seen.insert(id.clone()) {
                return Some(format!(
                    "messages[{i}]: tool call id {id:?} is empty or repeated"
                ));
            }
            let args = call["function"]["arguments"].as_str().unwrap_or("");
            if serde_json::from_str::<serde_json::Map<String, Value>>(args).is_err() {
                return Some(format!("messages[{i}]: arguments are not a JSON object"));
            }
            pending.insert(id);
        }
    }
    if pending.is_empty() {
        None
    } else {
        Some(format!("tool calls {pending:?} have no tool message"))
    }
}

/// Ollama's: a `tool` message follows an assistant message with calls (or another result).
fn check_ollama(body: &Value) -> Option<String> {
    let messages = body["messages"].as_array()?;
    let mut open = 0usize;
    for (i, m) in messages.iter().enumerate() {
        match m["role"].as_str().unwrap_or("") {
            "tool" if open > 0 => open -= 1,
            "tool" => return Some(format!("messages[{i}]: a tool message without a call")),
            "assistant" => {
                if open > 0 {
                    return Some(format!("messages[{i}]: unanswered tool calls"));
                }
                open = m["tool_calls"].as_array().map_or(0, Vec::len);
            }
            _ if open > 0 => return Some(format!("messages[{i}]: unanswered tool calls")),
            _ => {}
        }
    }
    None
}
