//! Projects end to end: a chat made in a project starts from its assistant and servers and the
//! scripted model receives the project's instructions before the chat's own prompt; the
//! lossless export carries the project and an import into an empty profile puts the chat back
//! in it (and exports the same bytes); the CLI creates, lists, moves, chats in and deletes.

use serde_json::json;
use switchboard_engine::agent::{ApprovalAnswer, ChatSettings, TurnEnd};
use switchboard_engine::export::{ExportFormat, ExportRequest, ExportScope, export, import_file};
use switchboard_engine::store::{AssistantDraft, ListScope, PageRequest, ProjectDraft};

use super::model::{Model, Say};
use super::*;

fn pirate(provider_id: &str) -> AssistantDraft {
    AssistantDraft {
        name: "Pirate".into(),
        system_prompt: "Answer like a pirate.".into(),
        provider_id: Some(provider_id.into()),
        model: Some("fake-model".into()),
        settings: json!({"temperature": 0.7, "servers": ["fetch"]}),
        ..Default::default()
    }
}

fn thesis(assistant: Option<String>) -> ProjectDraft {
    ProjectDraft {
        name: "Thesis".into(),
        icon: "🎓".into(),
        instructions: "Cite the thesis handbook.".into(),
        assistant_id: assistant,
        servers: Some(vec!["time".into()]),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chat_in_a_project_starts_from_its_assistant_and_servers_and_gets_its_instructions_first()
{
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let model = Model::start(vec![Say::Text("Arr.".into()), Say::Text("Aye.".into())]).await;
    let p = provider(&engine, "fake", &model.url).await;
    let a = engine.store().insert_assistant(&pirate(&p)).await.unwrap();
    let project = engine
        .store()
        .insert_project(&thesis(Some(a.id.clone())))
        .await
        .unwrap();
    let conv = engine
        .agent()
        .new_conversation_in(None, Some("thesis"))
        .await
        .unwrap();
    assert_eq!(conv.project_id.as_deref(), Some(project.id.as_str()));
    let settings = ChatSettings::of(&conv);
    assert_eq!(
        (settings.assistant, settings.servers, settings.temperature),
        (Some(a.id.clone()), Some(vec!["time".to_owned()]), Some(0.7))
    );
    let ran = send(&engine, &conv.id, "Hello?", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    let body = &model.requests()[0];
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(
        body["messages"][0]["content"],
        "Cite the thesis handbook.\n\nAnswer like a pirate."
    );

    // A chat moved out of the project no longer gets its instructions.
    engine
        .store()
        .move_conversations(std::slice::from_ref(&conv.id), None)
        .await
        .unwrap();
    send(&engine, &conv.id, "Again?", ApprovalAnswer::Deny).await;
    let body = &model.requests()[1];
    assert_eq!(body["messages"][0]["content"], "Answer like a pirate.");

    let unknown = engine
        .agent()
        .new_conversation_in(None, Some("Nowhere"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains("no project named \"Nowhere\""),
        "{unknown}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_json_export_carries_the_project_and_an_import_into_an_empty_profile_restores_it() {
    let dir = tempfile::tempdir().unwrap();
    let a = engine(dir.path().join("a").as_path()).await;
    let project = a.store().insert_project(&thesis(None)).await.unwrap();
    a.store()
        .insert_project(&ProjectDraft {
            name: "Unused".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let inside = a
        .agent()
        .new_conversation_in(None, Some(&project.id))
        .await
        .unwrap();
    let outside = a.agent().new_conversation(None).await.unwrap();
    let export_of = |engine: &Engine, out: std::path::PathBuf| {
        let store = engine.store().clone();
        async move {
            let request = ExportRequest {
                format: ExportFormat::Json,
                scope: ExportScope::All,
                out: out.display().to_string(),
                no_tool_results: false,
                no_reasoning: false,
            };
            export(&store, &request, |_, _| {}).await.unwrap();
            std::fs::read_to_string(out).unwrap()
        }
    };
    let first = export_of(&a, dir.path().join("first.json")).await;
    assert!(first.contains("\"projects\":[{"), "{first}");
    assert!(
        !first.contains("Unused"),
        "only projects a chat is in travel"
    );

    let b = engine(dir.path().join("b").as_path()).await;
    let done = import_file(b.store(), &dir.path().join("first.json"), false)
        .await
        .unwrap();
    assert_eq!((done.report.added, done.projects), (2, 1));
    let listed = b.store().list_projects().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!((&listed[0].project, listed[0].conversations), (&project, 1));
    assert_eq!(
        b.store().get_conversation(&inside.id).await.unwrap(),
        inside
    );
    assert_eq!(
        b.store().get_conversation(&outside.id).await.unwrap(),
        outside
    );
    let second = export_of(&b, dir.path().join("second.json")).await;
    assert_eq!(first, second);

    // Imported again: nothing is added twice, the project stays one.
    let again = import_file(b.store(), &dir.path().join("first.json"), false)
        .await
        .unwrap();
    assert_eq!(again.report.added, 0);
    assert_eq!(b.store().list_projects().await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn switchboard_projects_creates_lists_moves_chats_in_and_deletes_keeping_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model::start(vec![Say::Text("Done.".into()), Say::Text("Again.".into())]).await;
    {
        let engine = engine(dir.path()).await;
        provider(&engine, "fake", &model.url).await;
        engine.shutdown().await;
    }
    let run = |args: Vec<&'static str>| {
        let data = dir.path().to_owned();
        tokio::task::spawn_blocking(move || {
            let o = crate::suite::support_cli::output_within_limit(
                std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
                    .arg("--data-dir")
                    .arg(data)
                    .args(args)
                    .env_remove("SWITCHBOARD_DATA_DIR")
                    .env_remove("RUST_LOG"),
            );
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            (o.status.success(), text)
        })
    };
    let (ok, text) = run(vec![
        "projects",
        "create",
        "Thesis",
        "--icon",
        "🎓",
        "--instructions",
        "Cite the thesis handbook.",
    ])
    .await
    .unwrap();
    assert!(ok, "{text}");
    let (ok, text) = run(vec![
        "chat",
        "--project",
        "thesis",
        "--model",
        "fake-model",
        "Hi",
    ])
    .await
    .unwrap();
    assert!(ok && text.contains("Done."), "{text}");
    assert_eq!(
        model.requests()[0]["messages"][0]["content"],
        "Cite the thesis handbook."
    );
    let (ok, text) = run(vec!["chat", "--model", "fake-model", "Outside"])
        .await
        .unwrap();
    assert!(ok, "{text}");
    let (_, text) = run(vec!["projects", "list"]).await.unwrap();
    assert!(text.contains("🎓 Thesis  1 conversation(s)"), "{text}");

    let engine = engine(dir.path()).await;
    let unfiled = engine
        .store()
        .list_conversations(&PageRequest::first(10), &ListScope::Unfiled)
        .await
        .unwrap();
    assert_eq!(unfiled.items.len(), 1);
    let outside = unfiled.items[0].id.clone();
    engine.shutdown().await;
    drop(engine);

    let leaked: &'static str = Box::leak(outside.clone().into_boxed_str());
    let (ok, text) = run(vec!["projects", "move", leaked, "--to", "Thesis"])
        .await
        .unwrap();
    assert!(
        ok && text.contains("moved 1 conversation(s) to Thesis"),
        "{text}"
    );
    let (ok, text) = run(vec!["projects", "move", leaked, "--to", "Nowhere"])
        .await
        .unwrap();
    assert!(!ok && text.contains("Nowhere"), "{text}");
    let (_, text) = run(vec!["conversations", "list", "--project", "Thesis"])
        .await
        .unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");

    let out = dir.path().join("thesis.json");
    let out_arg: &'static str = Box::leak(out.display().to_string().into_boxed_str());
    let (ok, text) = run(vec![
        "export",
        "--format",
        "json",
        "--project",
        "thesis",
        "--out",
        out_arg,
    ])
    .await
    .unwrap();
    assert!(ok, "{text}");
    let exported: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(exported["conversations"].as_array().unwrap().len(), 2);
    assert_eq!(exported["projects"][0]["name"], "Thesis");

    let (ok, text) = run(vec!["projects", "delete", "Thesis", "--with-conversations"])
        .await
        .unwrap();
    assert!(ok && text.contains("its 2 conversation(s)"), "{text}");
    let (_, text) = run(vec!["conversations", "list"]).await.unwrap();
    assert!(text.contains("no conversations"), "{text}");
}
