//! The table of real-looking replies: each must yield exactly its text and calls, whole or
//! streamed in two pieces.

use futures::StreamExt;
use serde_json::{Value, json};

use super::super::*;
use super::{Fake, Refusal, request, search_spec};
use crate::provider::{Provider, ProviderError, ProviderEvent};

const KNOWN: &[&str] = &[
    "get_weather",
    "search",
    "read_file",
    "write_file",
    "execute_test",
    "execute",
    "tool-name",
    "find_poe2_hotfix",
];

/// One reply and what must come out of it: the text and the calls (name, arguments).
struct Case {
    reply: &'static str,
    text: &'static str,
    calls: Vec<(&'static str, Value)>,
}

fn case(reply: &'static str, text: &'static str, calls: Vec<(&'static str, Value)>) -> Case {
    Case { reply, text, calls }
}

fn prose(reply: &'static str) -> Case {
    case(reply, reply, vec![])
}

fn cases() -> Vec<Case> {
    vec![
        // Seed 002: the reply format its system prompt asks for, verbatim.
        case(
            "{\n    \"tool\": \"tool-name\",\n    \"arguments\": {\n        \"argument-name\": \"value\"\n    }\n}",
            "",
            vec![("tool-name", json!({"argument-name": "value"}))],
        ),
        case(
            "我来帮你查询最新的热修复公告。\n\n{\"tool\": \"find_poe2_hotfix\", \"arguments\": {}}",
            "我来帮你查询最新的热修复公告。",
            vec![("find_poe2_hotfix", json!({}))],
        ),
        // Seed 000: the reply qwen3 gave, verbatim, and its variants.
        case(
            r#"{"action": "execute_test", "name": "test"}"#,
            "",
            vec![("execute_test", json!({"name": "test"}))],
        ),
        case(
            "好的，我将执行test功能。\n{\"action\": \"execute\", \"params\": {\"name\": \"test\"}}",
            "好的，我将执行test功能。",
            vec![("execute", json!({"name": "test"}))],
        ),
        case(
            r#"{"action": "execute_test", "param": {"name": "test"}}"#,
            "",
            vec![("execute_test", json!({"name": "test"}))],
        ),
        // Seed 000's final answer: an unclosed fence holding data, not a call.
        prose(
            "```json\n{\n  \"status\": \"success\",\n  \"message\": \"test 功能已经执行完毕\"\n}",
        ),
        case(
            "Let me check the weather first.\n\n```json\n{\"tool\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}\n```\n\nI'll report back once I have it.",
            "Let me check the weather first.\n\nI'll report back once I have it.",
            vec![("get_weather", json!({"city": "Paris", "unit": "celsius"}))],
        ),
        case(
            "```JSON\n{\"tool\": \"search\", \"arguments\": {\"query\": \"tokio select\"}}\n```",
            "",
            vec![("search", json!({"query": "tokio select"}))],
        ),
        case(
            "Searching now:\n```\n{\"tool\": \"search\", \"arguments\": {\"query\": \"serde flatten\"}}\n```",
            "Searching now:",
            vec![("search", json!({"query": "serde flatten"}))],
        ),
        case(
            "~~~json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"src/main.rs\"}}\n~~~",
            "",
            vec![("read_file", json!({"path": "src/main.rs"}))],
        ),
        case(
            "I'll look at both files.\n\n```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n```\n\n```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"b.txt\"}}\n```",
            "I'll look at both files.",
            vec![
                ("read_file", json!({"path": "a.txt"})),
                ("read_file", json!({"path": "b.txt"})),
            ],
        ),
        case(
            r#"{"tool_calls": [{"name": "search", "arguments": {"query": "a"}}, {"name": "search", "arguments": {"query": "b"}}, {"name": "get_weather", "arguments": {"city": "Oslo"}}]}"#,
            "",
            vec![
                ("search", json!({"query": "a"})),
                ("search", json!({"query": "b"})),
                ("get_weather", json!({"city": "Oslo"})),
            ],
        ),
        case(
            r#"[{"tool": "search", "arguments": {"query": "x"}}, {"tool": "read_file", "arguments": {"path": "y"}}]"#,
            "",
            vec![
                ("search", json!({"query": "x"})),
                ("read_file", json!({"path": "y"})),
            ],
        ),
        case(
            "First:\n{\"tool\": \"search\", \"arguments\": {\"query\": \"one\"}}\nSecond:\n{\"tool\": \"search\", \"arguments\": {\"query\": \"two\"}}\nThird:\n{\"tool\": \"search\", \"arguments\": {\"query\": \"three\"}}",
            "First:\n\nSecond:\n\nThird:",
            vec![
                ("search", json!({"query": "one"})),
                ("search", json!({"query": "two"})),
                ("search", json!({"query": "three"})),
            ],
        ),
        // Arguments as a JSON string, OpenAI style.
        case(
            r#"{"name": "search", "arguments": "{\"query\": \"rust async\", \"limit\": 3}"}"#,
            "",
            vec![("search", json!({"query": "rust async", "limit": 3}))],
        ),
        case(
            r#"{"tool_calls": [{"id": "call_abc123", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"/tmp/notes.md\"}"}}]}"#,
            "",
            vec![("read_file", json!({"path": "/tmp/notes.md"}))],
        ),
        case(
            r#"{"function_call": {"name": "search", "arguments": "{\"query\": \"x\"}"}}"#,
            "",
            vec![("search", json!({"query": "x"}))],
        ),
        // Qwen/Hermes tags.
        case(
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京\"}}\n</tool_call>",
            "",
            vec![("get_weather", json!({"city": "北京"}))],
        ),
        case(
            "我需要同时查询两个城市的天气。\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"上海\"}}\n</tool_call>",
            "我需要同时查询两个城市的天气。",
            vec![
                ("get_weather", json!({"city": "北京"})),
                ("get_weather", json!({"city": "上海"})),
            ],
        ),
        case(
            "<tool_call>\n```json\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}\n```\n</tool_call>",
            "",
            vec![("search", json!({"query": "x"}))],
        ),
        // Nesting, and braces, brackets and fences inside strings.
        case(
            "```json\n{\"tool\": \"write_file\", \"arguments\": {\"path\": \"config.json\", \"options\": {\"mode\": {\"append\": false, \"lines\": [1, 2, {\"x\": null}]}}}}\n```",
            "",
            vec![(
                "write_file",
                json!({"path": "config.json", "options": {"mode": {"append": false, "lines": [1, 2, {"x": null}]}}}),
            )],
        ),
        case(
            r#"Writing it: {"tool": "write_file", "arguments": {"path": "main.rs", "content": "fn main() { println!(\"}}{{ ]\"); }"}}"#,
            "Writing it:",
            vec![(
                "write_file",
                json!({"path": "main.rs", "content": "fn main() { println!(\"}}{{ ]\"); }"}),
            )],
        ),
        case(
            "```json\n{\"tool\": \"write_file\", \"arguments\": {\"path\": \"README.md\", \"content\": \"# Demo\\n```sh\\nmake\\n```\\n\"}}\n```",
            "",
            vec![(
                "write_file",
                json!({"path": "README.md", "content": "# Demo\n```sh\nmake\n```\n"}),
            )],
        ),
        // Broken JSON, repaired.
        case(
            "{\"tool\": \"search\", \"arguments\": {\"query\": \"rust\",},}",
            "",
            vec![("search", json!({"query": "rust"}))],
        ),
        case(
            "{'tool': 'search', 'arguments': {'query': \"it's raining\"}}",
            "",
            vec![("search", json!({"query": "it's raining"}))],
        ),
        case(
            "```python\n{'tool': 'search', 'arguments': {'query': 'x', 'exact': True, 'lang': None, 'fuzzy': False}}\n```",
            "",
            vec![(
                "search",
                json!({"query": "x", "exact": true, "lang": null, "fuzzy": false}),
            )],
        ),
        case(
            "{tool: \"search\", arguments: {query: \"rust\", limit: 5}}",
            "",
            vec![("search", json!({"query": "rust", "limit": 5}))],
        ),
        case(
            "好的：{“tool”: “search”, “arguments”: {“query”: “今天的天气”}}",
            "好的：",
            vec![("search", json!({"query": "今天的天气"}))],
        ),
        case(
            "```json\n{\n  // look it up\n  \"tool\": \"search\",\n  \"arguments\": {\"query\": \"tokio\"}\n}\n```",
            "",
            vec![("search", json!({"query": "tokio"}))],
        ),
        case(
            "{\"tool\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"line one\nline two\"}}",
            "",
            vec![(
                "write_file",
                json!({"path": "a.txt", "content": "line one\nline two"}),
            )],
        ),
        // Other shapes.
        case(
            "{\"tool\": \"Search\", \"arguments\": {\"query\": \"x\"}}",
            "",
            vec![("search", json!({"query": "x"}))],
        ),
        case(
            "{\"tool_name\": \"read_file\", \"input\": {\"path\": \"README.md\"}}",
            "",
            vec![("read_file", json!({"path": "README.md"}))],
        ),
        case(
            "{\"function\": \"get_weather\", \"parameters\": {\"city\": \"Tokyo\"}}",
            "",
            vec![("get_weather", json!({"city": "Tokyo"}))],
        ),
        case(
            "{\"tool\": \"find_poe2_hotfix\"}",
            "",
            vec![("find_poe2_hotfix", json!({}))],
        ),
        case(
            "```json\n{\n    \"action\": \"search\",\n    \"action_input\": {\"query\": \"MCP spec\"}\n}\n```",
            "",
            vec![("search", json!({"query": "MCP spec"}))],
        ),
        case(
            "```json\n{\"tool\": \"search\", \"arguments\": {\"query\": \"a\"}}\n{\"tool\": \"search\", \"arguments\": {\"query\": \"b\"}}\n```",
            "",
            vec![
                ("search", json!({"query": "a"})),
                ("search", json!({"query": "b"})),
            ],
        ),
        case(
            "好的，我先查询北京的天气：{\"tool\": \"get_weather\", \"arguments\": {\"city\": \"北京\"}}然后再告诉你结果。",
            "好的，我先查询北京的天气：然后再告诉你结果。",
            vec![("get_weather", json!({"city": "北京"}))],
        ),
        case(
            "```json\n{\"tool\": \"search\", \"arguments\": {\"query\": \"x\"}}",
            "",
            vec![("search", json!({"query": "x"}))],
        ),
        case(
            "Careful with the { in the template.\n\n```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\": \"t.txt\"}}\n```",
            "Careful with the { in the template.",
            vec![("read_file", json!({"path": "t.txt"}))],
        ),
        // A stop sequence cut the closing tag; prose left inside a fence stays there.
        case(
            "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"x\"}}",
            "",
            vec![("search", json!({"query": "x"}))],
        ),
        case(
            "```json\nCalling search:\n{\"tool\": \"search\", \"arguments\": {\"query\": \"x\"}}\n```\nDone.",
            "```json\nCalling search:\n```\nDone.",
            vec![("search", json!({"query": "x"}))],
        ),
        // Not calls: the text stays as it is.
        prose("```json\n{\"tool\": \"delete_everything\", \"arguments\": {}}\n```"),
        prose("The capital of France is Paris."),
        prose(
            "Here is an example config:\n\n```json\n{\"name\": \"Alice\", \"age\": 30, \"tags\": [\"a\", \"b\"]}\n```",
        ),
        prose(
            "Let me search for that.\n```json\n{\"tool\": \"search\", \"arguments\": {\"query\": \"ru",
        ),
        prose(
            "I have this tool:\n{\"name\": \"search\", \"description\": \"Search the web\", \"parameters\": {\"type\": \"object\", \"properties\": {\"query\": {\"type\": \"string\"}}}}",
        ),
        prose("{\"name\": \"search\", \"arguments\": \"rust\"}"),
        prose(
            "[{\"tool\": \"search\", \"arguments\": {}}, {\"tool\": \"nope\", \"arguments\": {}}]",
        ),
        prose("Use {name} and [1, 2] in templates; {} is empty."),
        prose(
            "{\"tool_calls\": [{\"name\": \"search\", \"arguments\": {\"query\": \"a\"}}, {\"name\": \"sea",
        ),
    ]
}

fn expected(case: &Case) -> Extraction {
    let calls = case.calls.iter().enumerate();
    Extraction {
        text: case.text.to_owned(),
        calls: calls
            .map(|(i, (name, arguments))| ToolCall {
                id: format!("call_{i}"),
                name: (*name).to_owned(),
                arguments: arguments.clone(),
            })
            .collect(),
    }
}

#[test]
fn every_reply_in_the_table_yields_its_text_and_calls() {
    let cases = cases();
    assert!(cases.len() >= 30);
    for case in &cases {
        let got = extract_tool_calls(case.reply, KNOWN);
        assert_eq!(got, expected(case), "reply: {:?}", case.reply);
    }
}

#[test]
fn a_reply_streamed_in_pieces_yields_the_same_calls_and_prose() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    for case in &cases() {
        let reply = case.reply;
        let want = expected(case);
        let chars: Vec<&str> = reply
            .char_indices()
            .map(|(i, c)| &reply[i..i + c.len_utf8()])
            .collect();
        let splits = reply.char_indices().map(|(i, _)| i).skip(1).step_by(5);
        let halves = splits.map(|at| vec![&reply[..at], &reply[at..]]);
        for pieces in halves.chain([chars]) {
            let events = rt.block_on(stream_reply(pieces.clone()));
            let (text, calls) = text_and_calls(&events);
            assert_eq!(calls, want.calls, "{pieces:?}");
            assert_eq!(squash(&text), squash(&want.text), "{pieces:?}");
        }
    }
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

fn text_and_calls(events: &[Result<ProviderEvent, ProviderError>]) -> (String, Vec<ToolCall>) {
    let (mut text, mut calls) = (String::new(), Vec::new());
    for ev in events {
        match ev {
            Ok(ProviderEvent::TextDelta { text: t }) => text.push_str(t),
            Ok(ProviderEvent::ToolCall { call }) => calls.push(call.clone()),
            _ => {}
        }
    }
    (text, calls)
}

pub(super) async fn stream_reply(deltas: Vec<&str>) -> Vec<Result<ProviderEvent, ProviderError>> {
    let fake = Fake::new(deltas, Refusal::Never);
    let wrapped = PromptTools::new(fake);
    let mut req = request();
    req.tools = KNOWN
        .iter()
        .map(|name| ToolSpec {
            name: (*name).into(),
            ..search_spec()
        })
        .collect();
    let events = wrapped.stream(req).await.expect("stream");
    events.collect().await
}
