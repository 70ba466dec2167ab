//! The tool-use probe's script: one tiny tool (`get_weather(city)`) and a question that needs
//! it, asked first with the tool offered the provider's native way, then — when no call came —
//! with the tool in the prompt (prompt mode) or, for the built-in model, with the answer held
//! to the call's grammar. What the answers held becomes a [`ToolSupport`]. Each request is
//! bounded in tokens ([`MAX_TOKENS`]) and in time (the caller's limit); a failed request
//! (network, key, timeout) makes the result `unknown` with its reason, never `none`.

use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};

use crate::provider::prompt_tools::{extract_tool_calls, to_prompt_request};
use crate::provider::{
    ChatMessage, ChatRequest, Provider, ProviderError, ProviderEvent, SamplingParams, Thinking,
    ToolSpec,
};
use crate::store::ToolSupport;

/// The one tool offered.
pub(crate) const TOOL: &str = "get_weather";
/// The most tokens one answer may take: a call is some 20, and a model that reasons first
/// gets room for a short thought.
pub(crate) const MAX_TOKENS: u32 = 256;
/// The same for the built-in model, which is told not to think (and generates on this
/// machine's CPU, where every token counts).
pub(crate) const LOCAL_MAX_TOKENS: u32 = 128;
/// The question: it needs the tool, and does not name it (a named tool would have the
/// built-in model hold its answer to the call at once).
const QUESTION: &str = "What is the weather in Paris right now?";
const SYSTEM: &str = "You are a helpful assistant. You have no knowledge of current weather; \
                      use the tools you are given when they can answer.";

/// How the probe asks a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Asking {
    /// A provider over HTTP: native tools, then prompt mode.
    Http,
    /// The built-in model: the tools as its template takes them (`native`: its template knows
    /// tools; else the provider puts them in the prompt itself), then held to the grammar.
    Local {
        /// Whether the model's chat template knows tools.
        native: bool,
    },
}

/// What the probe found, and in words how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Finding {
    /// The result.
    pub support: ToolSupport,
    /// How it came, or why it is unknown.
    pub note: String,
}

impl Finding {
    fn new(support: ToolSupport, note: impl Into<String>) -> Self {
        Self {
            support,
            note: note.into(),
        }
    }

    /// A probe that could not tell, because of `reason`.
    pub(crate) fn unknown(reason: impl Into<String>) -> Self {
        Self::new(ToolSupport::Unknown, reason)
    }
}

/// What one answer held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// A structured call of the tool from the provider (arguments valid or not).
    Called,
    /// The call written as text (a fenced block, a `<tool_call>` tag, bare JSON).
    Wrote,
    /// No call.
    Nothing,
}

/// The tool offered.
fn weather_tool() -> ToolSpec {
    ToolSpec {
        name: TOOL.into(),
        description: "Get the current weather in a city.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city's name"}},
            "required": ["city"]
        }),
    }
}

/// The first request: the question, the tool offered natively.
pub(crate) fn first_request(model: &str, asking: Asking) -> ChatRequest {
    ChatRequest {
        model: model.into(),
        system: Some(SYSTEM.into()),
        messages: vec![ChatMessage::user(QUESTION)],
        tools: vec![weather_tool()],
        params: SamplingParams {
            temperature: Some(0.0),
            max_tokens: Some(match asking {
                Asking::Http => MAX_TOKENS,
                Asking::Local { .. } => LOCAL_MAX_TOKENS,
            }),
            seed: Some(7),
            ..Default::default()
        },
        // The built-in model's template is told not to think (the budget is small); a
        // provider's own default is left alone (some refuse a switch they do not have).
        thinking: matches!(asking, Asking::Local { .. }).then(Thinking::default),
        ..Default::default()
    }
}

/// The second request, made when the first held no call: the tool in the prompt, or for the
/// built-in model the same request with a call required (its answer held to the grammar).
pub(crate) fn second_request(first: &ChatRequest, asking: Asking) -> ChatRequest {
    match asking {
        Asking::Http => to_prompt_request(first),
        Asking::Local { .. } => {
            let mut req = first.clone();
            req.extra
                .insert("tool_choice".into(), Value::from("required"));
            req
        }
    }
}

/// What `events` held.
pub(crate) fn answer_of(events: &[ProviderEvent]) -> Answer {
    let called = events.iter().any(|e| match e {
        ProviderEvent::ToolCall { call } => call.name == TOOL,
        ProviderEvent::ToolCallInvalid { name, .. } => name == TOOL,
        _ => false,
    });
    if called {
        return Answer::Called;
    }
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            ProviderEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    if extract_tool_calls(&text, &[TOOL]).calls.is_empty() {
        Answer::Nothing
    } else {
        Answer::Wrote
    }
}

