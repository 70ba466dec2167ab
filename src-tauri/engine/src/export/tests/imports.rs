//! Importing ChatGPT's and Claude's exports (fixtures built from their documented formats:
//! branches, tool messages, missing and unknown fields), and files that are corrupt,
//! truncated or inconsistent: a clear error with the position, and nothing imported.

use std::path::PathBuf;

use super::fixtures::weather;
use super::{json_of, seed, store};
use crate::export::{ExportError, ImportSource, import_file, parse_import};
use crate::store::{ImportItem, Message, MessageStatus, Role};
use crate::vocab::content::ContentPart;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/import")
        .join(name)
}

fn read(name: &str) -> (ImportSource, Vec<ImportItem>) {
    parse_import(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

fn find<'a>(item: &'a ImportItem, id: &str) -> &'a Message {
    item.messages
        .iter()
        .find(|m| m.id == id)
        .unwrap_or_else(|| panic!("no message {id}"))
}

fn texts(m: &Message) -> Vec<&str> {
    m.content
        .iter()
        .filter_map(|p| match p {
            ContentPart::Text { text } | ContentPart::Reasoning { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn chatgpt_mapping_becomes_our_tree_with_branches_tool_calls_and_results() {
    let (source, items) = read("chatgpt-conversations.json");
    assert_eq!(source, ImportSource::Chatgpt);
    assert_eq!(items.len(), 2);
    let c = &items[0];
    assert_eq!(c.conversation.id, "67e1a2b3-0000-8000-9000-000000000001");
    assert_eq!(c.conversation.title, "Plotting 画图");
    assert_eq!(c.conversation.created_at, 1_751_935_438_123);
    assert_eq!(c.conversation.model.as_deref(), Some("o3"));
    assert_eq!(c.conversation.head_id.as_deref(), Some("a5"));
    let ids: Vec<&str> = c.messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "u1", "a1", "t1", "a2", "u1b", "th1", "a3", "u2", "a4", "t2", "a5"
        ],
        "the hidden system node and the empty root are skipped"
    );
    assert_eq!(
        (
            find(c, "u1").parent_id.as_deref(),
            find(c, "u1b").parent_id.as_deref()
        ),
        (None, None),
        "an edit is a sibling branch"
    );
    let a1 = find(c, "a1");
    assert_eq!(a1.model.as_deref(), Some("gpt-4o"));
    let ContentPart::ToolCall {
        id,
        server,
        tool,
        arguments,
    } = &a1.content[0]
    else {
        panic!("{a1:?}")
    };
    assert_eq!(
        (id.as_str(), server.as_str(), tool.as_str()),
        ("call-a1", "chatgpt", "python")
    );
    assert!(
        arguments["code"]
            .as_str()
            .unwrap()
            .starts_with("import matplotlib")
    );
    let t1 = find(c, "t1");
    assert_eq!(
        (t1.role, t1.parent_id.as_deref(), t1.updated_at),
        (Role::Tool, Some("a1"), 1_751_935_442_500)
    );
    let ContentPart::ToolResult {
        call_id, content, ..
    } = &t1.content[0]
    else {
        panic!("{t1:?}")
    };
    assert_eq!(call_id, "call-a1");
    assert_eq!(
        crate::vocab::mcp::result_text(content),
        "<<ImageDisplayed>>"
    );
    assert!(
        matches!(&find(c, "th1").content[0], ContentPart::Reasoning { text } if text == "Cubic is easy to plot.")
    );
    assert_eq!(
        texts(find(c, "u2")),
        ["[image: file-service://file-abc123]\nWhat's the weather where this photo was taken?"]
    );
    let ContentPart::ToolCall {
        tool, arguments, ..
    } = &find(c, "a4").content[0]
    else {
        panic!()
    };
    assert_eq!(
        (tool.as_str(), arguments["input"].as_str()),
        ("browser", Some("search(\"weather Paris today\")"))
    );
    let ContentPart::ToolResult {
        call_id, content, ..
    } = &find(c, "t2").content[0]
    else {
        panic!()
    };
    assert_eq!(
        (
            call_id.as_str(),
            crate::vocab::mcp::result_text(content).as_str()
        ),
        ("call-a4", "Paris: sunny, 24°C")
    );
    let a5 = find(c, "a5");
    assert_eq!(
        a5.created_at, 1_751_935_512_000,
        "a missing time takes the parent's"
    );
    assert_eq!(texts(a5), ["巴黎今天晴天，24°C。"]);
}

#[test]
fn a_chatgpt_conversation_missing_most_fields_gets_defaults_and_a_stable_id() {
    let (_, items) = read("chatgpt-conversations.json");
    let c = &items[1];
    assert!(
        c.conversation.id.starts_with("chatgpt-"),
        "{}",
        c.conversation.id
    );
    assert_eq!(
        (c.conversation.title.as_str(), c.conversation.created_at),
        ("", 0)
    );
    assert_eq!(c.messages.len(), 2);
    assert_eq!(c.messages[1].status, MessageStatus::Interrupted);
    assert_eq!(c.conversation.head_id.as_deref(), Some("n2"));
    let (_, again) = read("chatgpt-conversations.json");
    assert_eq!(again[1].conversation.id, c.conversation.id);
}

#[test]
fn claude_messages_follow_their_parents_and_tool_use_is_split_into_call_result_and_answer() {
    let (source, items) = read("claude-conversations.json");
    assert_eq!(source, ImportSource::Claude);
    let c = &items[0];
    assert_eq!(c.conversation.title, "Weather in Paris");
    assert_eq!(c.conversation.created_at, 1_751_935_438_000);
    let ids: Vec<&str> = c.messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["m1", "m2", "m2-1", "m2-2", "m3", "m4", "m3b", "m4b"]);
    assert_eq!(
        texts(find(c, "m1")),
        [
            "What's the weather in Paris?",
            "Attachment notes.txt:\n\nBring an umbrella."
        ]
    );
    let m2 = find(c, "m2");
    assert_eq!(m2.parent_id.as_deref(), Some("m1"));
    assert_eq!(
        texts(m2),
        ["I should call the weather tool.", "Let me check."]
    );
    assert!(
        matches!(&m2.content[2], ContentPart::ToolCall { id, server, tool, arguments }
        if id == "toolu_01" && server == "claude" && tool == "get_weather" && arguments["city"] == "Paris")
    );
    let result = find(c, "m2-1");
    assert_eq!(
        (result.role, result.parent_id.as_deref()),
        (Role::Tool, Some("m2"))
    );
    assert!(
        matches!(&result.content[0], ContentPart::ToolResult { call_id, content, is_error: false }
        if call_id == "toolu_01" && crate::vocab::mcp::result_text(content) == "Rain, 12°C")
    );
    assert_eq!(texts(find(c, "m2-2")), ["It's raining in Paris, 12°C."]);
    assert_eq!(find(c, "m3").parent_id.as_deref(), Some("m2-2"));
    assert_eq!(
        find(c, "m3b").parent_id.as_deref(),
        Some("m2-2"),
        "an edit is a branch"
    );
    assert_eq!(texts(find(c, "m3b")), ["谢谢！", "[file: photo.jpg]"]);
    assert_eq!(c.conversation.head_id.as_deref(), Some("m4b"));
}

#[test]
fn an_old_claude_export_without_parents_ids_or_times_is_a_chain() {
    let (_, items) = read("claude-conversations.json");
    let c = &items[1];
    let ids: Vec<&str> = c.messages.iter().map(|m| m.id.as_str()).collect();
    let last = format!("{}-3", c.conversation.id);
    assert_eq!(
        ids,
        ["o1", "o2", "o2-1", "o2-2", last.as_str()],
        "the unknown sender is skipped"
    );
    assert_eq!(c.messages[4].parent_id.as_deref(), Some("o2-2"));
    let ContentPart::ToolCall { id, .. } = &c.messages[1].content[0] else {
        panic!()
    };
    assert!(
        matches!(&c.messages[2].content[0], ContentPart::ToolResult { call_id, .. } if call_id == id),
        "matched by tool name"
    );
    assert_eq!(
        c.messages[4].created_at, c.messages[0].created_at,
        "a missing time takes the previous one"
    );
}

#[tokio::test]
async fn importing_chatgpt_and_claude_files_twice_adds_once_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path(), "i.db").await;
    for name in ["chatgpt-conversations.json", "claude-conversations.json"] {
        let dry = import_file(&s, &fixture(name), true).await.unwrap();
        assert_eq!((dry.report.added, dry.report.dry_run), (2, true));
        assert!(
            s.all_conversation_ids().await.unwrap().len() <= 2,
            "a dry run adds nothing"
        );
        let first = import_file(&s, &fixture(name), false).await.unwrap();
        assert_eq!(first.report.added, 2);
        let again = import_file(&s, &fixture(name), false).await.unwrap();
        assert_eq!(
            (
                again.report.added,
                again.report.skipped,
                again.report.messages_added
            ),
            (0, 2, 0)
        );
    }
    assert_eq!(s.all_conversation_ids().await.unwrap().len(), 4);
    let branch = s.branch("a5").await.unwrap();
    assert_eq!(
        branch.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        ["u1b", "th1", "a3", "u2", "a4", "t2", "a5"]
    );
    let hits = s
        .search_messages("晴天", &crate::store::PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(hits.items.len(), 1, "imported text is searchable");
}

