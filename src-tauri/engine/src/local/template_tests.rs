//! Golden tests: real chat templates rendered here and by Python's jinja2
//! (`tests/fixtures/templates/make_goldens.py`) give the same text.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use serde_json::{Value as Json, json};

use super::*;
use crate::provider::ToolCall;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/templates")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).expect(name)
}

fn input(with_tools: bool) -> TemplateInput {
    let conversation: Json = serde_json::from_str(&read("conversation.json")).unwrap();
    TemplateInput {
        messages: conversation["messages"].as_array().unwrap().clone(),
        tools: with_tools.then(|| conversation["tools"].as_array().unwrap().clone()),
        add_generation_prompt: true,
        enable_thinking: None,
        bos_token: "<|im_start|>".into(),
        eos_token: "<|im_end|>".into(),
    }
}

fn assert_golden(template: &str) {
    let source = read(&format!("{template}.jinja"));
    for (with_tools, suffix) in [(true, "tools"), (false, "plain")] {
        let rendered = render(&source, &input(with_tools)).unwrap();
        let golden = read(&format!("{template}.{suffix}.golden.txt"));
        assert_eq!(
            rendered, golden,
            "{template} ({suffix}) differs from jinja2"
        );
    }
}

#[test]
fn smollm2s_own_template_renders_as_jinja2_does() {
    assert_golden("smollm2");
}

#[test]
fn qwen25s_template_renders_tools_calls_and_results_as_jinja2_does() {
    assert_golden("qwen2.5");
}

#[test]
fn llama31s_template_with_tools_in_the_user_message_renders_as_jinja2_does() {
    assert_golden("llama3.1");
}

#[test]
fn mistral_small_31s_template_with_tool_calls_and_results_renders_as_jinja2_does() {
    assert_golden("mistral-small-3.1");
}

#[test]
fn a_template_that_raises_gives_its_message() {
    let err = render(
        "{{ raise_exception('only user and assistant') }}",
        &input(false),
    );
    assert!(
        matches!(&err, Err(LocalError::Template(m)) if m.contains("only user and assistant")),
        "{err:?}"
    );
}

#[test]
fn a_backslash_newline_in_a_tags_string_is_a_line_continuation_but_kept_in_text() {
    let out = render("a\\\nb{{ 'c\\\nd' + \"\\\"\" }}", &input(false)).unwrap();
    assert_eq!(out, "a\\\nbcd\"");
}

#[test]
fn tojson_takes_pythons_indent() {
    let mut input = input(false);
    input.messages =
        vec![json!({ "role": "user", "content": "x", "extra": { "b": [1], "a": {} } })];
    let out = render("{{ messages[0].extra | tojson(indent=2) }}", &input).unwrap();
    assert_eq!(out, "{\n  \"a\": {},\n  \"b\": [\n    1\n  ]\n}");
}

#[test]
fn chatml_is_used_for_a_model_without_a_template() {
    let mut input = input(false);
    input.messages = vec![json!({ "role": "user", "content": "Hi" })];
    let out = render(CHATML, &input).unwrap();
    assert_eq!(
        out,
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    );
}

#[test]
fn a_request_becomes_the_messages_templates_read() {
    let req = ChatRequest {
        system: Some("Be brief.".into()),
        messages: vec![
            ChatMessage::user("Weather?"),
            ChatMessage::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_0".into(),
                    name: "get_weather".into(),
                    arguments: json!({ "city": "Paris" }),
                }],
            },
            ChatMessage::Tool {
                call_id: "call_0".into(),
                name: "get_weather".into(),
                content: "18".into(),
                is_error: false,
            },
        ],
        ..Default::default()
    };
    let got = messages(&req);
    assert_eq!(got[0], json!({ "role": "system", "content": "Be brief." }));
    assert_eq!(
        got[2]["tool_calls"][0]["function"]["arguments"],
        json!({ "city": "Paris" })
    );
    assert_eq!(
        got[3],
        json!({ "role": "tool", "tool_call_id": "call_0", "name": "get_weather", "content": "18" })
    );
    assert!(supports_tools(&read("qwen2.5.jinja")));
    assert!(!supports_tools(&read("smollm2.jinja")));
}
