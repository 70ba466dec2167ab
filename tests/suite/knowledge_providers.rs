//! Knowledge bases embedded by a provider: one server on 127.0.0.1 speaks the four embedding
//! wire formats (OpenAI-compatible `/v1/embeddings`, Ollama `/api/embed`, Gemini
//! `batchEmbedContents`, DashScope `text-embedding`) with the answers' documented shapes, and
//! makes its vectors from the words of each text (a hashed bag of words), so a search by
//! vectors alone finds the passage that shares the question's words. Every request is kept:
//! the tests check each format's path, body and key header, and what a user sees when the
//! model is wrong, the answer is garbage or the server goes away.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use switchboard_engine::Engine;
use switchboard_engine::knowledge::{KnowledgeEvent, Mode};
use switchboard_engine::logging::Redactor;
use switchboard_engine::paths::Paths;
use switchboard_engine::providers::NewProvider;
use switchboard_engine::secrets::{KeyringSecrets, Secrets};
use switchboard_engine::vocab::ProviderKind;
use switchboard_engine::vocab::knowledge::EmbedderChoice;

const WIDTH: usize = 64;
const KEY: &str = "sk-embed-test-0123456789";

/// What one request to the fake looked like.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    auth: Option<String>,
    body: Value,
}

#[derive(Clone, Default)]
struct Fake {
    seen: Arc<Mutex<Vec<Seen>>>,
    /// Answer with this instead of vectors (status, body); status 0: never answer.
    broken: Arc<Mutex<Option<(u16, String)>>>,
}

/// A text's vector: each word adds one to a dimension picked by its hash.
fn vector(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; WIDTH];
    for word in text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let hash = word.bytes().fold(2166136261u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(16777619)
        });
        v[hash as usize % WIDTH] += 1.0;
    }
    v[WIDTH - 1] += 0.01;
    v
}

async fn answer(State(fake): State<Fake>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let auth = ["authorization", "x-goog-api-key"]
        .iter()
        .find_map(|h| request.headers().get(*h))
        .map(|v| v.to_str().unwrap_or_default().to_owned());
    let bytes: Bytes = axum::body::to_bytes(request.into_body(), 1 << 24)
        .await
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    fake.seen.lock().unwrap().push(Seen {
        path: path.clone(),
        auth,
        body: body.clone(),
    });
    let broken = fake.broken.lock().unwrap().clone();
    if let Some((0, _)) = broken {
        // Stalls: accepts the request and never answers.
        std::future::pending::<()>().await;
    }
    if let Some((status, text)) = broken {
        let status = StatusCode::from_u16(status).unwrap();
        return (status, [("content-type", "application/json")], text).into_response();
    }
    let model = body["model"].as_str().unwrap_or_default();
    if model == "no-such-model" || path.contains("no-such-model") {
        let error = json!({"error": {"message": "model \"no-such-model\" not found, try pulling it first", "type": "invalid_request_error", "code": "model_not_found"}});
        return (StatusCode::NOT_FOUND, axum::Json(error)).into_response();
    }
    let texts: Vec<String> = match path.as_str() {
        "/v1/embeddings" | "/api/embed" => body["input"].as_array().cloned().unwrap_or_default(),
        "/api/v1/services/embeddings/text-embedding/text-embedding" => body["input"]["texts"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
        _ => body["requests"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|r| r["content"]["parts"][0]["text"].clone())
            .collect(),
    }
    .iter()
    .map(|t| t.as_str().unwrap_or_default().to_owned())
    .collect();
    let vectors: Vec<Vec<f32>> = texts.iter().map(|t| vector(t)).collect();
    let answer = match path.as_str() {
        "/v1/embeddings" => json!({
            "object": "list",
            // In reverse: rows say their own index.
            "data": vectors.iter().enumerate().rev().map(|(i, v)| json!({"object": "embedding", "index": i, "embedding": v})).collect::<Vec<_>>(),
            "model": model,
            "usage": {"prompt_tokens": 8, "total_tokens": 8}
        }),
        "/api/embed" => json!({
            "model": model, "embeddings": vectors,
            "total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": 8
        }),
        "/api/v1/services/embeddings/text-embedding/text-embedding" => json!({
            "output": {"embeddings": vectors.iter().enumerate().map(|(i, v)| json!({"embedding": v, "text_index": i})).collect::<Vec<_>>()},
            "usage": {"total_tokens": 8},
            "request_id": "b5b1a4e6-4c3a-9b0e-a2d5-1c0d6f7e8a9b"
        }),
        _ => {
            json!({"embeddings": vectors.iter().map(|v| json!({"values": v})).collect::<Vec<_>>()})
        }
    };
    axum::Json(answer).into_response()
}

async fn serve(fake: Fake) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().fallback(answer).with_state(fake);
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

async fn open(dir: &Path) -> Engine {
    let paths = Paths::under(dir);
    paths.ensure().unwrap();
    let redactor = Redactor::default();
    let keychain = Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(keychain, Arc::new(|_: &str| None), redactor.clone());
    Engine::open(paths, redactor, secrets).await.unwrap()
}

fn notes(root: &Path) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(
        root.join("dishwasher.md"),
        "# Dishwasher\n\nError E24: the drain hose is kinked or the filter is blocked.\n",
    )
    .unwrap();
    std::fs::write(
        root.join("bicycle.md"),
        "# Bicycle\n\nPump the tyres to four bar before a long ride; check the chain oil.\n",
    )
    .unwrap();
}

