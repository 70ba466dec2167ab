//! Attached images and files through the engine: a message with an image sent to each of the
//! five wire formats' fake servers (each receives the image in its own shape), a model Ollama
//! says cannot see refused before anything is sent or stored, refused files leaving nothing
//! behind, images exported (Markdown: a file beside, HTML: inline, JSON: the bytes), and a
//! message deleted with everything under it.

use std::io::Cursor;
use std::time::Duration;

use serde_json::Value;
use switchboard_engine::Engine;
use switchboard_engine::agent::upload::pdf;
use switchboard_engine::agent::{ChatEvent, TurnEnd};
use switchboard_engine::export::{ExportFormat, ExportRequest, ExportScope, export, import_file};
use switchboard_engine::providers::NewProvider;
use switchboard_engine::store::{ConversationPatch, NewConversation};
use switchboard_engine::vocab::content::ContentPart;
use tokio::sync::mpsc;

use super::agent::engine;
use super::providers::fake::{FakeProvider, Reply};

/// A 64×48 PNG (two colours).
fn png() -> Vec<u8> {
    let img = image::RgbImage::from_fn(64, 48, |x, _| {
        if x < 32 {
            image::Rgb([200, 30, 30])
        } else {
            image::Rgb([30, 30, 200])
        }
    });
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

/// A whole answer "ok" in each wire format.
fn answer(preset: &str) -> Reply {
    let sse = "text/event-stream";
    match preset {
        "ollama" => Reply::ok(
            "application/x-ndjson",
            "{\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"done\":false}\n\
             {\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\"}\n",
        ),
        "anthropic" => Reply::ok(
            sse,
            [
                ("message_start", r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}"#),
                ("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
                ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}"#),
                ("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
                ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}"#),
                ("message_stop", r#"{"type":"message_stop"}"#),
            ]
            .map(|(e, d)| format!("event: {e}\ndata: {d}\n\n"))
            .concat(),
        ),
        "gemini" => Reply::ok(
            sse,
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}]}\r\n\r\n",
        ),
        "dashscope" => Reply::ok(
            sse,
            "id:1\nevent:result\n:HTTP_STATUS/200\ndata:{\"output\":{\"choices\":[{\"message\":{\"content\":\"ok\",\"role\":\"assistant\"},\"finish_reason\":\"stop\"}]},\"usage\":{\"input_tokens\":5,\"output_tokens\":1},\"request_id\":\"r\"}\n\n",
        ),
        _ => Reply::ok(
            sse,
            "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":null}]}\n\n\
             data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
             data: [DONE]\n\n",
        ),
    }
}

