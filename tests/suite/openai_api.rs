//! The OpenAI-compatible API of `switchboard serve` (`/v1/models`, `/v1/chat/completions`),
//! reached by the official `openai` Python package with a token made by `switchboard clients
//! add`, in front of an Ollama provider (a fake on 127.0.0.1 replaying Ollama's recorded
//! wire captures): the client speaks OpenAI, the provider hears Ollama's format, and neither
//! the client's token nor anything of the provider's crosses to the other side. An assistant
//! is a model too: its MCP tools (`mcp-server-time` from PyPI) run inside Switchboard, under
//! the user's policy and the client's allow-list, and the client sees only the answer.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::mcp_serve::profile;
use super::mcp_serve_http::{Served, add_client, cli};
use super::providers::fake::{FakeProvider, Reply};
use super::servers::engine;
use super::support_py::{fixtures_py, json_report, venv_python};

/// A recorded provider reply from `tests/fixtures/providers`.
fn capture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/providers")
            .join(name),
    )
    .unwrap()
}

/// `openai_client.py` against `base_url` with `model` (and a plain `question`): its report.
async fn openai_client(
    base_url: String,
    model: &str,
    token: &str,
    question: Option<&str>,
) -> Value {
    openai_client_args(base_url, model, token, question.into_iter().collect()).await
}

