//! Chat templates: the model's own `tokenizer.chat_template` (Jinja) rendered with minijinja
//! the way Hugging Face's `apply_chat_template` does — `trim_blocks` and `lstrip_blocks`, the
//! Python string methods real templates call (minijinja-contrib's pycompat), a Python-style
//! `tojson`, `raise_exception` and `strftime_now` — with `messages`, `tools`,
//! `add_generation_prompt` and `enable_thinking`. ChatML when the model has no template.

use minijinja::value::{Kwargs, Value};
use minijinja::{Environment, Error, ErrorKind};
use serde_json::{Map, Value as Json, json};

use super::LocalError;
use crate::provider::{ChatMessage, ChatRequest, ToolSpec, UserPart};

/// ChatML, for models whose file carries no template.
pub(crate) const CHATML: &str = "{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + \
    message.content + '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- \
    '<|im_start|>assistant\\n' }}{%- endif %}";

/// What a template is rendered with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TemplateInput {
    /// The messages, in the shape Hugging Face templates read (`role`, `content`,
    /// `tool_calls`, `tool_call_id`, `name`).
    pub messages: Vec<Json>,
    /// The tools as OpenAI-style function definitions, when any are offered.
    pub tools: Option<Vec<Json>>,
    /// End with the opening of the assistant's turn.
    pub add_generation_prompt: bool,
    /// The thinking switch (Qwen3 and others), when the request says.
    pub enable_thinking: Option<bool>,
    /// The model's BOS token text.
    pub bos_token: String,
    /// The model's EOS token text.
    pub eos_token: String,
}

/// Whether a template renders tool definitions itself (else tools go in prompt mode).
pub(crate) fn supports_tools(template: &str) -> bool {
    template.contains("tools")
}

/// The most instructions a render may run: a real template over a long conversation with many
/// tools runs some tens of thousands; a hostile one (nested loops) stops here, well within a
/// second.
pub const FUEL: u64 = 5_000_000;
/// The longest prompt a render may write (far beyond any context a local model holds).
pub const MAX_OUTPUT: usize = 16 << 20;
/// The widest `tojson(indent=…)` taken (real templates use 2 or 4).
const MAX_INDENT: usize = 64;

/// Renders `template` with `input`, within [`FUEL`] instructions and [`MAX_OUTPUT`] bytes.
pub fn render(template: &str, input: &TemplateInput) -> Result<String, LocalError> {
    let env = environment();
    let mut ctx = Map::new();
    ctx.insert("messages".into(), Json::Array(input.messages.clone()));
    ctx.insert(
        "tools".into(),
        input.tools.clone().map_or(Json::Null, Json::Array),
    );
    ctx.insert(
        "add_generation_prompt".into(),
        input.add_generation_prompt.into(),
    );
    if let Some(thinking) = input.enable_thinking {
        ctx.insert("enable_thinking".into(), thinking.into());
    }
    ctx.insert("bos_token".into(), input.bos_token.clone().into());
    ctx.insert("eos_token".into(), input.eos_token.clone().into());
    let source = line_continuations_removed(template);
    let fail = |e: &Error| LocalError::Template(describe(e));
    let tmpl = env.template_from_str(&source).map_err(|e| fail(&e))?;
    let mut out = Capped::default();
    match tmpl.render_captured_to(
        Value::from(minijinja::value::Serde(Json::Object(ctx))),
        &mut out,
    ) {
        Ok(_) => Ok(String::from_utf8_lossy(&out.bytes).into_owned()),
        Err(_) if out.over => Err(LocalError::Template(format!(
            "it writes more than {} MiB",
            MAX_OUTPUT >> 20
        ))),
        Err(e) if e.kind() == ErrorKind::OutOfFuel => Err(LocalError::Template(format!(
            "it runs more than {FUEL} steps (a loop without end?)"
        ))),
        Err(e) => Err(fail(&e)),
    }
}