async fn assert_nothing_imported(text: &str) -> ExportError {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(&path, text).unwrap();
    let s = store(dir.path(), "e.db").await;
    let err = import_file(&s, &path, false).await.unwrap_err();
    assert!(
        s.all_conversation_ids().await.unwrap().is_empty(),
        "nothing imported after: {err}"
    );
    err
}

#[tokio::test]
async fn a_truncated_file_names_its_end_and_imports_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let a = store(dir.path(), "a.db").await;
    seed(&a, &[weather(), super::fixtures::branchy()]).await;
    let text = String::from_utf8(json_of(&a).await).unwrap();
    let cut = &text[..text.len() * 2 / 3];
    let err = assert_nothing_imported(cut).await;
    let ExportError::Parse { what, line, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(what.contains("ends early"), "{err}");
    assert_eq!(*line, cut.lines().count());
    assert!(
        err.to_string().contains(&format!("at line {line}, column")),
        "{err}"
    );
}

#[tokio::test]
async fn corrupt_json_names_the_line_and_column_and_imports_nothing() {
    let text = std::fs::read_to_string(fixture("claude-conversations.json")).unwrap();
    let broken = text.replacen("\"sender\": \"assistant\",", "\"sender\": assistant,", 1);
    let err = assert_nothing_imported(&broken).await;
    let line = broken
        .lines()
        .position(|l| l.contains("\"sender\": assistant,"))
        .unwrap()
        + 1;
    assert!(
        err.to_string().starts_with(&format!(
            "the file is not valid JSON at line {line}, column"
        )),
        "{err}"
    );
    let wrong_type = text.replacen(
        "\"chat_messages\": [\n      {\"uuid\": \"o1\"",
        "\"chat_messages\": [\n      {\"uuid\": 17",
        1,
    );
    let err = assert_nothing_imported(&wrong_type).await;
    assert!(
        err.to_string().contains("unexpected value at line"),
        "{err}"
    );
}

