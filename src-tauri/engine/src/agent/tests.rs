//! Unit tests of the agent's pure parts: history repair, the context budget, event
//! coalescing and titles.

use serde_json::json;

use super::budget::{self, CUT_MARKER};
use super::coalesce;
use super::history::{self, UNFINISHED};
use super::{title_from, title_source};
use crate::provider::names::ToolNames;
use crate::provider::{ChatMessage, ToolCall};
use crate::store::{Message, MessageStatus, Role};
use crate::vocab::chat::ChatEvent;
use crate::vocab::content::ContentPart;

fn msg(role: Role, content: Vec<ContentPart>, status: MessageStatus) -> Message {
    Message {
        id: uuid::Uuid::now_v7().to_string(),
        conversation_id: "c".into(),
        parent_id: None,
        role,
        content,
        status,
        model: None,
        usage: None,
        error: None,
        created_at: 0,
        updated_at: 0,
    }
}

fn call(id: &str) -> ContentPart {
    ContentPart::ToolCall {
        id: id.into(),
        server: "weather".into(),
        tool: "get_weather".into(),
        arguments: json!({"location": "California"}),
    }
}

fn result(id: &str, text: &str) -> ContentPart {
    ContentPart::ToolResult {
        call_id: id.into(),
        content: json!({"content": [{"type": "text", "text": text}], "structured": null, "is_error": false}),
        is_error: false,
    }
}

fn done(role: Role, content: Vec<ContentPart>) -> Message {
    msg(role, content, MessageStatus::Complete)
}

#[test]
fn a_call_left_unanswered_by_a_crash_gets_a_synthetic_error_result() {
    let branch = [
        done(Role::User, vec![ContentPart::text("weather?")]),
        msg(
            Role::Assistant,
            vec![call("c1")],
            MessageStatus::Interrupted,
        ),
        done(Role::User, vec![ContentPart::text("hello?")]),
    ];
    let names = ToolNames::build([("weather", "get_weather")]);
    let chat = history::to_chat(&branch, &names);
    assert_eq!(
        chat[1..3],
        [
            ChatMessage::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "weather__get_weather".into(),
                    arguments: json!({"location": "California"}),
                }],
            },
            ChatMessage::Tool {
                call_id: "c1".into(),
                name: "weather__get_weather".into(),
                content: UNFINISHED.into(),
                is_error: true,
            },
        ]
    );
    assert_eq!(chat.len(), 4);
}

#[test]
fn call_ids_repeated_across_turns_are_renamed_with_their_results() {
    let branch = [
        done(Role::User, vec![ContentPart::text("a")]),
        done(Role::Assistant, vec![call("call_0")]),
        done(Role::Tool, vec![result("call_0", "one")]),
        done(Role::Assistant, vec![call("call_0")]),
        done(Role::Tool, vec![result("call_0", "two")]),
    ];
    let chat = history::to_chat(&branch, &ToolNames::default());
    let ids: Vec<(&str, &str)> = chat
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool {
                call_id, content, ..
            } => Some((call_id.as_str(), content.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(ids, [("call_0", "one"), ("call_0_2", "two")]);
}

#[test]
fn results_without_a_call_and_empty_assistant_messages_are_left_out() {
    let branch = [
        done(Role::User, vec![ContentPart::text("a")]),
        msg(Role::Assistant, vec![], MessageStatus::Error),
        done(Role::Tool, vec![result("ghost", "boo")]),
        done(Role::User, vec![ContentPart::text("b")]),
    ];
    let chat = history::to_chat(&branch, &ToolNames::default());
    assert_eq!(chat, [ChatMessage::user("a"), ChatMessage::user("b")]);
}

#[test]
fn a_gone_tool_keeps_a_provider_safe_name_and_invalid_arguments_become_an_object() {
    let names = ToolNames::default();
    assert_eq!(
        history::safe_name(&names, "my server", "do.it"),
        "my_server__do_it"
    );
    let branch = [
        done(Role::User, vec![ContentPart::text("a")]),
        done(
            Role::Assistant,
            vec![ContentPart::ToolCall {
                id: "x".into(),
                server: String::new(),
                tool: "made_up".into(),
                arguments: json!("{not json"),
            }],
        ),
    ];
    let chat = history::to_chat(&branch, &names);
    let ChatMessage::Assistant { tool_calls, .. } = &chat[1] else {
        panic!()
    };
    assert_eq!(tool_calls[0].name, "made_up");
    assert_eq!(tool_calls[0].arguments, json!({"_raw": "{not json"}));
}

#[test]
fn result_text_describes_non_text_parts_and_falls_back_to_structured_content() {
    let v = json!({"content": [{"type": "image", "mime": "image/png", "data": "AAAA"}],
        "structured": null, "is_error": false});
    assert_eq!(history::result_text(&v), "[image image/png, 3 bytes]");
    let v = json!({"content": [], "structured": {"t": 21}, "is_error": false});
    assert_eq!(history::result_text(&v), "{\"t\":21}");
}

fn exchange(i: usize, words: usize) -> Vec<ChatMessage> {
    vec![
        ChatMessage::user(format!("question {i}")),
        ChatMessage::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: format!("c{i}"),
                name: "t".into(),
                arguments: json!({}),
            }],
        },
        ChatMessage::Tool {
            call_id: format!("c{i}"),
            name: "t".into(),
            content: "word ".repeat(words),
            is_error: false,
        },
        ChatMessage::Assistant {
            text: "ok".into(),
            tool_calls: vec![],
        },
    ]
}