/// A provider of `preset` at the fake's `url` and a titled conversation with `model` on it.
async fn conversation(engine: &Engine, preset: &str, url: &str, model: &str) -> String {
    let base = if preset == "openai-compatible" {
        format!("{url}/v1")
    } else {
        url.to_owned()
    };
    let p = engine
        .providers()
        .add_provider(NewProvider {
            name: format!("fake-{preset}"),
            preset: preset.into(),
            base_url: Some(base),
            api_key: Some("sk-test".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let new = NewConversation {
        title: Some("attachments".into()),
        provider_id: Some(p.provider.id),
        model: Some(model.into()),
        ..Default::default()
    };
    let id = engine.store().create_conversation(new).await.unwrap().id;
    // A set context window: the turn asks the provider nothing about the model, so each fake
    // answers only the scripted chat.
    let patch = ConversationPatch {
        settings: Some(serde_json::json!({ "contextWindow": 32768 })),
        ..Default::default()
    };
    engine
        .store()
        .update_conversation(&id, patch)
        .await
        .unwrap();
    id
}

/// Sends `text` with `files` and returns how the turn ended (or its error) and its events.
async fn send(
    engine: &Engine,
    conv: &str,
    files: Vec<ContentPart>,
) -> (Result<TurnEnd, String>, Vec<ChatEvent>) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let end = tokio::time::timeout(
        Duration::from_secs(30),
        engine
            .agent()
            .send_with_files(conv, "What is in the picture?", Vec::new(), files, tx),
    )
    .await
    .expect("the turn hung")
    .map_err(|e| e.to_string());
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    (end, events)
}

/// The image as the request body of each wire format carries it.
fn image_in(preset: &str, body: &Value) -> Option<String> {
    let s = |v: &Value| v.as_str().map(str::to_owned);
    match preset {
        "openai-compatible" => body["messages"][0]["content"][1]["image_url"]["url"]
            .as_str()
            .map(|u| u.split_once(',').map_or(u, |(_, d)| d).to_owned()),
        "ollama" => s(&body["messages"][0]["images"][0]),
        "anthropic" => s(&body["messages"][0]["content"][1]["source"]["data"]),
        "gemini" => s(&body["contents"][0]["parts"][1]["inlineData"]["data"]),
        "dashscope" => body["input"]["messages"][0]["content"][1]["image"]
            .as_str()
            .map(|u| u.split_once(',').map_or(u, |(_, d)| d).to_owned()),
        _ => None,
    }
}

#[tokio::test]
async fn an_attached_image_reaches_each_of_the_five_wire_formats_as_an_image_part() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let bytes = png();
    let stored = base64::engine::general_purpose::STANDARD.encode(&bytes);
    for preset in [
        "openai-compatible",
        "ollama",
        "anthropic",
        "gemini",
        "dashscope",
    ] {
        let server = if preset == "ollama" {
            let show = r#"{"capabilities":["completion","vision"]}"#;
            FakeProvider::start(vec![Reply::ok("application/json", show), answer(preset)]).await
        } else {
            FakeProvider::chat_only(vec![answer(preset)]).await
        };
        let conv = conversation(&engine, preset, &server.url, "some-vision-model").await;
        let ready = engine
            .agent()
            .attach_bytes("dot.png", bytes.clone())
            .await
            .unwrap();
        let (end, _) = send(&engine, &conv, vec![ready.part]).await;
        assert_eq!(end, Ok(TurnEnd::Done), "{preset}");
        let seen = server.seen();
        let chat = seen.last().unwrap();
        assert_eq!(
            image_in(preset, &chat.body),
            Some(stored.clone()),
            "{preset}: {}",
            chat.body
        );
        if preset == "dashscope" {
            assert!(
                chat.path_and_query.contains("multimodal-generation"),
                "{}",
                chat.path_and_query
            );
        }
    }
    assert_eq!(engine.store().blob_totals().await.unwrap().0, 1);
}

#[tokio::test]
async fn a_model_ollama_says_cannot_see_is_refused_before_anything_is_sent_or_stored() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let show = r#"{"capabilities":["completion","tools"]}"#;
    let server = FakeProvider::start(vec![Reply::ok("application/json", show)]).await;
    let conv = conversation(&engine, "ollama", &server.url, "llama3.1:8b").await;
    let ready = engine.agent().attach_bytes("dot.png", png()).await.unwrap();
    let (end, _) = send(&engine, &conv, vec![ready.part]).await;
    assert_eq!(
        end,
        Err("llama3.1:8b cannot see images (its provider fake-ollama says so); remove the images or pick a model with vision".into())
    );
    let paths: Vec<String> = server
        .seen()
        .iter()
        .map(|s| s.path_and_query.clone())
        .collect();
    assert_eq!(paths, ["/api/show"]);
    let messages = engine.agent().conversation_branch(&conv).await.unwrap();
    assert!(messages.is_empty(), "{messages:?}");
}