/// A render's output, refused past [`MAX_OUTPUT`].
#[derive(Default)]
struct Capped {
    bytes: Vec<u8>,
    over: bool,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > MAX_OUTPUT {
            self.over = true;
            return Err(std::io::Error::other("the template's output is too long"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The template with Python's line continuations (a backslash before a newline) taken out of
/// the string literals in its tags, as jinja2 reads them; minijinja would keep both characters
/// (Mistral Small 3.1's template has them).
fn line_continuations_removed(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut chars = template.chars().peekable();
    let (mut in_tag, mut quote) = (false, None::<char>);
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        match (in_tag, quote, c, next) {
            (false, _, '{', Some('{' | '%')) => in_tag = true,
            (true, None, '}' | '%', Some('}')) => in_tag = false,
            (true, None, '"' | '\'', _) => quote = Some(c),
            (true, Some(_), '\\', Some('\n')) => {
                chars.next();
                continue;
            }
            (true, Some(_), '\\', Some(escaped)) => {
                out.push(c);
                out.push(escaped);
                chars.next();
                continue;
            }
            (true, Some(q), c, _) if c == q => quote = None,
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The error and its causes on one line.
fn describe(e: &Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    match minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build()
    {
        Ok(syntax) => env.set_syntax(syntax),
        Err(e) => tracing::warn!("the chat template syntax cannot be set: {e}"),
    }
    env.set_fuel(Some(FUEL));
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    env.add_filter("tojson", tojson);
    env.add_function("raise_exception", raise_exception);
    env.add_function("strftime_now", strftime_now);
    env
}

fn raise_exception(message: String) -> Result<Value, Error> {
    Err(Error::new(ErrorKind::InvalidOperation, message))
}

fn strftime_now(format: String) -> String {
    jiff::Zoned::now().strftime(&format).to_string()
}

/// `tojson` as Python's `json.dumps(value, ensure_ascii=False, sort_keys=True)` writes it
/// (`", "` and `": "` between items, or `indent=` spaces), which is what templates are tested
/// with.
fn tojson(value: &Value, kwargs: Kwargs) -> Result<String, Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    kwargs.assert_all_used()?;
    // Found by the fuzz target: `indent=2777777777777*77` asked for 200 TB of spaces.
    if let Some(n) = indent.filter(|n| *n > MAX_INDENT) {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("tojson's indent is {n}; at most {MAX_INDENT} is taken"),
        ));
    }
    // Written into the capped output: a value repeated millions of times stops at the cap.
    let mut out = Capped::default();
    let result = match indent {
        Some(n) => {
            let spaces = vec![b' '; n];
            let f = serde_json::ser::PrettyFormatter::with_indent(&spaces);
            serde::Serialize::serialize(
                value,
                &mut serde_json::Serializer::with_formatter(&mut out, f),
            )
        }
        None => serde::Serialize::serialize(
            value,
            &mut serde_json::Serializer::with_formatter(&mut out, PythonJson),
        ),
    };
    if out.over {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("tojson writes more than {} MiB", MAX_OUTPUT >> 20),
        ));
    }
    result.map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?;
    String::from_utf8(out.bytes).map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))
}

/// JSON with Python's default separators.
struct PythonJson;

impl serde_json::ser::Formatter for PythonJson {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

/// A request's conversation as template messages: the system prompt first, tool calls with
/// their arguments as objects, tool results as `tool` messages.
pub(crate) fn messages(req: &ChatRequest) -> Vec<Json> {
    let mut out = Vec::new();
    if let Some(system) = req.system.as_deref().filter(|s| !s.trim().is_empty()) {
        out.push(json!({ "role": "system", "content": system }));
    }
    out.extend(req.messages.iter().map(message));
    out
}

fn message(m: &ChatMessage) -> Json {
    match m {
        ChatMessage::User { parts } => {
            json!({ "role": "user", "content": UserPart::text_of(parts) })
        }
        ChatMessage::Assistant { text, tool_calls } if tool_calls.is_empty() => {
            json!({ "role": "assistant", "content": text })
        }
        ChatMessage::Assistant { text, tool_calls } => {
            let calls: Vec<Json> = tool_calls
                .iter()
                .map(|c| {
                    json!({ "id": c.id, "type": "function",
                        "function": { "name": c.name, "arguments": c.arguments } })
                })
                .collect();
            json!({ "role": "assistant", "content": text, "tool_calls": calls })
        }
        ChatMessage::Tool {
            call_id,
            name,
            content,
            ..
        } => json!({ "role": "tool", "tool_call_id": call_id, "name": name, "content": content }),
    }
}

/// Tools as the OpenAI-style function definitions templates expect.
pub(crate) fn tools(specs: &[ToolSpec]) -> Vec<Json> {
    specs
        .iter()
        .map(|t| {
            json!({ "type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.parameters } })
        })
        .collect()
}

#[cfg(test)]
#[path = "template_tests.rs"]
mod tests;
