//! The grammar a tool call is held to: a llama.cpp GBNF grammar whose calls are
//! `{"name": <an offered tool>, "arguments": {…}}` objects (`"tool"` and `"parameters"` are
//! accepted as the keys too, as prompt mode and Llama 3.x write them), with the arguments
//! following the tool's JSON Schema (converted by [`super::gbnf`]). It has one root rule per
//! shape a call is written in ([`Form`]): `<tool_call>` tags, fenced blocks, bare objects or
//! arrays, Mistral's `[TOOL_CALLS]` and Llama's `<|python_tag|>`. When the decoder sees a call
//! begin in one of these shapes ([`super::hold`]), the rest of the answer is held to that root.
//! Which tools `tool_choice` forces is decided here too ([`forced_tools`]).

use serde_json::Value;

use super::LocalError;
use super::gbnf::{Grammar, literal};
use crate::provider::{ChatRequest, ToolSpec};

/// A shape in which a call is written; each is a root rule of the call grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `<tool_call>{…}</tool_call>` blocks (Hermes, Qwen and the templates that teach them).
    Tagged,
    /// A fenced code block holding a call, calls one a line, or an array of calls (prompt
    /// mode): after a call's line the model chooses between closing the block and calling
    /// again, so a question that needs several calls gets them.
    Fenced,
    /// A bare call object, or an array of them.
    Bare,
    /// `[TOOL_CALLS]` then an array of calls (Mistral).
    Mistral,
    /// `<|python_tag|>` then a call (Llama 3.x).
    Python,
}

impl Form {
    /// The grammar's root rule for this shape.
    pub fn root(self) -> &'static str {
        match self {
            Self::Tagged => "tagged",
            Self::Fenced => "fenced",
            Self::Bare => "bare",
            Self::Mistral => "mistral",
            Self::Python => "python",
        }
    }

    /// The shape a template teaches: its own markers, else a bare object (the grammar of a
    /// call forced from the first token).
    pub(crate) fn taught_by(template: &str, native: bool) -> Self {
        if native && template.contains("<tool_call>") {
            Self::Tagged
        } else if native && template.contains("[TOOL_CALLS]") {
            Self::Mistral
        } else {
            Self::Bare
        }
    }
}

/// The roots every call grammar has, one per [`Form`].
const FORMS: &str = r#"tagged ::= tag-block ( "\n" "\n"? tag-block )*
tag-block ::= "<tool_call>" "\n"? ws bare ws "\n"? "</tool_call>"
fenced ::= fence-block
fence-block ::= "```" ( "json" | "tool_call" | "JSON" )? "\n" fenced-calls "\n"? "```"
fenced-calls ::= call ( "\n" call )* | call-list
bare ::= call | call-list
call-list ::= "[" ws call ( "," "\n"? ws call )* ws "]"
mistral ::= "[TOOL_CALLS]" ws call-list
python ::= "<|python_tag|>" call
name-key ::= "\"name\"" | "\"tool\""
arguments-key ::= "\"arguments\"" | "\"parameters\""
"#;

/// The tools a request forces a call to, from `tool_choice` in its extra fields:
/// `"required"` (or `"any"`) forces one of all, a named function (as OpenAI spells it) forces
/// that one. Empty: nothing is forced, and the model chooses between answering and calling.
pub(crate) fn forced_tools(req: &ChatRequest) -> Vec<&ToolSpec> {
    match req.extra.get("tool_choice") {
        Some(Value::String(s)) if s == "required" || s == "any" => req.tools.iter().collect(),
        Some(choice @ Value::Object(_)) => {
            let name = choice
                .pointer("/function/name")
                .or_else(|| choice.get("name"))
                .and_then(Value::as_str);
            req.tools
                .iter()
                .filter(|t| Some(t.name.as_str()) == name)
                .collect()
        }
        _ => Vec::new(),
    }
}

/// Whether the request lets the model call no tool at all (`tool_choice: "none"`).
pub(crate) fn calls_refused(req: &ChatRequest) -> bool {
    matches!(req.extra.get("tool_choice"), Some(Value::String(s)) if s == "none")
}

/// Whether a tool's parameters declare none: an empty `properties` and no open
/// `additionalProperties`. Its call takes `{}`; small models otherwise fill the free object
/// with the prompt's example (`{"argument_name": "value"}`).
fn takes_nothing(parameters: &Value) -> bool {
    let props_empty = parameters
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(serde_json::Map::is_empty);
    let open = matches!(
        parameters.get("additionalProperties"),
        Some(Value::Bool(true) | Value::Object(_))
    );
    props_empty && !open
}