#[tokio::test]
async fn a_model_openrouter_lists_without_image_input_is_refused_and_one_with_it_is_sent_the_image()
{
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let list = r#"{"data":[
        {"id":"acme/words-only","context_length":32000,"architecture":{"input_modalities":["text"]}},
        {"id":"acme/eyes","context_length":32000,"architecture":{"input_modalities":["text","image"]}}]}"#;
    let server = FakeProvider::start(vec![
        Reply::ok("application/json", list),
        Reply::ok("application/json", list),
        answer("openai-compatible"),
    ])
    .await;
    let blind = conversation(&engine, "openai-compatible", &server.url, "acme/words-only").await;
    let ready = engine.agent().attach_bytes("dot.png", png()).await.unwrap();
    let (end, _) = send(&engine, &blind, vec![ready.part.clone()]).await;
    assert!(
        end.as_ref()
            .is_err_and(|e| e.starts_with("acme/words-only cannot see images")),
        "{end:?}"
    );
    let patch = ConversationPatch {
        model: Some("acme/eyes".into()),
        ..Default::default()
    };
    engine
        .store()
        .update_conversation(&blind, patch)
        .await
        .unwrap();
    let (end, _) = send(&engine, &blind, vec![ready.part]).await;
    assert_eq!(end, Ok(TurnEnd::Done));
    let paths: Vec<String> = server
        .seen()
        .iter()
        .map(|s| s.path_and_query.clone())
        .collect();
    assert_eq!(paths, ["/v1/models", "/v1/models", "/v1/chat/completions"]);
}

#[tokio::test]
async fn refused_files_leave_nothing_stored_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let mut corrupt = png();
    corrupt.truncate(60);
    let path = dir.path().join("huge.bin");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(200 * 1024 * 1024)
        .unwrap();
    let cases = [
        engine.agent().attach_bytes("broken.png", corrupt).await,
        engine
            .agent()
            .attach_bytes("report.pdf", b"not a pdf".to_vec())
            .await,
        engine
            .agent()
            .attach_bytes("scan.pdf", pdf::sample(&[""]))
            .await,
        engine.agent().attach_path(&path).await,
    ];
    let messages: Vec<String> = cases
        .into_iter()
        .map(|r| r.unwrap_err().to_string())
        .collect();
    assert!(
        messages[0].starts_with("“broken.png” is not an image that can be read"),
        "{}",
        messages[0]
    );
    assert_eq!(
        messages[1],
        "“report.pdf” is not a readable PDF (it has no PDF header)"
    );
    assert!(messages[2].contains("scanned PDF"), "{}", messages[2]);
    assert_eq!(
        messages[3],
        "“huge.bin” is 200.0 MB; attachments can be at most 50 MB"
    );
    assert_eq!(engine.store().blob_totals().await.unwrap(), (0, 0));
}