#[test]
fn the_budget_drops_whole_oldest_exchanges_and_keeps_the_newest() {
    let messages: Vec<ChatMessage> = (0..10).flat_map(|i| exchange(i, 200)).collect();
    let fitted = budget::fit(Some("be brief"), &no_tools(), messages, 1000, 100);
    assert!(fitted.estimate <= 900, "{}", fitted.estimate);
    assert_eq!(fitted.messages.len() % 4, 0, "whole exchanges only");
    assert_eq!(fitted.dropped + fitted.messages.len(), 40);
    assert!(matches!(&fitted.messages[0], ChatMessage::User { .. }));
    assert_eq!(fitted.messages.last(), exchange(9, 200).last());
}

#[test]
fn the_newest_exchange_stays_even_when_too_big_with_its_huge_result_cut() {
    let fitted = budget::fit(None, &no_tools(), exchange(0, 50_000), 4000, 500);
    assert_eq!(fitted.messages.len(), 4);
    let ChatMessage::Tool { content, .. } = &fitted.messages[2] else {
        panic!()
    };
    assert!(content.ends_with(CUT_MARKER));
    assert!(content.len() < 5000);
}

fn no_tools() -> budget::ToolsCost<'static> {
    static MEASURES: std::sync::LazyLock<budget::ToolsMeasures> =
        std::sync::LazyLock::new(Default::default);
    budget::ToolsCost {
        specs: &[],
        measures: &MEASURES,
    }
}

#[test]
fn a_request_whose_bytes_fit_the_window_is_sent_whole_without_loading_the_tokenizer() {
    let messages: Vec<ChatMessage> = (0..3).flat_map(|i| exchange(i, 200)).collect();
    let specs = vec![crate::provider::ToolSpec {
        name: "get_time".into(),
        description: "The time in a zone".into(),
        parameters: serde_json::json!({"type": "object"}),
    }];
    let measures = budget::ToolsMeasures::default();
    let tools = budget::ToolsCost {
        specs: &specs,
        measures: &measures,
    };
    budget::COUNTED.with(|c| c.set(0));
    let fitted = budget::fit(Some("be brief"), &tools, messages.clone(), 32_768, 4096);
    assert_eq!(budget::COUNTED.with(std::cell::Cell::get), 0);
    assert_eq!((fitted.messages, fitted.dropped), (messages.clone(), 0));
    assert!(measures.counted().is_none(), "the tools were not counted");

    // The same request in a window its bytes do not fit is counted, tools included.
    let fitted = budget::fit(Some("be brief"), &tools, messages, 2_000, 100);
    assert!(budget::COUNTED.with(std::cell::Cell::get) > 0);
    assert!(measures.counted().is_some());
    assert_eq!(fitted.dropped, 0, "counted in tokens, it still fits");
}

#[test]
fn no_text_has_more_tokens_than_bytes() {
    // The bound the budget relies on, over scripts and symbols that tokenize badly.
    let texts = [
        "plain English words and numbers 1234567890",
        "北京今天的天气怎么样？请告诉我明天的天气预报。",
        "emoji 🎉🚀👩‍👩‍👧‍👦 and flags 🇨🇳🇺🇸",
        "\u{0}\u{1}\u{7f} control and ￿ \u{10FFFF}",
        "{\"json\": [1, 2, {\"nested\": null}], \"x\": \"y\"}",
        "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙 ∮ E⋅da = Q,  n → ∞, ∑ f(i) = ∏ g(i)",
        " \t\n\r  spaces   and\ttabs\n\n\n",
        "ÅÄÖ åäö ß ñ ç ø œ æ ğ ş ı İ",
    ];
    for text in texts {
        assert!(budget::count(text) <= budget::bound(text), "{text:?}");
    }
}

#[test]
fn chinese_text_is_counted_in_tokens_not_bytes() {
    let n = budget::count("北京今天的天气怎么样？");
    assert!((3..=15).contains(&n), "{n}");
}

#[test]
fn consecutive_deltas_of_one_message_merge_and_other_events_keep_their_place() {
    let mut batch = Vec::new();
    let t = |m: &str, s: &str| ChatEvent::TextDelta {
        message_id: m.into(),
        text: s.into(),
    };
    for e in [
        t("a", "Hel"),
        t("a", "lo"),
        ChatEvent::StepFinished { step: 1 },
        t("a", "!"),
        t("b", "?"),
    ] {
        coalesce::push(&mut batch, e);
    }
    assert_eq!(
        batch,
        [
            t("a", "Hello"),
            ChatEvent::StepFinished { step: 1 },
            t("a", "!"),
            t("b", "?")
        ]
    );
}

