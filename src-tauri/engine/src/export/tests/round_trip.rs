//! Round trips: export JSON → import into an empty database → export again gives the same
//! bytes (examples and a property test over generated trees), and merging by id.

use proptest::prelude::*;
use serde_json::json;

use super::fixtures::{PNG, branchy, weather};
use super::{json_of, seed, store};
use crate::export::ImportSource;
use crate::export::parse_import;
use crate::store::{
    Conversation, ImportItem, MergeAction, Message, MessageStatus, Role, TokenUsage,
};
use crate::vocab::content::ContentPart;

async fn round_trip(items: &[ImportItem]) -> (Vec<u8>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let a = store(dir.path(), "a.db").await;
    seed(&a, items).await;
    let first = json_of(&a).await;
    let (source, parsed) = parse_import(std::str::from_utf8(&first).unwrap()).unwrap();
    assert_eq!(source, ImportSource::Switchboard);
    let b = store(dir.path(), "b.db").await;
    seed(&b, &parsed).await;
    let second = json_of(&b).await;
    a.close().await;
    b.close().await;
    (first, second)
}

#[tokio::test]
async fn json_exported_imported_and_exported_again_is_byte_identical() {
    let (first, second) = round_trip(&[weather(), branchy()]).await;
    assert_eq!(
        String::from_utf8(first.clone()).unwrap(),
        String::from_utf8(second).unwrap()
    );
    let text = String::from_utf8(first).unwrap();
    assert!(text.starts_with(
        "{\"format\":\"switchboard.conversations\",\"schemaVersion\":1,\"conversations\":["
    ));
    assert!(text.contains("\"parentId\":\"b3\"") && text.contains("画一张图"));
}

#[tokio::test]
async fn importing_the_same_file_again_skips_everything_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let a = store(dir.path(), "a.db").await;
    seed(&a, &[weather(), branchy()]).await;
    let before = json_of(&a).await;
    let (_, items) = parse_import(std::str::from_utf8(&before).unwrap()).unwrap();
    let report = a.import_conversations(&items, false).await.unwrap();
    assert_eq!(
        (
            report.added,
            report.skipped,
            report.conflicted,
            report.messages_added
        ),
        (0, 2, 0, 0)
    );
    assert!(report.entries.iter().all(|e| e.action == MergeAction::Skip));
    assert_eq!(json_of(&a).await, before);
}

#[tokio::test]
async fn a_changed_message_is_a_conflict_kept_as_it_was_and_a_new_branch_is_merged() {
    let dir = tempfile::tempdir().unwrap();
    let a = store(dir.path(), "a.db").await;
    seed(&a, &[weather()]).await;
    let mut changed = weather();
    changed.messages[3].content = vec![ContentPart::text("sunny, honestly")];
    let mut extra = changed.messages[0].clone();
    extra.id = "m4-user-edit".into();
    extra.content = vec![ContentPart::text("and in Oregon?")];
    changed.messages.push(extra);
    changed.conversation.title = "Renamed elsewhere".into();
    let dry = a
        .import_conversations(std::slice::from_ref(&changed), true)
        .await
        .unwrap();
    assert!(dry.dry_run);
    assert_eq!(
        a.all_messages("conv-weather").await.unwrap().len(),
        4,
        "a dry run writes nothing"
    );
    let report = a.import_conversations(&[changed], false).await.unwrap();
    assert_eq!(report, with_dry_run(dry, false));
    let entry = &report.entries[0];
    assert_eq!(entry.action, MergeAction::Conflict);
    assert_eq!(
        (
            entry.messages_added,
            entry.messages_skipped,
            entry.messages_conflicted
        ),
        (1, 3, 1)
    );
    assert!(
        entry.conflicts.iter().any(|c| c.contains("title")),
        "{:?}",
        entry.conflicts
    );
    assert!(
        entry.conflicts.iter().any(|c| c.contains("m3-assistant")),
        "{:?}",
        entry.conflicts
    );
    let kept = a.get_message("m3-assistant").await.unwrap();
    assert!(
        matches!(&kept.content[0], ContentPart::Text { text } if text.starts_with("The weather report"))
    );
    assert_eq!(
        a.get_conversation("conv-weather").await.unwrap().title,
        "What is the weather in California?"
    );
    assert_eq!(
        a.siblings("m4-user-edit").await.unwrap(),
        ["m0-user", "m4-user-edit"]
    );
}

/// The dry run's report with `dry_run` set as given (the rest must match the real run).
fn with_dry_run(mut r: crate::store::MergeReport, dry_run: bool) -> crate::store::MergeReport {
    r.dry_run = dry_run;
    r
}

#[tokio::test]
async fn a_message_id_taken_by_another_conversation_is_a_conflict_not_a_move() {
    let dir = tempfile::tempdir().unwrap();
    let a = store(dir.path(), "a.db").await;
    seed(&a, &[weather()]).await;
    let mut other = weather();
    other.conversation.id = "conv-other".into();
    for m in &mut other.messages {
        m.conversation_id = "conv-other".into();
    }
    let report = a.import_conversations(&[other], false).await.unwrap();
    assert_eq!(report.entries[0].messages_conflicted, 4);
    assert!(
        report.entries[0].conflicts[0].contains("already belongs to conversation conv-weather")
    );
    assert_eq!(
        a.get_message("m0-user").await.unwrap().conversation_id,
        "conv-weather"
    );
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 .,!?\n]{0,40}",
        "[加州天气下雨晴朗你好世界，。！]{0,20}",
        Just("<b>\"quoted\" & 'single'</b> `code` \\ back".to_owned()),
        Just("emoji 🌧️ and \u{0} nul and \u{2028} separator".to_owned()),
    ]
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    (
        text(),
        any::<i32>(),
        any::<bool>(),
        proptest::option::of(-1e9f64..1e9),
    )
        .prop_map(
            |(s, n, b, f)| json!({"s": s, "n": n, "b": b, "f": f, "nested": {"list": [n, s]}}),
        )
}

