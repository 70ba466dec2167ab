//! The watch over streamed text: where a call begins, what is held while undecided, and what
//! is never a call; spent calls and their repeats.

#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;
use crate::provider::ToolCall;

/// Scans `text` as it grows piece by piece; the last result.
fn scan_pieces(pieces: &[&str]) -> Vec<Scan> {
    let mut watch = Watch::default();
    let mut text = String::new();
    pieces
        .iter()
        .map(|p| {
            text.push_str(p);
            watch.scan(&text)
        })
        .collect()
}

fn scan(text: &str) -> Scan {
    Watch::default().scan(text)
}

#[test]
fn template_markers_begin_a_call_where_they_stand() {
    assert_eq!(
        scan("Let me check.\n<tool_call>\n{"),
        Scan::Call {
            at: 14,
            form: Form::Tagged
        }
    );
    assert_eq!(
        scan("[TOOL_CALLS][{\"name\""),
        Scan::Call {
            at: 0,
            form: Form::Mistral
        }
    );
    assert_eq!(
        scan("<|python_tag|>{"),
        Scan::Call {
            at: 0,
            form: Form::Python
        }
    );
}

#[test]
fn a_json_object_whose_first_key_names_a_tool_is_a_call_bare_or_fenced() {
    assert_eq!(
        scan("{\"tool\": \"get"),
        Scan::Call {
            at: 0,
            form: Form::Bare
        }
    );
    assert_eq!(
        scan("Sure:\n```json\n{\"name\":"),
        Scan::Call {
            at: 6,
            form: Form::Fenced
        }
    );
    assert_eq!(
        scan("[ {\"function\": 1"),
        Scan::Call {
            at: 0,
            form: Form::Bare
        }
    );
}

#[test]
fn text_that_may_still_begin_a_call_is_held_and_let_go_once_it_does_not() {
    let pieces = ["The answer ", "is {", "\"na", "mely\": 1} ok"];
    let all = pieces.concat().len();
    let got = scan_pieces(&pieces);
    assert_eq!(
        got,
        vec![
            Scan::Free(11),
            Scan::Free(14),
            Scan::Free(14),
            Scan::Free(all)
        ]
    );
    let got = scan_pieces(&["See <tool", "_call>"]);
    assert_eq!(
        got,
        vec![
            Scan::Free(4),
            Scan::Call {
                at: 4,
                form: Form::Tagged
            }
        ]
    );
}

#[test]
fn prose_code_samples_and_plain_json_are_never_calls() {
    for text in [
        "Paris is the capital of France.",
        "Use a map: {a: 1} or [1, 2].",
        "```python\nprint({'x': 1})\n```\nDone.",
        "```json\n{\"city\": \"Paris\", \"name\": \"x\"}\n```\nDone.",
        "An array [\"a\", 2] of things",
        "a < b and c > d",
    ] {
        assert_eq!(scan(text), Scan::Free(text.len()), "{text}");
    }
}

#[test]
fn a_fence_whose_body_begins_with_any_character_is_scanned_without_a_panic() {
    // Gemma 3 wrote "```\n我叫…" and the scan sliced inside '我' (the runtime thread died).
    for body in [
        "我叫李雷",
        "é",
        "😀 !",
        "\u{0}",
        "x",
        "[我",
        "[ 我",
        "{ 我",
        "{\"我",
    ] {
        let text = format!("```\n{body}");
        assert_eq!(scan(&text), Scan::Free(text.len()), "{text:?}");
        let grown: Vec<&str> = text.split_inclusive(|_| true).collect();
        assert_eq!(
            scan_pieces(&grown).last(),
            Some(&Scan::Free(text.len())),
            "{text:?}"
        );
    }
    assert_eq!(
        scan("```\n{\"名\": 1}"),
        Scan::Free("```\n{\"名\": 1}".len())
    );
}

#[test]
fn an_undecided_start_is_let_go_after_a_bounded_wait() {
    let text = format!("```{}", "x".repeat(200));
    assert_eq!(scan(&text), Scan::Free(text.len()));
    let text = format!("{{{}", " ".repeat(200));
    assert_eq!(scan(&text), Scan::Free(text.len()));
}

fn call(id: &str, name: &str, city: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: json!({ "city": city }),
    }
}

#[test]
fn spent_calls_are_the_answered_calls_since_the_last_user_message() {
    let req = ChatRequest {
        messages: vec![
            ChatMessage::user("Weather in Oslo?"),
            ChatMessage::Assistant {
                text: String::new(),
                tool_calls: vec![call("a", "weather", "Oslo")],
            },
            ChatMessage::Tool {
                call_id: "a".into(),
                name: "weather".into(),
                content: "5 C".into(),
                is_error: false,
            },
            ChatMessage::user("And Rome?"),
            ChatMessage::Assistant {
                text: String::new(),
                tool_calls: vec![call("b", "weather", "Rome"), call("c", "weather", "Bari")],
            },
            ChatMessage::Tool {
                call_id: "b".into(),
                name: "weather".into(),
                content: "20 C".into(),
                is_error: false,
            },
        ],
        ..Default::default()
    };
    assert_eq!(
        spent_calls(&req),
        vec![("weather".to_owned(), json!({ "city": "Rome" }))]
    );
}

#[test]
fn a_finished_call_repeats_the_spent_ones_only_when_all_its_calls_were_made() {
    let hold = Hold {
        names: vec!["weather".into()],
        spent: vec![("weather".into(), json!({ "city": "Rome" }))],
        ..Default::default()
    };
    let same = "```json\n{\"tool\": \"weather\", \"arguments\": {\"city\": \"Rome\"}}\n```";
    let other = "{\"name\": \"weather\", \"arguments\": {\"city\": \"Oslo\"}}";
    assert!(repeats_spent(same, &hold));
    assert!(!repeats_spent(other, &hold));
    assert!(!repeats_spent("no call here", &hold));
    assert!(!repeats_spent(same, &Hold::default()));
}
