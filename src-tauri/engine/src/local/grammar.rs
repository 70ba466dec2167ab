//! Constrained tool calls: when a turn requires a tool, the answer is held to a llama.cpp GBNF
//! grammar that only admits a call — `{"name": "<tool>", "arguments": {…}}` with the
//! arguments following the tool's JSON Schema (converted by [`super::gbnf`]), wrapped
//! in `<tool_call>` tags for templates that teach them. Even a very small model then writes a
//! call that parses. Which tools a request forces is decided here too ([`forced_tools`]).

use serde_json::Value;

use super::LocalError;
use super::gbnf::{Grammar, literal};
use crate::provider::{ChatMessage, ChatRequest, ToolSpec, UserPart};

/// The tools a request forces a call to: `tool_choice` in its extra fields (`"required"`, or a
/// named function, as OpenAI spells it), else the tools the user's latest message names (when
/// it is the last message: a tool result is answered freely). Empty: nothing is forced.
pub(crate) fn forced_tools(req: &ChatRequest) -> Vec<&ToolSpec> {
    match req.extra.get("tool_choice") {
        Some(Value::String(s)) if s == "required" || s == "any" => {
            return req.tools.iter().collect();
        }
        Some(Value::String(_)) => return Vec::new(),
        Some(choice @ Value::Object(_)) => {
            let name = choice
                .pointer("/function/name")
                .or_else(|| choice.get("name"))
                .and_then(Value::as_str);
            return req
                .tools
                .iter()
                .filter(|t| Some(t.name.as_str()) == name)
                .collect();
        }
        _ => {}
    }
    let Some(ChatMessage::User { parts }) = req.messages.last() else {
        return Vec::new();
    };
    let text = UserPart::text_of(parts);
    req.tools
        .iter()
        .filter(|t| names_tool(&text, &t.name))
        .collect()
}

/// Whether every tool the user's latest message names has been called and answered since
/// (and no `tool_choice` says otherwise): the request named its tools and got them.
pub(crate) fn named_call_answered(req: &ChatRequest) -> bool {
    if req.extra.contains_key("tool_choice") {
        return false;
    }
    let Some(at) = req
        .messages
        .iter()
        .rposition(|m| matches!(m, ChatMessage::User { .. }))
    else {
        return false;
    };
    let ChatMessage::User { parts } = &req.messages[at] else {
        return false;
    };
    let text = UserPart::text_of(parts);
    let mut named = req
        .tools
        .iter()
        .filter(|t| names_tool(&text, &t.name))
        .peekable();
    let answered = |name: &str| {
        req.messages[at + 1..]
            .iter()
            .any(|m| matches!(m, ChatMessage::Tool { name: n, .. } if n == name))
    };
    named.peek().is_some() && named.all(|t| answered(&t.name))
}

/// Whether `text` names the tool: its provider-safe name, or the tool's own name after the
/// server prefix (`server__tool`), as a whole word.
fn names_tool(text: &str, safe: &str) -> bool {
    let own = safe.rsplit_once("__").map_or(safe, |(_, t)| t);
    [safe, own].iter().any(|name| {
        text.match_indices(name).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !word(before) && !word(after)
        })
    })
}

/// The grammar for a call to one of `tools`: `{"name": …, "arguments": {…}}`, the name
/// first; `tagged` wraps it in `<tool_call>` tags.
pub(crate) fn tool_call_grammar(tools: &[&ToolSpec], tagged: bool) -> Result<String, LocalError> {
    let mut g = Grammar::new();
    let calls: Vec<String> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let arguments = g.value(&t.parameters, &format!("arguments-{i}"));
            format!(
                "\"{{\" ws {} ws \":\" ws {} ws \",\" ws {} ws \":\" ws {arguments} ws \"}}\"",
                literal(&Value::from("name")),
                literal(&Value::String(t.name.clone())),
                literal(&Value::from("arguments")),
            )
        })
        .collect();
    let call = match calls.as_slice() {
        [] => return Err(LocalError::Grammar("no tool to call".into())),
        [one] => one.clone(),
        many => format!("( {} )", many.join(" | ")),
    };
    let root = if tagged {
        format!("\"<tool_call>\\n\" {call} \"\\n</tool_call>\"")
    } else {
        call
    };
    Ok(g.finish(&root))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn weather() -> ToolSpec {
        ToolSpec {
            name: "weather__get_weather".into(),
            description: "The weather".into(),
            parameters: json!({ "type": "object",
                "properties": { "city": { "type": "string" },
                    "units": { "enum": ["c", "f"] }, "days": { "type": "integer" } },
                "required": ["city"] }),
        }
    }

    fn request(text: &str) -> ChatRequest {
        ChatRequest {
            messages: vec![ChatMessage::user(text)],
            tools: vec![weather()],
            ..Default::default()
        }
    }

    #[test]
    fn a_tool_named_by_the_user_is_forced_and_a_mere_mention_inside_a_word_is_not() {
        assert_eq!(forced_tools(&request("Use get_weather for Paris")).len(), 1);
        assert!(forced_tools(&request("Use forget_weathers")).is_empty());
        let mut answered = request("Use get_weather");
        answered.messages.push(ChatMessage::Tool {
            call_id: "c".into(),
            name: "weather__get_weather".into(),
            content: "18".into(),
            is_error: false,
        });
        assert!(forced_tools(&answered).is_empty());
        assert!(named_call_answered(&answered));
        assert!(!named_call_answered(&request("Use get_weather")));
        assert!(!named_call_answered(&request("What is the weather?")));
    }

    #[test]
    fn tool_choice_required_or_named_forces_a_call() {
        let mut req = request("hello");
        req.extra.insert("tool_choice".into(), json!("required"));
        assert_eq!(forced_tools(&req).len(), 1);
        req.extra.insert(
            "tool_choice".into(),
            json!({ "type": "function", "function": { "name": "weather__get_weather" } }),
        );
        assert_eq!(forced_tools(&req).len(), 1);
        req.extra.insert("tool_choice".into(), json!("none"));
        assert!(forced_tools(&req).is_empty());
    }

    #[test]
    fn the_grammar_names_the_tool_and_its_arguments() {
        let tool = weather();
        let plain = tool_call_grammar(&[&tool], false).unwrap();
        assert!(plain.contains("root ::="), "{plain}");
        assert!(plain.contains("weather__get_weather"), "{plain}");
        assert!(plain.contains("city"), "{plain}");
        let tagged = tool_call_grammar(&[&tool], true).unwrap();
        assert!(
            tagged.starts_with("root ::= \"<tool_call>\\n\" \"{\""),
            "{tagged}"
        );
        assert!(tagged.contains("\"\\n</tool_call>\"\n"), "{tagged}");
    }
}