#[tokio::test]
async fn an_export_whose_message_follows_a_missing_parent_is_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let a = store(dir.path(), "a.db").await;
    seed(&a, &[weather(), super::fixtures::branchy()]).await;
    let text = String::from_utf8(json_of(&a).await).unwrap();
    let broken = text.replacen("\"parentId\":\"b3\"", "\"parentId\":\"nowhere\"", 1);
    let err = assert_nothing_imported(&broken).await;
    assert!(
        err.to_string().contains("conversation #1 (conv-branchy)")
            && err.to_string().contains("follows nowhere"),
        "{err}"
    );
    let cyclic = text.replacen(
        "\"id\":\"m0-user\",\"parentId\":null",
        "\"id\":\"m0-user\",\"parentId\":\"m3-assistant\"",
        1,
    );
    let err = assert_nothing_imported(&cyclic).await;
    assert!(err.to_string().contains("is its own ancestor"), "{err}");
    let newer = text.replacen("\"schemaVersion\":1", "\"schemaVersion\":2", 1);
    let err = assert_nothing_imported(&newer).await;
    assert!(err.to_string().contains("schema version 2"), "{err}");
    let err = assert_nothing_imported("{\"mcpServers\": {}}").await;
    assert!(
        err.to_string().contains("without a \"format\" field"),
        "{err}"
    );
}