/// Every event of the answer to `req`, within `limit`.
pub(crate) async fn ask(
    client: &dyn Provider,
    req: ChatRequest,
    limit: Duration,
) -> Result<Vec<ProviderEvent>, ProviderError> {
    let collect = async {
        let mut stream = client.stream(req).await?;
        let mut events = Vec::new();
        while let Some(event) = stream.next().await {
            events.push(event?);
        }
        Ok(events)
    };
    tokio::time::timeout(limit, collect)
        .await
        .unwrap_or(Err(ProviderError::Timeout(limit)))
}

/// Runs the script against `client`, each request within `limit`.
pub(crate) async fn run(
    client: &dyn Provider,
    model: &str,
    asking: Asking,
    limit: Duration,
) -> Finding {
    let first = first_request(model, asking);
    let why_second = match ask(client, first.clone(), limit).await {
        Ok(events) => match (answer_of(&events), asking) {
            (Answer::Called, Asking::Http | Asking::Local { native: true }) => {
                return Finding::new(ToolSupport::Native, "called the tool with a native call");
            }
            (Answer::Called, Asking::Local { native: false }) => {
                return Finding::new(
                    ToolSupport::Prompt,
                    "called the tool from instructions in the prompt (its template has no tools)",
                );
            }
            (Answer::Wrote, _) => {
                return Finding::new(
                    ToolSupport::Prompt,
                    "wrote the call as text instead of a native call",
                );
            }
            (Answer::Nothing, _) => "no call when offered the tool".to_owned(),
        },
        Err(ProviderError::ToolsUnsupported { message }) if asking == Asking::Http => {
            format!("the endpoint refused native tools ({message})")
        }
        Err(e) => return Finding::unknown(e.to_string()),
    };
    let second = second_request(&first, asking);
    match ask(client, second, limit).await {
        Ok(events) if answer_of(&events) == Answer::Nothing => Finding::new(
            ToolSupport::None,
            format!("{why_second}, nor when asked again with the tool required"),
        ),
        Ok(_) => Finding::new(ToolSupport::Prompt, second_note(asking, &why_second)),
        Err(e) => Finding::unknown(e.to_string()),
    }
}

fn second_note(asking: Asking, why_second: &str) -> String {
    match asking {
        Asking::Http => format!("{why_second}; called it with the tool described in the prompt"),
        Asking::Local { .. } => {
            format!("{why_second}; called it when its answer was held to the call's grammar")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ToolCall;

    fn call(name: &str) -> ProviderEvent {
        ProviderEvent::ToolCall {
            call: ToolCall {
                id: "c".into(),
                name: name.into(),
                arguments: json!({"city": "Paris"}),
            },
        }
    }

    #[test]
    fn a_structured_call_a_written_call_and_prose_are_told_apart() {
        assert_eq!(answer_of(&[call(TOOL)]), Answer::Called);
        assert_eq!(answer_of(&[call("something_else")]), Answer::Nothing);
        let written =
            "```json\n{\"tool\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```";
        assert_eq!(answer_of(&[ProviderEvent::text(written)]), Answer::Wrote);
        let tagged = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
        assert_eq!(answer_of(&[ProviderEvent::text(tagged)]), Answer::Wrote);
        let prose = "I cannot check the weather, but Paris is often mild.";
        assert_eq!(answer_of(&[ProviderEvent::text(prose)]), Answer::Nothing);
    }

    #[test]
    fn the_requests_are_bounded_and_the_second_asks_in_the_prompt_or_holds_the_call() {
        let first = first_request("m", Asking::Http);
        assert_eq!(first.params.max_tokens, Some(MAX_TOKENS));
        assert_eq!(first.tools.len(), 1);
        assert!(!QUESTION.contains(TOOL), "the tool is not named");
        assert_eq!(first.thinking, None);

        let prompt = second_request(&first, Asking::Http);
        assert!(prompt.tools.is_empty());
        assert!(prompt.system.unwrap().contains("## get_weather"));

        let local = Asking::Local { native: true };
        let first = first_request("m.gguf", local);
        assert_eq!(first.thinking.as_ref().map(|t| t.enabled), Some(false));
        assert_eq!(first.params.max_tokens, Some(LOCAL_MAX_TOKENS));
        let held = second_request(&first, local);
        assert_eq!(held.extra["tool_choice"], "required");
        assert_eq!(held.tools, first.tools);
    }

    #[tokio::test]
    async fn a_provider_that_stalls_is_cut_at_the_limit_and_found_unknown() {
        use crate::provider::{Endpoint, HttpOptions, HttpProvider, ProviderKind};
        // A server that takes the connection and never answers.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let _hold = tokio::spawn(async move {
            let mut kept = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                kept.push(socket);
            }
        });
        let endpoint = Endpoint {
            kind: ProviderKind::Openai,
            base_url: url,
            headers: Default::default(),
            strict_tools: false,
        };
        let client = HttpProvider::new(endpoint, None, HttpOptions::default()).unwrap();
        let limit = Duration::from_millis(300);
        let started = std::time::Instant::now();
        let found = run(&client, "m", Asking::Http, limit).await;
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(found.support, ToolSupport::Unknown, "{found:?}");
        assert!(found.note.contains("sent nothing"), "{found:?}");
    }
}