#[tokio::test]
async fn forward_delivers_everything_in_batches_and_ends_when_the_turn_does() {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    for i in 0..100 {
        tx.send(ChatEvent::TextDelta {
            message_id: "m".into(),
            text: i.to_string(),
        })
        .unwrap();
    }
    drop(tx);
    let mut batches = Vec::new();
    coalesce::forward(rx, coalesce::INTERVAL, |b| batches.push(b)).await;
    assert_eq!(batches.len(), 1);
    let expected: String = (0..100).map(|i| i.to_string()).collect();
    assert_eq!(
        batches[0],
        [ChatEvent::TextDelta {
            message_id: "m".into(),
            text: expected
        }]
    );
}

#[test]
fn titles_come_from_the_first_non_empty_line_cut_at_sixty_characters() {
    assert_eq!(
        title_from("\n  Weather in Paris?\nmore"),
        "Weather in Paris?"
    );
    assert_eq!(title_from(&"x".repeat(70)), format!("{}…", "x".repeat(60)));
    assert_eq!(title_from("北京天气"), "北京天气");
}

#[test]
fn a_model_title_loses_quotes_labels_and_the_final_period() {
    use super::title::clean;
    assert_eq!(
        clean("\"Weather in California.\"\n"),
        Some("Weather in California".into())
    );
    assert_eq!(clean("Title: 北京天气。"), Some("北京天气".into()));
    assert_eq!(clean("  \n"), None);
    assert_eq!(
        clean("Sure, here is a title:\n\n- Tokyo time now"),
        Some("Tokyo time now".into())
    );
}

#[test]
fn a_model_reply_that_is_not_a_title_is_not_taken_for_one() {
    use super::title::clean;
    // What SmolLM2-135M wrote when asked for the title of "What time is it now in Tokyo?".
    for reply in [
        "InternationalDiplomacy #China #Billionaire #NewSeas #LianShan",
        "As a helpful AI, I'm happy to help with any questions or discussions you may have",
        "It's 2026-12-38T19:45:07Z (",
        "The output will be formatted as:",
        "def time_getcurrent():",
        "3026.8",
        "The result of `time_get_current_time` refers to a JSON object",
        "`{",
        "time__get_current_timeExample1.json",
        "const x = 1",
        "Politically Inbound, QQ, 2024-Jul-16ZmNFC,",
    ] {
        assert_eq!(clean(reply), None, "{reply}");
    }
    for (reply, title) in [
        ("Today, in Tokyo!", "Today, in Tokyo!"),
        ("东京现在的时间", "东京现在的时间"),
        (
            "**Weather in Paris: a forecast**",
            "Weather in Paris: a forecast",
        ),
    ] {
        assert_eq!(clean(reply).as_deref(), Some(title), "{reply}");
    }
}

#[test]
fn attached_resources_follow_the_users_text_as_parts_of_the_same_message() {
    use crate::provider::UserPart;
    use crate::vocab::content::Attachment;
    use crate::vocab::mcp::ResourceBody;
    let attachment = |uri: &str, mime: &str, body| {
        ContentPart::Resource(Attachment {
            server: "docs".into(),
            uri: uri.into(),
            name: "notes".into(),
            mime_type: Some(mime.into()),
            body,
        })
    };
    let branch = [done(
        Role::User,
        vec![
            ContentPart::text("summarize"),
            attachment(
                "file:///n.md",
                "text/markdown",
                ResourceBody::Text("# N".into()),
            ),
            attachment(
                "file:///p.png",
                "image/png",
                ResourceBody::Blob("iVBO".into()),
            ),
        ],
    )];
    let chat = history::to_chat(&branch, &ToolNames::default());
    assert_eq!(
        chat,
        [ChatMessage::User {
            parts: vec![
                UserPart::Text {
                    text: "summarize".into()
                },
                UserPart::Text {
                    text: "<resource server=\"docs\" uri=\"file:///n.md\" name=\"notes\" \
                           mimeType=\"text/markdown\">\n# N\n</resource>"
                        .into()
                },
                UserPart::Image {
                    mime_type: "image/png".into(),
                    data: "iVBO".into()
                },
            ]
        }]
    );
}

#[test]
fn a_first_message_is_titled_after_its_text_else_its_first_attachment() {
    use crate::vocab::content::Attachment;
    use crate::vocab::mcp::ResourceBody;
    let notes = ContentPart::Resource(Attachment {
        server: "docs".into(),
        uri: "file:///notes.md".into(),
        name: "notes.md".into(),
        mime_type: None,
        body: ResourceBody::Text("# N".into()),
    });
    let both = [ContentPart::text("summarize"), notes.clone()];
    assert_eq!(title_source(&both), "summarize");
    assert_eq!(title_source(std::slice::from_ref(&notes)), "notes.md");
    assert_eq!(title_from(title_source(&[])), "New chat");
}
