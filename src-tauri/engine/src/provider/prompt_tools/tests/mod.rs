//! Tests of prompt-mode tool calling: the prompt texts, the request rewrite, the streaming
//! wrapper and the mode switch over fake providers; the reply table is in `table`.

mod native_text;
mod table;

use table::stream_reply;

use std::sync::Mutex;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::*;
use crate::provider::{
    EventStream, FinishReason, ModelInfo, Provider, ProviderError, ProviderEvent, Usage,
};

#[test]
fn the_system_prompt_lists_each_tool_and_how_to_call() {
    let prompt = tools_system_prompt(&[search_spec()]);
    let want = "# Tools\n\nYou can call these tools. Each has a name, a description and its parameters as a JSON Schema.\n\n## search\nSearch the web.\nParameters: {\"properties\":{\"query\":{\"type\":\"string\"}},\"required\":[\"query\"],\"type\":\"object\"}\n\n# How to call a tool\n\nTo call a tool, reply with a fenced JSON code block holding one object with the tool's name and its arguments:\n\n```json\n{\"tool\": \"tool_name\", \"arguments\": {\"argument_name\": \"value\"}}\n```\n\n- One block per reply; to call several tools at once, put an array of such objects in it.\n- Put only the JSON object in the block: no comments, no other text.\n- `arguments` is a JSON object that follows the tool's parameters; use {} when it has none.\n- Use only the tools listed above, spelled exactly as listed.\n- After your calls, stop: the results come back in the next message.\n- When no tool is needed, answer normally, without any JSON block.";
    assert_eq!(prompt, want);
    assert_eq!(tools_system_prompt(&[]), "");
}

#[test]
fn tool_results_are_fenced_and_failures_say_so() {
    assert_eq!(
        tool_result_message("search", "{\"hits\": 2}", false),
        "Tool result for search:\n```json\n{\"hits\": 2}\n```"
    );
    assert_eq!(
        tool_result_message("run", "see ```code```", false),
        "Tool result for run:\n````text\nsee ```code```\n````"
    );
    assert_eq!(
        tool_result_message("read_file", "no such file", true),
        "The call to read_file failed:\n```text\nno such file\n```\nCheck the arguments and try again, or go on without this tool."
    );
}

fn search_spec() -> ToolSpec {
    ToolSpec {
        name: "search".into(),
        description: "Search the web.".into(),
        parameters: json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
    }
}

fn request() -> ChatRequest {
    ChatRequest {
        model: "m1".into(),
        system: Some("You are terse.".into()),
        messages: vec![ChatMessage::user("find rust news")],
        tools: vec![search_spec()],
        ..ChatRequest::default()
    }
}

#[test]
fn a_native_request_is_rewritten_into_prompt_mode() {
    let call = |id: &str, name: &str, arguments: Value| ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
    };
    let result = |id: &str, name: &str, content: &str, is_error| ChatMessage::Tool {
        call_id: id.into(),
        name: name.into(),
        content: content.into(),
        is_error,
    };
    let mut req = request();
    req.params.temperature = Some(0.2);
    req.extra.insert("keep_alive".into(), json!("5m"));
    req.messages.extend([
        ChatMessage::Assistant {
            text: "Searching.".into(),
            tool_calls: vec![
                call("c1", "search", json!({"query": "rust"})),
                call("c2", "read_file", json!({"path": "a.md"})),
            ],
        },
        result("c1", "search", "[\"r1\"]", false),
        result("c2", "read_file", "no such file", true),
        ChatMessage::user("thanks"),
    ]);
    let mut want = req.clone();
    want.tools = vec![];
    want.system = Some(format!(
        "You are terse.\n\n{}",
        tools_system_prompt(&req.tools)
    ));
    want.messages = vec![
            ChatMessage::user("find rust news"),
            ChatMessage::Assistant {
                text: "Searching.\n\n```json\n{\"tool\": \"search\", \"arguments\": {\"query\":\"rust\"}}\n```\n\n```json\n{\"tool\": \"read_file\", \"arguments\": {\"path\":\"a.md\"}}\n```".into(),
                tool_calls: vec![],
            },
            ChatMessage::user(
                "Tool result for search:\n```json\n[\"r1\"]\n```\n\nThe call to read_file failed:\n```text\nno such file\n```\nCheck the arguments and try again, or go on without this tool.",
            ),
            ChatMessage::user("thanks"),
        ];
    assert_eq!(to_prompt_request(&req), want);
}