/// `openai_client.py BASE_URL MODEL ARGS…`: its report.
async fn openai_client_args(base_url: String, model: &str, token: &str, args: Vec<&str>) -> Value {
    let (model, token) = (model.to_owned(), token.to_owned());
    let question: Vec<String> = args.into_iter().map(str::to_owned).collect();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(venv_python())
            .arg(fixtures_py().join("openai_client.py"))
            .args([&base_url, &model])
            .args(question)
            .env("SB_TOKEN", token)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    json_report(&out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_openai_client_streams_a_tool_call_and_gets_the_answer_from_an_ollama_provider() {
    let ollama = FakeProvider::start(vec![
        Reply::ok(
            "application/json",
            r#"{"models":[{"name":"qwen2.5:3b","model":"qwen2.5:3b"}]}"#,
        ),
        Reply::ok(
            "application/x-ndjson",
            capture("seed003_ollama_tool_call.ndjson"),
        ),
        Reply::ok(
            "application/x-ndjson",
            capture("seed003_ollama_answer.ndjson"),
        ),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let (ok, said) = cli(
        dir.path(),
        &[
            "providers",
            "add",
            "Home Ollama",
            "--preset",
            "ollama",
            "--base-url",
            &ollama.url,
        ],
    );
    assert!(ok, "{said}");
    let token = add_client(dir.path(), &["script"]);
    let served = Served::start(dir.path());
    let base = served.url.replace("/mcp", "/v1");

    let report = openai_client(base, "home-ollama/qwen2.5:3b", &token, None).await;

    assert_eq!(
        report["models"],
        json!(["home-ollama/qwen2.5:3b"]),
        "{report}"
    );
    let streamed = &report["streamed"];
    assert_eq!(streamed["text"], "", "{report}");
    assert_eq!(streamed["finish"], "tool_calls", "{report}");
    assert_eq!(
        streamed["calls"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    assert_eq!(streamed["calls"][0]["name"], "get_weather", "{report}");
    let arguments: Value =
        serde_json::from_str(streamed["calls"][0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"location": "California"}));
    assert!(
        streamed["calls"][0]["id"]
            .as_str()
            .is_some_and(|id| !id.is_empty()),
        "{report}"
    );
    assert_eq!(
        streamed["usage"],
        json!({"prompt": 273, "completion": 20}),
        "{report}"
    );

    let whole = &report["whole"];
    assert_eq!(whole["object"], "chat.completion", "{report}");
    assert_eq!(whole["finish"], "stop", "{report}");
    assert!(
        whole["text"]
            .as_str()
            .unwrap()
            .starts_with("The weather report indicates"),
        "{report}"
    );

    assert_eq!(report["unknown_model"]["status"], 404, "{report}");
    assert!(
        report["unknown_model"]["message"]
            .as_str()
            .unwrap()
            .contains("no model `nobody/nothing`"),
        "{report}"
    );
    assert_eq!(report["wrong_token"]["status"], 401, "{report}");
    assert!(
        report["wrong_token"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown or was revoked"),
        "{report}"
    );

    // The provider heard Ollama's own format, and never the client's token.
    let seen = ollama.seen();
    let paths: Vec<&str> = seen.iter().map(|s| s.path_and_query.as_str()).collect();
    assert_eq!(paths, ["/api/tags", "/api/chat", "/api/chat"]);
    let first = &seen[1].body;
    assert_eq!(first["model"], "qwen2.5:3b");
    assert_eq!(first["stream"], true);
    assert_eq!(first["tools"][0]["function"]["name"], "get_weather");
    let second = seen[2].body["messages"].as_array().unwrap();
    let result = second
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("a tool message");
    assert_eq!(result["content"], "Sunny, 24 °C");
    for s in &seen {
        let said = format!("{:?}", s.headers);
        assert!(
            !said.contains(&token),
            "the client's token reached the provider: {said}"
        );
    }
}

/// One OpenAI streamed reply (server-sent events) of `chunks` deltas, then `finish`.
fn openai_sse(deltas: &[Value], finish: &str) -> Vec<u8> {
    let mut out = String::new();
    let chunk = |delta: &Value, finish: Value| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    for delta in deltas {
        out += &format!("data: {}\n\n", chunk(delta, Value::Null));
    }
    out += &format!("data: {}\n\n", chunk(&json!({}), json!(finish)));
    out += "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":5,\"total_tokens\":16}}\n\n";
    out += "data: [DONE]\n\n";
    out.into_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_assistant_answers_an_openai_client_running_its_mcp_tool_inside_switchboard() {
    let tool_call = json!({"tool_calls": [{"index": 0, "id": "call_7", "type": "function",
        "function": {"name": "clock__get_current_time", "arguments": "{\"timezone\":\"Asia/Tokyo\"}"}}]});
    let provider = FakeProvider::chat_only(vec![
        Reply::ok(
            "text/event-stream",
            openai_sse(
                &[json!({"content": "Let me look."}), tool_call],
                "tool_calls",
            ),
        ),
        Reply::ok(
            "text/event-stream",
            openai_sse(
                &[
                    json!({"content": "In Tokyo it is "}),
                    json!({"content": "evening."}),
                ],
                "stop",
            ),
        ),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    profile(dir.path()).await;
    let (ok, said) = cli(
        dir.path(),
        &[
            "providers",
            "add",
            "Fake",
            "--preset",
            "openai-compatible",
            "--base-url",
            &provider.url,
        ],
    );
    assert!(ok, "{said}");
    {
        let engine = engine(dir.path()).await;
        let record = engine.store().find_provider("Fake").await.unwrap();
        let draft = switchboard_engine::store::AssistantDraft {
            name: "Time Keeper".into(),
            system_prompt: "You tell the time.".into(),
            provider_id: Some(record.id),
            model: Some("m".into()),
            settings: json!({"servers": ["clock", "guarded"], "temperature": 0.3, "topP": 0.8}),
            ..Default::default()
        };
        engine.store().insert_assistant(&draft).await.unwrap();
        engine.shutdown().await;
    }
    let token = add_client(dir.path(), &["Notebook", "--servers", "clock"]);
    let served = Served::start(dir.path());
    let base = served.url.replace("/mcp", "/v1");

    let report = openai_client(
        base,
        "assistant/time-keeper",
        &token,
        Some("What time is it in Tokyo?"),
    )
    .await;

    assert!(
        report["models"]
            .as_array()
            .unwrap()
            .contains(&json!("assistant/time-keeper")),
        "{report}"
    );
    let streamed = &report["streamed"];
    // Each model call's text, a blank line between them.
    assert_eq!(
        streamed["text"], "Let me look.\n\nIn Tokyo it is evening.",
        "{report}"
    );
    assert_eq!(streamed["finish"], "stop", "{report}");
    // Both model calls' usage, summed.
    assert_eq!(
        streamed["usage"],
        json!({"prompt": 22, "completion": 10}),
        "{report}"
    );

    let seen = provider.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    let first = &seen[0].body;
    assert_eq!(first["model"], "m");
    // The app's own temperature wins; what it left out comes from the assistant.
    assert_eq!(first["temperature"], 0.0);
    assert_eq!(first["top_p"], 0.8);
    assert_eq!(first["messages"][0]["content"], "You tell the time.");
    // The client may reach `clock` only: `guarded`'s tools are not offered.
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"clock__get_current_time"), "{offered:?}");
    assert!(
        offered.iter().all(|n| n.starts_with("clock__")),
        "{offered:?}"
    );
    // The tool ran in Switchboard, and its real result went back to the model.
    let messages = seen[1].body["messages"].as_array().unwrap();
    let result = messages
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("a tool result");
    assert_eq!(result["tool_call_id"], "call_7");
    let content = result["content"].as_str().unwrap();
    assert!(
        content.contains("Asia/Tokyo") && content.contains("datetime"),
        "{content}"
    );

    let (ok, said) = cli(dir.path(), &["clients", "calls", "notebook"]);
    assert!(
        ok && said.contains("clock/get_current_time  done"),
        "{said}"
    );
}

#[tokio::test]
async fn an_unknown_assistant_a_second_choice_and_a_broken_body_are_refused_naming_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let token = add_client(dir.path(), &["curl"]);
    let served = Served::start(dir.path());
    let url = served.url.replace("/mcp", "/v1/chat/completions");
    let post = |body: Value| {
        let (url, token) = (url.clone(), token.clone());
        async move {
            reqwest::Client::new()
                .post(url)
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    let user = json!([{"role": "user", "content": "hi"}]);
    let answer = post(json!({"model": "assistant/nobody", "messages": user})).await;
    assert_eq!(answer.status(), 404);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["error"]["code"], "model_not_found", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("assistant/NAME"),
        "{body}"
    );

    let answer = post(json!({"model": "local/x", "n": 3, "messages": user})).await;
    assert_eq!(answer.status(), 400);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["error"]["param"], "n", "{body}");
    assert_eq!(body["error"]["type"], "invalid_request_error", "{body}");

    let answer = reqwest::Client::new()
        .post(&url)
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body("{\"model\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 400);
    let body: Value = answer.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a chat completion request"),
        "{body}"
    );

    // A chat body may carry images (up to 16 MiB): 6 MiB is read (and refused as not JSON)…
    let big = |n: usize| {
        let (url, token) = (url.clone(), token.clone());
        async move {
            reqwest::Client::new()
                .post(url)
                .bearer_auth(token)
                .header("content-type", "application/json")
                .body(vec![b'x'; n])
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(big(6 << 20).await, 400);
    // …and past the cap it is refused unread.
    assert_eq!(big(17 << 20).await, 413);

    // A path the API does not have says which it has, in OpenAI's shape.
    let answer = reqwest::Client::new()
        .get(url.replace("/chat/completions", "/files"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 404);
    let body: Value = answer.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/v1/embeddings"),
        "{body}"
    );
}

#[tokio::test]
async fn the_built_in_embedder_makes_vectors_for_an_openai_client_in_base64_as_it_asks() {
    let dir = tempfile::tempdir().unwrap();
    let token = add_client(dir.path(), &["embedder"]);
    let gguf = super::knowledge::embed_gguf();
    let served = Served::start_with(dir.path(), &[("SWITCHBOARD_EMBED_GGUF", &gguf)]);
    let base = served.url.replace("/mcp", "/v1");
    let texts = vec![
        "--embed",
        "空调遥控器怎么设置温度",
        "How do I set the temperature on the air conditioner remote?",
        "Bake the bread for forty minutes at 200 degrees.",
    ];
    let report = openai_client_args(base, "local", &token, texts).await;
    let e = &report["embeddings"];
    assert_eq!(e["lengths"], json!([384, 384, 384]), "{report}");
    assert_eq!(e["norms"], json!([1.0, 1.0, 1.0]), "{report}");
    // The Chinese question is nearer its English twin than the bread.
    let cos: Vec<f64> = e["cosines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_f64().unwrap())
        .collect();
    assert!(cos[0] > cos[1], "{report}");
    assert!(e["usage"].as_u64().unwrap() > 10, "{report}");
}

#[tokio::test]
async fn the_built_in_model_streams_an_answer_to_an_openai_client_as_local() {
    let dir = tempfile::tempdir().unwrap();
    let gguf = super::local::smollm2();
    let (ok, said) = cli(dir.path(), &["models", "import", gguf.to_str().unwrap()]);
    assert!(ok, "{said}");
    let token = add_client(dir.path(), &["script"]);
    let served = Served::start(dir.path());
    let base = served.url.replace("/mcp", "/v1");

    let report = openai_client(
        base,
        "local",
        &token,
        Some("What is the capital of France?"),
    )
    .await;

    let name = gguf.file_stem().unwrap().to_str().unwrap();
    assert!(
        report["models"].as_array().unwrap().iter().any(|m| m
            .as_str()
            .is_some_and(|m| m.starts_with("local/") && m.contains(name))),
        "{report}"
    );
    let streamed = &report["streamed"];
    assert!(
        streamed["text"]
            .as_str()
            .is_some_and(|t| !t.trim().is_empty()),
        "{report}"
    );
    assert!(
        ["stop", "length"].contains(&streamed["finish"].as_str().unwrap_or("")),
        "{report}"
    );
    assert!(
        streamed["usage"]["prompt"].as_u64().unwrap() > 5,
        "{report}"
    );
    assert!(
        streamed["usage"]["completion"].as_u64().unwrap() <= 64,
        "{report}"
    );
}

#[tokio::test]
async fn embeddings_without_the_built_in_embedder_file_are_refused_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let token = add_client(dir.path(), &["script"]);
    let missing = dir.path().join("no-such-embedder.gguf");
    let served = Served::start_with(dir.path(), &[("SWITCHBOARD_EMBED_GGUF", &missing)]);
    let answer = reqwest::Client::new()
        .post(served.url.replace("/mcp", "/v1/embeddings"))
        .bearer_auth(&token)
        .json(&json!({"model": "local", "input": "hello"}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 503);
    let body: Value = answer.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("the built-in embedder cannot be used")
            && message.contains("no-such-embedder.gguf"),
        "{body}"
    );
}