/// An MCP App stored with a tool result is not imported: the file is untrusted, and its App
/// would run bound to whichever server it names. The result itself is kept.
#[tokio::test]
async fn an_imported_tool_result_loses_its_mcp_app_and_keeps_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let a = store(dir.path(), "a.db").await;
    let mut item = weather();
    let app = serde_json::json!({"server": "files", "tool": "t", "resourceUri": "ui://x",
        "html": "<script>evil()</script>", "csp": {}, "prefersBorder": null});
    let result = item
        .messages
        .iter_mut()
        .flat_map(|m| m.content.iter_mut())
        .find_map(|p| match p {
            ContentPart::ToolResult { content, .. } => Some(content),
            _ => None,
        });
    let result = result.expect("the fixture has a tool result");
    let before = result.clone();
    result.as_object_mut().unwrap().insert("app".into(), app);
    seed(&a, &[item]).await;
    let text = String::from_utf8(json_of(&a).await).unwrap();
    assert!(text.contains("evil()"), "the export keeps what is stored");
    let (_, items) = parse_import(&text).unwrap();
    let imported = items[0]
        .messages
        .iter()
        .flat_map(|m| &m.content)
        .find_map(|p| match p {
            ContentPart::ToolResult { content, .. } => Some(content.clone()),
            _ => None,
        });
    assert_eq!(imported, Some(before));
}

#[test]
fn inline_data_that_is_not_an_image_stays_inline_and_assistant_images_are_left_alone() {
    use super::fixtures::{conversation, message};
    use base64::Engine as _;
    let mut bytes = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(image::RgbImage::new(1, 1))
        .write_to(&mut bytes, image::ImageFormat::Png)
        .unwrap();
    let png = &base64::engine::general_purpose::STANDARD.encode(bytes.into_inner());
    let image = |data: &str| ContentPart::Image {
        mime_type: "image/png".into(),
        data: data.into(),
        name: None,
    };
    let item = conversation(
        "c",
        "t",
        vec![
            message(
                "c",
                "u",
                None,
                Role::User,
                0,
                vec![image("bm90IGFuIGltYWdl"), image("%%%"), image(png)],
            ),
            message("c", "a", Some("u"), Role::Assistant, 1, vec![image(png)]),
        ],
    );
    let (item, blobs) = crate::export::import::images_stored_in(item);
    assert_eq!(blobs.len(), 1);
    let user = &item.messages[0].content;
    assert_eq!(user[0], image("bm90IGFuIGltYWdl"));
    assert_eq!(user[1], image("%%%"));
    assert!(
        matches!(&user[2], ContentPart::ImageRef(r) if r.hash == blobs[0].hash && (r.width, r.height) == (1, 1)),
        "{user:?}"
    );
    assert_eq!(item.messages[1].content, vec![image(png)]);
}