#[test]
fn results_that_end_the_conversation_ask_for_the_answer() {
    let mut req = request();
    req.messages.push(ChatMessage::Assistant {
        text: String::new(),
        tool_calls: vec![ToolCall {
            id: "c1".into(),
            name: "search".into(),
            arguments: json!({"query": "rust"}),
        }],
    });
    req.messages.push(ChatMessage::Tool {
        call_id: "c1".into(),
        name: "search".into(),
        content: "[\"r1\"]".into(),
        is_error: false,
    });
    let last_text = |got: &ChatRequest| {
        let Some(ChatMessage::User { parts }) = got.messages.last() else {
            panic!("{got:?}");
        };
        UserPart::text_of(parts)
    };
    let text = last_text(&to_prompt_request(&req));
    assert!(text.starts_with("Tool result for search:"), "{text}");
    assert!(
        text.ends_with("\n\nUse these results to answer the question: find rust news"),
        "{text}"
    );
    let plain = last_text(&to_prompt_request_asking(&req, AnswerAsk::PlainWords));
    assert!(
        plain.ends_with("answer the question: find rust news\nAnswer in plain words."),
        "{plain}"
    );

    // A question too long to say again is referred to.
    let long = "why ".repeat(MAX_RESTATED);
    req.messages[0] = ChatMessage::user(&long);
    let text = last_text(&to_prompt_request(&req));
    assert!(
        text.ends_with("Use these results to answer the question above."),
        "{text}"
    );
    assert!(!text.contains("why why"), "{text}");
}

/// When a fake provider refuses tools.
#[derive(Clone, Copy, PartialEq)]
enum Refusal {
    Never,
    /// `stream()` fails.
    AtStart,
    /// The stream's first item is the error.
    InStream,
}

/// A provider that answers every request with the same text deltas (then Usage and Finish
/// Stop), refusing tools as told, and records the requests it got.
struct Fake {
    deltas: Vec<String>,
    refusal: Refusal,
    seen: Mutex<Vec<ChatRequest>>,
}

impl Fake {
    fn new(deltas: Vec<&str>, refusal: Refusal) -> Self {
        Self {
            deltas: deltas.into_iter().map(str::to_owned).collect(),
            refusal,
            seen: Mutex::default(),
        }
    }

    fn seen(&self) -> Vec<ChatRequest> {
        self.seen.lock().expect("lock").clone()
    }
}

fn refused() -> ProviderError {
    ProviderError::ToolsUnsupported {
        message: "tools are not supported".into(),
    }
}

impl Provider for Fake {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
        let refuse = !req.tools.is_empty();
        self.seen.lock().expect("lock").push(req);
        let mut events: Vec<Result<ProviderEvent, ProviderError>> = match (self.refusal, refuse) {
            (Refusal::AtStart, true) => return Box::pin(async { Err(refused()) }),
            (Refusal::InStream, true) => vec![Err(refused())],
            _ => self
                .deltas
                .iter()
                .map(|d| Ok(ProviderEvent::text(d)))
                .collect(),
        };
        if events.iter().all(Result::is_ok) {
            events.push(Ok(ProviderEvent::Usage { usage: usage() }));
            events.push(Ok(ProviderEvent::Finish {
                reason: FinishReason::Stop,
            }));
        }
        Box::pin(async move { Ok(Box::pin(futures::stream::iter(events)) as EventStream) })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async {
            Ok(vec![ModelInfo {
                id: "m1".into(),
                name: None,
            }])
        })
    }
}

fn usage() -> Usage {
    Usage {
        input_tokens: 10,
        output_tokens: 5,
    }
}

fn weather_call() -> ProviderEvent {
    ProviderEvent::ToolCall {
        call: ToolCall {
            id: "call_0".into(),
            name: "get_weather".into(),
            arguments: json!({"city": "Paris"}),
        },
    }
}

#[tokio::test]
async fn prose_streams_early_and_calls_come_at_the_end() {
    let deltas = vec![
        "I'll check",
        " the weather.\n\n`",
        "``js",
        "on\n{\"tool\": \"get_",
        "weather\", \"arguments\": {\"city\": \"Paris\"}}\n``",
        "`\n",
    ];
    let wrapped = PromptTools::new(Fake::new(deltas, Refusal::Never));
    let mut req = request();
    req.tools[0].name = "get_weather".into();
    let events: Vec<_> = wrapped
        .stream(req.clone())
        .await
        .expect("stream")
        .collect()
        .await;
    let want = vec![
        Ok(ProviderEvent::text("I'll check")),
        Ok(ProviderEvent::text(" the weather.\n\n")),
        Ok(ProviderEvent::Usage { usage: usage() }),
        Ok(weather_call()),
        Ok(ProviderEvent::Finish {
            reason: FinishReason::ToolCalls,
        }),
    ];
    assert_eq!(events, want);
    assert_eq!(wrapped.inner().seen(), vec![to_prompt_request(&req)]);
    let models = wrapped.list_models().await.expect("models");
    assert_eq!(models.len(), 1);
}