/// The grammar for calls to `tools`, with a root rule per [`Form`] (and `root`, the bare
/// shape). A tool whose schema the converter cannot express gets open arguments (any JSON
/// object), checked after the call like every call's.
pub(crate) fn call_grammar(tools: &[&ToolSpec]) -> Result<String, LocalError> {
    let mut g = Grammar::new();
    let calls: Vec<String> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let arguments = match &t.parameters {
                p if takes_nothing(p) => r#""{" ws "}""#.into(),
                Value::Object(_) => g.value(&t.parameters, &format!("arguments-{i}")),
                _ => "object".into(),
            };
            format!(
                "\"{{\" ws name-key ws \":\" ws {} ws \",\" ws arguments-key ws \":\" ws \
                 {arguments} ws \"}}\"",
                literal(&Value::String(t.name.clone())),
            )
        })
        .collect();
    let call = match calls.as_slice() {
        [] => return Err(LocalError::Grammar("no tool to call".into())),
        [one] => one.clone(),
        many => format!("( {} )", many.join(" | ")),
    };
    let mut text = g.finish("bare");
    text.push_str(&format!("call ::= {call}\n"));
    text.push_str(FORMS);
    Ok(text)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;
    use crate::provider::ChatMessage;

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
    fn a_tool_named_by_the_user_is_not_forced_the_model_chooses() {
        assert!(forced_tools(&request("Use get_weather for Paris")).is_empty());
        assert!(!calls_refused(&request("Use get_weather for Paris")));
    }

    #[test]
    fn tool_choice_required_or_named_forces_a_call_and_none_refuses_calls() {
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
        assert!(calls_refused(&req));
    }

    #[test]
    fn the_grammar_has_a_root_per_form_naming_the_tool_and_its_arguments() {
        let tool = weather();
        let g = call_grammar(&[&tool]).unwrap();
        assert!(g.starts_with("root ::= bare\n"), "{g}");
        for form in [
            Form::Tagged,
            Form::Fenced,
            Form::Bare,
            Form::Mistral,
            Form::Python,
        ] {
            assert!(g.contains(&format!("\n{} ::= ", form.root())), "{g}");
        }
        assert!(g.contains("weather__get_weather"), "{g}");
        assert!(g.contains("city"), "{g}");
    }

    #[test]
    fn a_schema_that_is_not_an_object_gets_open_arguments() {
        let odd = ToolSpec {
            name: "odd".into(),
            description: String::new(),
            parameters: json!(true),
        };
        let g = call_grammar(&[&odd]).unwrap();
        assert!(g.contains("arguments-key ws \":\" ws object ws"), "{g}");
    }

    #[test]
    fn a_tool_that_declares_no_parameters_is_called_with_an_empty_object() {
        let tool = |parameters| ToolSpec {
            name: "version".into(),
            description: String::new(),
            parameters,
        };
        let none = tool(json!({ "type": "object", "properties": {}, "required": [] }));
        let g = call_grammar(&[&none]).unwrap();
        assert!(
            g.contains(r#"arguments-key ws ":" ws "{" ws "}" ws"#),
            "{g}"
        );
        let open =
            tool(json!({ "type": "object", "properties": {}, "additionalProperties": true }));
        let g = call_grammar(&[&open]).unwrap();
        assert!(g.contains("arguments-key ws \":\" ws object ws"), "{g}");
    }

    #[test]
    fn the_fenced_form_takes_calls_one_a_line_so_a_question_can_get_several() {
        let tool = weather();
        let g = call_grammar(&[&tool]).unwrap();
        assert!(
            g.contains(r#"fenced-calls ::= call ( "\n" call )* | call-list"#),
            "{g}"
        );
        assert!(g.contains(r#""\n" fenced-calls "\n"? "```""#), "{g}");
    }

    #[test]
    fn schemas_the_grammar_cannot_hold_are_left_open_not_refused() {
        let huge: Vec<String> = (0..10_000).map(|i| format!("v{i}")).collect();
        let odd = ToolSpec {
            name: "odd".into(),
            description: String::new(),
            parameters: json!({ "type": "object", "properties": {
                "tree": { "$ref": "#" },
                "pick": { "enum": huge },
                "tags": { "type": "object", "patternProperties": { "^x-": { "type": "string" } } },
            }, "required": ["tree", "pick", "tags"] }),
        };
        let g = call_grammar(&[&odd]).unwrap();
        assert!(g.len() < 10_000, "{g}");
        assert!(g.contains(r#"\"tree\"" ws ":" ws value"#), "{g}");
        assert!(g.contains(r#"\"pick\"" ws ":" ws value"#), "{g}");
        assert!(g.contains(r#"\"tags\"" ws ":" ws object"#), "{g}");
    }

    #[test]
    fn the_template_decides_the_form_of_a_forced_call() {
        assert_eq!(Form::taught_by("{{ '<tool_call>' }}", true), Form::Tagged);
        assert_eq!(Form::taught_by("[TOOL_CALLS]", true), Form::Mistral);
        assert_eq!(Form::taught_by("<tool_call>", false), Form::Bare);
    }
}