fn part() -> impl Strategy<Value = ContentPart> {
    prop_oneof![
        text().prop_map(ContentPart::text),
        text().prop_map(|text| ContentPart::Reasoning { text }),
        Just(ContentPart::Image { mime_type: "image/png".into(), data: PNG.into(), name: None }),
        (text(), text(), json_value()).prop_map(|(server, tool, arguments)| ContentPart::ToolCall {
            id: format!("call-{}", tool.len()),
            server,
            tool,
            arguments,
        }),
        (text(), any::<bool>()).prop_map(|(t, is_error)| ContentPart::ToolResult {
            call_id: "call-1".into(),
            content: json!({"content": [{"type": "text", "text": t}, {"type": "image", "mime": "image/png", "data": PNG}], "structured": null, "is_error": is_error}),
            is_error,
        }),
        (text(), text(), any::<bool>()).prop_map(|(name, value, blob)| {
            ContentPart::Resource(crate::vocab::content::Attachment {
                server: "docs".into(),
                uri: format!("file:///{}", name.len()),
                name,
                mime_type: blob.then(|| "image/png".into()),
                body: if blob {
                    crate::vocab::mcp::ResourceBody::Blob(PNG.into())
                } else {
                    crate::vocab::mcp::ResourceBody::Text(value)
                },
            })
        }),
    ]
}

fn role() -> impl Strategy<Value = Role> {
    prop_oneof![
        Just(Role::User),
        Just(Role::Assistant),
        Just(Role::Tool),
        Just(Role::System)
    ]
}

fn status() -> impl Strategy<Value = MessageStatus> {
    prop_oneof![
        Just(MessageStatus::Complete),
        Just(MessageStatus::Error),
        Just(MessageStatus::Cancelled),
        Just(MessageStatus::Interrupted),
        Just(MessageStatus::Streaming),
    ]
}

/// A message spec: parent choice, role, parts, status, usage, error, time.
type Spec = (
    prop::sample::Index,
    bool,
    Role,
    Vec<ContentPart>,
    MessageStatus,
    Option<(i64, i64)>,
    Option<String>,
    i64,
);

fn spec() -> impl Strategy<Value = Spec> {
    (
        any::<prop::sample::Index>(),
        any::<bool>(),
        role(),
        prop::collection::vec(part(), 0..4),
        status(),
        proptest::option::of((0i64..100_000, 0i64..100_000)),
        proptest::option::of(text()),
        0i64..4_000_000_000_000,
    )
}

fn conversation_of(
    n: usize,
    title: String,
    specs: Vec<Spec>,
    head: prop::sample::Index,
) -> ImportItem {
    let cid = format!("conv-{n}");
    let mut messages: Vec<Message> = Vec::new();
    for (i, (parent, root, role, content, status, usage, error, at)) in
        specs.into_iter().enumerate()
    {
        let parent_id = (!messages.is_empty() && !root)
            .then(|| messages[parent.index(messages.len())].id.clone());
        messages.push(Message {
            id: format!("{cid}-m{i}"),
            conversation_id: cid.clone(),
            parent_id,
            role,
            content,
            status,
            model: (role == Role::Assistant).then(|| "模型-1".to_owned()),
            usage: usage.map(|(i, o)| TokenUsage {
                input_tokens: i,
                output_tokens: o,
            }),
            error,
            created_at: at,
            updated_at: at + 5,
        });
    }
    let head_id = (!messages.is_empty()).then(|| messages[head.index(messages.len())].id.clone());
    ImportItem {
        conversation: Conversation {
            id: cid,
            title,
            created_at: n as i64,
            updated_at: n as i64 + 7,
            pinned: n.is_multiple_of(2),
            archived: n.is_multiple_of(3),
            provider_id: (n % 2 == 1).then(|| "provider-x".to_owned()),
            model: Some("qwen2.5:3b".into()),
            system_prompt: n.is_multiple_of(2).then(|| "系统提示".to_owned()),
            settings: json!({"servers": ["weather"], "n": n}),
            head_id,
            project_id: None,
        },
        messages,
    }
}

fn conversations() -> impl Strategy<Value = Vec<ImportItem>> {
    prop::collection::vec(
        (
            text(),
            prop::collection::vec(spec(), 0..12),
            any::<prop::sample::Index>(),
        ),
        1..4,
    )
    .prop_map(|cs| {
        cs.into_iter()
            .enumerate()
            .map(|(n, (title, specs, head))| conversation_of(n, title, specs, head))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_conversations_round_trip_through_json_byte_for_byte(items in conversations()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (first, second) = rt.block_on(round_trip(&items));
        prop_assert_eq!(&first, &second);
        // And the import reproduced the generated conversations exactly.
        let (_, parsed) = parse_import(std::str::from_utf8(&first).unwrap()).unwrap();
        let mut expected = items.clone();
        for item in &mut expected {
            item.messages.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        }
        let mut parsed = parsed;
        parsed.sort_by(|a, b| a.conversation.id.cmp(&b.conversation.id));
        expected.sort_by(|a, b| a.conversation.id.cmp(&b.conversation.id));
        prop_assert_eq!(parsed, expected);
    }
}