#[tokio::test]
async fn blocks_that_are_not_calls_are_let_go_once_closed() {
    let deltas = vec![
        "Use ",
        "{x} here",
        " or:\n\n``",
        "`json\n{\"name\": \"Alice\"}\n``",
        "`",
        "\nthen {\"tool\": ",
        "\"nope\"} ok",
    ];
    let events = stream_reply(deltas).await;
    let want = vec![
        Ok(ProviderEvent::text("Use ")),
        Ok(ProviderEvent::text("{x} here")),
        Ok(ProviderEvent::text(" or:\n\n")),
        Ok(ProviderEvent::text(
            "```json\n{\"name\": \"Alice\"}\n```\nthen ",
        )),
        Ok(ProviderEvent::text("{\"tool\": \"nope\"} ok")),
        Ok(ProviderEvent::Usage { usage: usage() }),
        Ok(ProviderEvent::Finish {
            reason: FinishReason::Stop,
        }),
    ];
    assert_eq!(events, want);
}

#[tokio::test]
async fn an_error_mid_stream_flushes_the_held_text_first() {
    struct Broken;
    impl Provider for Broken {
        fn stream(&self, _: ChatRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
            let events = vec![
                Ok(ProviderEvent::text("Hi ")),
                Ok(ProviderEvent::text("{\"tool\": \"sea")),
                Err(ProviderError::Network("reset".into())),
            ];
            Box::pin(async move { Ok(Box::pin(futures::stream::iter(events)) as EventStream) })
        }
        fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
            Box::pin(async { Ok(vec![]) })
        }
    }
    let wrapped = PromptTools::new(Broken);
    let events: Vec<_> = wrapped
        .stream(request())
        .await
        .expect("stream")
        .collect()
        .await;
    let want = vec![
        Ok(ProviderEvent::text("Hi ")),
        Ok(ProviderEvent::text("{\"tool\": \"sea")),
        Err(ProviderError::Network("reset".into())),
    ];
    assert_eq!(events, want);
}

const SEARCH_REPLY: &str =
    "```json\n{\"tool\": \"search\", \"arguments\": {\"query\": \"x\"}}\n```";

fn search_call_events() -> Vec<Result<ProviderEvent, ProviderError>> {
    let call = ToolCall {
        id: "call_0".into(),
        name: "search".into(),
        arguments: json!({"query": "x"}),
    };
    vec![
        Ok(ProviderEvent::Usage { usage: usage() }),
        Ok(ProviderEvent::ToolCall { call }),
        Ok(ProviderEvent::Finish {
            reason: FinishReason::ToolCalls,
        }),
    ]
}

async fn auto_falls_back_and_remembers(refusal: Refusal) {
    let switch = ModeSwitch::new(Fake::new(vec![SEARCH_REPLY], refusal), ToolMode::Auto);
    let events: Vec<_> = switch
        .stream(request())
        .await
        .expect("stream")
        .collect()
        .await;
    assert_eq!(events, search_call_events());
    assert_eq!(switch.prompt_only_models(), vec!["m1".to_owned()]);
    let seen = switch.inner().seen();
    assert_eq!(seen, vec![request(), to_prompt_request(&request())]);

    let events: Vec<_> = switch
        .stream(request())
        .await
        .expect("stream")
        .collect()
        .await;
    assert_eq!(events, search_call_events());
    let seen = switch.inner().seen();
    assert_eq!(
        seen.len(),
        3,
        "the second call goes straight to prompt mode"
    );
    assert_eq!(seen[2], to_prompt_request(&request()));
}

#[tokio::test]
async fn auto_mode_falls_back_to_prompt_mode_when_stream_refuses_tools() {
    auto_falls_back_and_remembers(Refusal::AtStart).await;
}

#[tokio::test]
async fn auto_mode_falls_back_when_the_first_event_refuses_tools() {
    auto_falls_back_and_remembers(Refusal::InStream).await;
}

#[tokio::test]
async fn requests_without_tools_go_native_and_remembered_models_go_prompt() {
    let remembered = PromptOnlyModels::default();
    remembered.lock().expect("lock").insert("m1".into());
    let fake = Fake::new(vec!["hello"], Refusal::AtStart);
    let switch = ModeSwitch::with_prompt_only(fake, ToolMode::Auto, remembered);
    let mut plain = request();
    plain.tools.clear();
    let events: Vec<_> = switch
        .stream(plain.clone())
        .await
        .expect("stream")
        .collect()
        .await;
    assert_eq!(events[0], Ok(ProviderEvent::text("hello")));
    let _: Vec<_> = switch
        .stream(request())
        .await
        .expect("stream")
        .collect()
        .await;
    let seen = switch.inner().seen();
    assert_eq!(seen, vec![plain, to_prompt_request(&request())]);
}

#[tokio::test]
async fn native_mode_passes_refusals_through() {
    let switch = ModeSwitch::new(Fake::new(vec![], Refusal::AtStart), ToolMode::Native);
    let err = switch.stream(request()).await.err();
    assert_eq!(err, Some(refused()));
    assert!(switch.prompt_only_models().is_empty());
}

#[test]
fn tool_modes_serialize_in_snake_case() {
    let modes = [ToolMode::Native, ToolMode::Prompt, ToolMode::Auto];
    let json = serde_json::to_string(&modes).expect("json");
    assert_eq!(json, r#"["native","prompt","auto"]"#);
    assert_eq!(ToolMode::default(), ToolMode::Auto);
}