/// Adds the fake as a provider of `kind` (with a key) and a base over `root` embedded by it.
async fn base_on(engine: &Engine, kind: ProviderKind, addr: SocketAddr, root: &Path) -> String {
    let (preset, suffix) = match kind {
        ProviderKind::Openai => ("openai-compatible", "/v1"),
        ProviderKind::Ollama => ("ollama", ""),
        ProviderKind::Gemini => ("gemini", ""),
        _ => ("dashscope", ""),
    };
    let provider = engine
        .providers()
        .add_provider(NewProvider {
            name: format!("embed {preset}"),
            preset: preset.into(),
            base_url: Some(format!("http://{addr}{suffix}")),
            api_key: Some(KEY.into()),
            ..Default::default()
        })
        .await
        .unwrap()
        .provider
        .id;
    let name = format!("notes-{preset}");
    engine.create_knowledge_base(&name, &[root]).await.unwrap();
    let choice = EmbedderChoice::Provider {
        provider,
        model: "embed-small".into(),
    };
    engine
        .knowledge()
        .set_embedder(&name, &choice)
        .await
        .unwrap();
    name
}

/// Base `name`'s provider with another `model`.
async fn same_provider(engine: &Engine, name: &str, model: &str) -> EmbedderChoice {
    match engine.knowledge().get(name).await.unwrap().choice {
        EmbedderChoice::Provider { provider, .. } => EmbedderChoice::Provider {
            provider,
            model: model.into(),
        },
        other => panic!("{other:?}"),
    }
}

/// The fake serving, a profile, a folder of notes and a base over it embedded by a `kind`
/// provider (not yet indexed).
struct Setup {
    fake: Fake,
    engine: Engine,
    root: std::path::PathBuf,
    name: String,
    _dir: tempfile::TempDir,
}

async fn setup(kind: ProviderKind) -> Setup {
    let fake = Fake::default();
    let addr = serve(fake.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let engine = open(&dir.path().join("profile")).await;
    let root = dir.path().join("notes");
    notes(&root);
    let name = base_on(&engine, kind, addr, &root).await;
    Setup {
        fake,
        engine,
        root,
        name,
        _dir: dir,
    }
}

#[tokio::test]
async fn a_base_embedded_by_each_providers_format_finds_passages_by_vectors_alone() {
    let fake = Fake::default();
    let addr = serve(fake.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let engine = open(&dir.path().join("profile")).await;
    let root = dir.path().join("notes");
    notes(&root);
    for kind in [
        ProviderKind::Openai,
        ProviderKind::Ollama,
        ProviderKind::Gemini,
        ProviderKind::Dashscope,
    ] {
        let name = base_on(&engine, kind, addr, &root).await;
        let report = engine.knowledge().index(&name).await.unwrap();
        assert_eq!((report.indexed, report.failed), (2, 0), "{kind:?}");
        let base = engine.knowledge().get(&name).await.unwrap();
        assert!(base.embedder.ends_with("/embed-small"), "{}", base.embedder);
        assert_eq!(base.dimensions as usize, WIDTH, "{kind:?}");
        let found = engine
            .knowledge()
            .search(&name, "tyres chain ride", 1, Mode::Vectors)
            .await
            .unwrap();
        assert!(found[0].path.ends_with("bicycle.md"), "{kind:?}: {found:?}");
    }
    let seen = fake.seen.lock().unwrap().clone();
    let paths: std::collections::BTreeSet<&str> = seen.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        paths.into_iter().collect::<Vec<_>>(),
        [
            "/api/embed",
            "/api/v1/services/embeddings/text-embedding/text-embedding",
            "/v1/embeddings",
            "/v1beta/models/embed-small:batchEmbedContents",
        ]
    );
    for s in &seen {
        let auth = s.auth.as_deref().unwrap_or_default();
        assert!(auth.ends_with(KEY), "{}: {auth:?}", s.path);
    }
    // Questions and passages are told apart where the format can say so.
    let dashscope: Vec<&str> = seen
        .iter()
        .filter(|s| s.path.contains("text-embedding/text-embedding"))
        .filter_map(|s| s.body["parameters"]["text_type"].as_str())
        .collect();
    assert!(dashscope.contains(&"document") && dashscope.contains(&"query"));
    let gemini = seen
        .iter()
        .filter(|s| s.path.contains("batchEmbedContents"))
        .flat_map(|s| s.body["requests"].as_array().cloned().unwrap_or_default())
        .any(|r| r["taskType"] == "RETRIEVAL_DOCUMENT");
    assert!(gemini);
}

#[tokio::test]
async fn a_wrong_model_is_refused_when_chosen_and_the_base_keeps_its_embedder() {
    let s = setup(ProviderKind::Ollama).await;
    let (engine, name) = (&s.engine, s.name.as_str());
    let wrong = same_provider(engine, name, "no-such-model").await;
    let error = engine
        .knowledge()
        .set_embedder(name, &wrong)
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("no-such-model"), "{error}");
    let kept = engine.knowledge().get(name).await.unwrap().choice;
    assert!(matches!(kept, EmbedderChoice::Provider { ref model, .. } if model == "embed-small"));
}