#[tokio::test]
async fn a_missing_image_is_refused_before_the_message_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let server = FakeProvider::chat_only(vec![answer("openai-compatible")]).await;
    let conv = conversation(&engine, "openai-compatible", &server.url, "m").await;
    let forged = ContentPart::ImageRef(switchboard_engine::vocab::content::ImageRef {
        hash: "0".repeat(64),
        mime_type: "image/png".into(),
        width: 1,
        height: 1,
        name: None,
    });
    let (end, _) = send(&engine, &conv, vec![forged]).await;
    assert!(end.unwrap_err().contains("is not stored"));
    assert!(server.seen().is_empty());
    assert!(
        engine
            .agent()
            .conversation_branch(&conv)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn images_are_exported_beside_markdown_inline_in_html_and_whole_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let server = FakeProvider::chat_only(vec![answer("openai-compatible")]).await;
    let conv = conversation(&engine, "openai-compatible", &server.url, "m").await;
    let bytes = png();
    let ready = engine
        .agent()
        .attach_bytes("dot.png", bytes.clone())
        .await
        .unwrap();
    let (end, _) = send(&engine, &conv, vec![ready.part]).await;
    assert_eq!(end, Ok(TurnEnd::Done));
    let out = dir.path().join("out");
    let run = |format, name: &str| ExportRequest {
        format,
        scope: ExportScope::Ids {
            ids: vec![conv.clone()],
        },
        out: out.join(name).display().to_string(),
        no_tool_results: false,
        no_reasoning: false,
    };
    for (format, name) in [
        (ExportFormat::Markdown, "chat.md"),
        (ExportFormat::Html, "chat.html"),
        (ExportFormat::Json, "chat.json"),
    ] {
        export(engine.store(), &run(format, name), |_, _| {})
            .await
            .unwrap();
    }
    let md = std::fs::read_to_string(out.join("chat.md")).unwrap();
    let beside: Vec<_> = walk(&out)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    assert_eq!(beside.len(), 1, "{md}");
    assert_eq!(std::fs::read(&beside[0]).unwrap(), bytes);
    let file_name = beside[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(md.contains(&file_name), "{md}");
    let html = std::fs::read_to_string(out.join("chat.html")).unwrap();
    assert!(
        html.contains("src=\"data:image/png;base64,"),
        "the HTML has no inline image"
    );
    let json = std::fs::read_to_string(out.join("chat.json")).unwrap();
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
    assert!(json.contains(&b64), "the JSON lacks the image's bytes");
}

#[tokio::test]
async fn an_image_exported_as_json_is_stored_once_by_its_hash_when_imported_and_again_changes_nothing()
 {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let server = FakeProvider::chat_only(vec![
        answer("openai-compatible"),
        answer("openai-compatible"),
    ])
    .await;
    let conv = conversation(&engine, "openai-compatible", &server.url, "m").await;
    let bytes = png();
    for _ in 0..2 {
        let ready = engine
            .agent()
            .attach_bytes("dot.png", bytes.clone())
            .await
            .unwrap();
        assert_eq!(
            send(&engine, &conv, vec![ready.part]).await.0,
            Ok(TurnEnd::Done)
        );
    }
    let out = dir.path().join("chat.json");
    let request = ExportRequest {
        format: ExportFormat::Json,
        scope: ExportScope::Ids {
            ids: vec![conv.clone()],
        },
        out: out.display().to_string(),
        no_tool_results: false,
        no_reasoning: false,
    };
    export(engine.store(), &request, |_, _| {}).await.unwrap();

    // Into the same profile: every message is already here, nothing conflicts.
    let again = import_file(engine.store(), &out, false).await.unwrap();
    assert_eq!(
        (again.report.skipped, again.report.conflicted),
        (1, 0),
        "{:?}",
        again.report.entries
    );
    assert_eq!(engine.store().blob_totals().await.unwrap().0, 1);

    // Into a new profile: the image is stored once and both messages name it.
    let other_dir = tempfile::tempdir().unwrap();
    let other = super::agent::engine(other_dir.path()).await;
    let imported = import_file(other.store(), &out, false).await.unwrap();
    assert_eq!(imported.report.added, 1);
    assert_eq!(other.store().blob_totals().await.unwrap().0, 1);
    let branch = other.agent().conversation_branch(&conv).await.unwrap();
    let refs: Vec<_> = branch
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            ContentPart::ImageRef(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(refs.len(), 2, "{branch:?}");
    assert!(refs.iter().all(|r| r.name.as_deref() == Some("dot.png")));
    let stored = other.store().blob(&refs[0].hash).await.unwrap();
    assert_eq!(stored.data, bytes, "the image was re-encoded on import");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test]
async fn deleting_a_message_removes_what_hangs_under_it_and_shows_what_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let server = FakeProvider::chat_only(vec![
        answer("openai-compatible"),
        answer("openai-compatible"),
    ])
    .await;
    let conv = conversation(&engine, "openai-compatible", &server.url, "m").await;
    let ready = engine.agent().attach_bytes("dot.png", png()).await.unwrap();
    assert_eq!(
        send(&engine, &conv, vec![ready.part]).await.0,
        Ok(TurnEnd::Done)
    );
    assert_eq!(send(&engine, &conv, Vec::new()).await.0, Ok(TurnEnd::Done));
    let branch = engine.agent().conversation_branch(&conv).await.unwrap();
    assert_eq!(branch.len(), 4);
    let first_answer = &branch[1].id;
    assert_eq!(engine.agent().deletion_size(first_answer).await.unwrap(), 3);
    assert_eq!(
        engine.agent().delete_message(first_answer).await.unwrap(),
        3
    );
    let left = engine.agent().conversation_branch(&conv).await.unwrap();
    assert_eq!(
        left.iter().map(|m| &m.id).collect::<Vec<_>>(),
        [&branch[0].id]
    );
}