#[tokio::test]
async fn a_provider_that_breaks_mid_run_fails_its_files_with_the_reason_and_search_falls_back_to_keywords()
 {
    let s = setup(ProviderKind::Openai).await;
    let (engine, name) = (&s.engine, s.name.as_str());
    assert_eq!(engine.knowledge().index(name).await.unwrap().indexed, 2);

    // The answer turns to garbage: a changed file cannot be embedded, and says why.
    *s.fake.broken.lock().unwrap() = Some((200, r#"{"data": "not vectors"}"#.into()));
    std::fs::write(
        s.root.join("bicycle.md"),
        "# Bicycle\n\nPump the tyres to five bar now.\n",
    )
    .unwrap();
    let report = engine.knowledge().index(name).await.unwrap();
    assert_eq!(report.failed, 1, "{report:?}");
    let files = engine.knowledge().files(name).await.unwrap();
    let failed: Vec<_> = files.iter().filter_map(|f| f.error.as_deref()).collect();
    assert!(
        failed.len() == 1
            && failed[0].starts_with("cannot be embedded")
            && failed[0].contains("not understood"),
        "{failed:?}"
    );
    // The file is still found by its words, and the base kept the other file's vectors.
    let found = engine
        .knowledge()
        .search(name, "five bar", 1, Mode::Keywords)
        .await
        .unwrap();
    assert!(found[0].path.ends_with("bicycle.md"), "{found:?}");

    // The server is gone: hybrid search still answers, by keywords.
    *s.fake.broken.lock().unwrap() = Some((503, r#"{"error": {"message": "overloaded"}}"#.into()));
    let found = engine
        .knowledge()
        .search(name, "drain hose", 1, Mode::Hybrid)
        .await;
    let found = found.unwrap();
    assert!(found[0].path.ends_with("dishwasher.md"), "{found:?}");
}

#[tokio::test]
async fn changing_the_embedder_embeds_every_file_again_and_says_so() {
    let s = setup(ProviderKind::Ollama).await;
    let (engine, name) = (&s.engine, s.name.as_str());
    assert_eq!(engine.knowledge().index(name).await.unwrap().indexed, 2);
    let mut events = engine.knowledge().subscribe();
    let other = same_provider(engine, name, "embed-large").await;
    engine.knowledge().set_embedder(name, &other).await.unwrap();
    let report = engine.knowledge().index(name).await.unwrap();
    assert_eq!((report.indexed, report.unchanged), (2, 0), "{report:?}");
    let base = engine.knowledge().get(name).await.unwrap();
    assert!(base.embedder.ends_with("/embed-large"), "{}", base.embedder);
    let mut said = None;
    while let Ok(event) = events.try_recv() {
        if let KnowledgeEvent::EmbeddingAgain { base, embedder } = event {
            said = Some((base, embedder));
        }
    }
    let (base_name, embedder) = said.expect("an EmbeddingAgain event");
    assert_eq!(base_name, name);
    assert!(embedder.ends_with("/embed-large"));
}

#[tokio::test]
async fn a_search_whose_provider_stalls_answers_by_keywords_within_its_wait() {
    let s = setup(ProviderKind::Ollama).await;
    let (engine, name) = (&s.engine, s.name.as_str());
    assert_eq!(engine.knowledge().index(name).await.unwrap().indexed, 2);
    *s.fake.broken.lock().unwrap() = Some((0, String::new()));
    let found = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        engine
            .knowledge()
            .search(name, "drain hose", 1, Mode::Hybrid),
    )
    .await
    .expect("a search is bounded")
    .unwrap();
    assert!(found[0].path.ends_with("dishwasher.md"), "{found:?}");
}

#[tokio::test]
async fn an_indexing_run_soon_after_another_asks_the_provider_nothing_when_no_file_changed() {
    let s = setup(ProviderKind::Ollama).await;
    let (engine, name) = (&s.engine, s.name.as_str());
    assert_eq!(engine.knowledge().index(name).await.unwrap().indexed, 2);
    let asked = s.fake.seen.lock().unwrap().len();
    // As the watcher's run after a save that changed nothing.
    let report = engine.knowledge().index(name).await.unwrap();
    assert_eq!((report.indexed, report.unchanged), (0, 2), "{report:?}");
    assert_eq!(s.fake.seen.lock().unwrap().len(), asked, "no check request");
}
