//! Finding tool calls in a reply's text. The reply is scanned left to right for places where a
//! call may start ([`start_at`]): a code fence, a `<tool_call>` tag, or a JSON object or array.
//! Each such block is parsed leniently and read as calls when it names a known tool; calls are
//! cut out of the text, anything else stays as written.

use serde_json::{Map, Value};

use super::repair::{balanced_end, parse_lenient};
use crate::provider::ToolCall;

/// A reply split into its prose and the tool calls found in it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extraction {
    /// The reply with the tool-call JSON removed, trimmed.
    pub text: String,
    /// The calls, in reply order, with ids `call_0`, `call_1`, ….
    pub calls: Vec<ToolCall>,
}

/// Finds the tool calls in `reply`. Only objects naming one of `known_tools` (exactly, else
/// ignoring ASCII case) count; everything else stays in the text.
pub fn extract_tool_calls(reply: &str, known_tools: &[&str]) -> Extraction {
    let mut out = Out::new();
    scan(reply, known_tools, 0, &mut out);
    out.finish()
}

/// What may start at some point of a reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Start {
    /// A code fence: ``` or ~~~.
    Fence,
    /// A `<tool_call>` tag.
    Tag,
    /// A JSON object (or an array of objects).
    Json,
    /// Nothing.
    No,
    /// Can't tell yet: the text ends in what may become a start.
    NeedMore,
}

const TAG_OPEN: &str = "<tool_call>";
const TAG_CLOSE: &str = "</tool_call>";
/// How deep fences and tags are looked into (a tag in a fence, …).
const MAX_DEPTH: usize = 2;
/// The most whitespace between a bracket and what shows it opens a call.
const MAX_GAP: usize = 64;

/// Whether a call may start at the beginning of `rest`. Depends on `rest` only, so a stream can
/// decide it as text arrives.
pub(super) fn start_at(rest: &str) -> Start {
    let Some(c) = rest.chars().next() else {
        return Start::No;
    };
    match c {
        '`' | '~' if rest.starts_with("```") || rest.starts_with("~~~") => Start::Fence,
        '`' if "```".starts_with(rest) => Start::NeedMore,
        '~' if "~~~".starts_with(rest) => Start::NeedMore,
        '<' if rest.starts_with(TAG_OPEN) => Start::Tag,
        '<' if TAG_OPEN.starts_with(rest) => Start::NeedMore,
        '{' | '[' => json_start(c, &rest[1..]),
        _ => Start::No,
    }
}

/// Whether `{` or `[` followed by `after` opens a possible call: the first character after at
/// most [`MAX_GAP`] whitespace characters must start a key (`{`) or an object (`[`).
fn json_start(open: char, after: &str) -> Start {
    for (n, c) in after.chars().enumerate() {
        if n > MAX_GAP {
            return Start::No;
        }
        if c.is_whitespace() {
            continue;
        }
        let opens = match open {
            '{' => matches!(c, '"' | '\'' | '“' | '”' | '‘' | '_') || c.is_ascii_alphabetic(),
            _ => c == '{',
        };
        return if opens { Start::Json } else { Start::No };
    }
    Start::NeedMore
}

/// The prose pieces between removed blocks, and the calls found.
struct Out {
    chunks: Vec<String>,
    calls: Vec<(String, Value)>,
}

impl Out {
    fn new() -> Self {
        Self {
            chunks: vec![String::new()],
            calls: Vec::new(),
        }
    }

    fn text(&mut self, s: &str) {
        match self.chunks.last_mut() {
            Some(last) => last.push_str(s),
            None => self.chunks.push(s.to_owned()),
        }
    }

    /// A block was removed here.
    fn cut(&mut self, calls: Vec<(String, Value)>) {
        self.calls.extend(calls);
        self.chunks.push(String::new());
    }

    fn finish(self) -> Extraction {
        let calls = self.calls.into_iter().enumerate();
        Extraction {
            text: join(&self.chunks),
            calls: calls
                .map(|(i, (name, arguments))| ToolCall {
                    id: format!("call_{i}"),
                    name,
                    arguments,
                })
                .collect(),
        }
    }
}

/// Joins the prose around removed blocks: the whitespace at a cut becomes a paragraph break, a
/// line break, a space or nothing, after what it was.
fn join(chunks: &[String]) -> String {
    let mut out = String::new();
    let mut gap = String::new();
    for chunk in chunks {
        let body = chunk.trim();
        if body.is_empty() {
            gap.push_str(chunk);
            continue;
        }
        gap.push_str(&chunk[..chunk.len() - chunk.trim_start().len()]);
        if !out.is_empty() {
            out.push_str(match gap.matches('\n').count() {
                0 if gap.is_empty() => "",
                0 => " ",
                1 => "\n",
                _ => "\n\n",
            });
        }
        out.push_str(body);
        gap = chunk[chunk.trim_end().len()..].to_owned();
    }
    out
}

/// What one block at the scan position turned out to be.
enum Found {
    /// Calls, removed up to `end`; `leftover` is what else the block held, kept as text.
    Calls {
        end: usize,
        calls: Vec<(String, Value)>,
        leftover: Option<String>,
    },
    /// Not calls: keep it as text and go on after `end`. `settled` when no text that could
    /// follow changes that (the block is closed).
    Skip { end: usize, settled: bool },
    /// A JSON object that never closes: no more bare JSON from here on.
    Unclosed,
    /// Nothing starts here.
    Nothing,
}

/// If `text` starts with a closed block that holds no calls, its length: the text up to there
/// reads the same whatever follows.
pub(super) fn settled_prose(text: &str, known: &[&str]) -> Option<usize> {
    match block(text, known, 0, true) {
        Found::Skip { end, settled: true } => Some(end),
        _ => None,
    }
}

/// The block that starts `rest`, if any.
fn block(rest: &str, known: &[&str], depth: usize, bare_json: bool) -> Found {
    match start_at(rest) {
        Start::Fence if depth < MAX_DEPTH => fence(rest, known, depth),
        Start::Tag if depth < MAX_DEPTH => tag(rest, known, depth),
        Start::Json if bare_json => json(rest, known),
        _ => Found::Nothing,
    }
}

fn scan(text: &str, known: &[&str], depth: usize, out: &mut Out) {
    let (mut last, mut i, mut bare_json) = (0, 0, true);
    while let Some(rest) = text.get(i..).filter(|r| !r.is_empty()) {
        let found = block(rest, known, depth, bare_json);
        let step = rest.chars().next().map_or(1, char::len_utf8);
        match found {
            Found::Calls {
                end,
                calls,
                leftover,
            } => {
                out.text(&text[last..i]);
                out.cut(calls);
                if let Some(leftover) = leftover {
                    out.text(&leftover);
                    out.cut(Vec::new());
                }
                i += end;
                last = i;
            }
            Found::Skip { end, .. } => i += end,
            Found::Unclosed => {
                bare_json = false;
                i += step;
            }
            Found::Nothing => i += step,
        }
    }
    out.text(&text[last..]);
}

/// A bare JSON object or array at the start of `rest`.
fn json(rest: &str, known: &[&str]) -> Found {
    let Some(end) = balanced_end(rest) else {
        return Found::Unclosed;
    };
    match parse_lenient(&rest[..end]).and_then(|v| calls_in_value(&v, known)) {
        Some(calls) => Found::Calls {
            end,
            calls,
            leftover: None,
        },
        None => Found::Skip { end, settled: true },
    }
}

/// A fenced block at the start of `rest`; an unclosed fence runs to the end.
fn fence(rest: &str, known: &[&str], depth: usize) -> Found {
    let mark = rest.chars().next().unwrap_or('`');
    let run = rest.len() - rest.trim_start_matches(mark).len();
    let info_len = rest[run..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '.')))
        .unwrap_or(rest.len() - run);
    let body_start = run + info_len;
    let closing = rest[..run].to_owned();
    let (body, end, closed) = match find_close(&rest[body_start..], &closing) {
        Some((at, len)) => (
            &rest[body_start..body_start + at],
            body_start + at + len,
            true,
        ),
        None => (&rest[body_start..], rest.len(), false),
    };
    let (calls, leftover) = calls_in_block(body, known, depth + 1);
    if calls.is_empty() {
        // A closing fence at the very end may still grow.
        let settled = closed && end < rest.len();
        return Found::Skip { end, settled };
    }
    let leftover = (!leftover.is_empty()).then(|| match closed {
        true => format!(
            "{}{}\n{leftover}\n{closing}",
            &rest[..run],
            &rest[run..body_start]
        ),
        false => leftover,
    });
    Found::Calls {
        end,
        calls,
        leftover,
    }
}

/// Where the closing fence `mark` is in a block's `body`, and how long it is: the first fence
/// that starts a line, or that follows the JSON value opening the body (so fences inside its
/// strings don't close the block; none while that value is unclosed). Text appended to `body`
/// never moves a fence found.
fn find_close(body: &str, mark: &str) -> Option<(usize, usize)> {
    let lead = body.len() - body.trim_start().len();
    let from = match body[lead..].starts_with(['{', '[']) {
        true => balanced_end(&body[lead..]).map(|e| lead + e),
        false => Some(lead),
    };
    let after_json = from.and_then(|from| body[from..].find(mark).map(|i| from + i));
    let mut offset = 0;
    let line_start = body.split('\n').find_map(|line| {
        let (here, indent) = (offset, line.len() - line.trim_start().len());
        offset += line.len() + 1;
        (here > 0 && line[indent..].starts_with(mark)).then_some(here + indent)
    });
    let at = match (after_json, line_start) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    let tail = &body[at + mark.len()..];
    let extra = tail.len() - tail.trim_start_matches(&mark[..1]).len();
    Some((at, mark.len() + extra))
}

/// A `<tool_call>…</tool_call>` block at the start of `rest`; an unclosed tag runs to the end.
fn tag(rest: &str, known: &[&str], depth: usize) -> Found {
    let inner = &rest[TAG_OPEN.len()..];
    let (body, end, settled) = match inner.find(TAG_CLOSE) {
        Some(at) => (&inner[..at], TAG_OPEN.len() + at + TAG_CLOSE.len(), true),
        None => (inner, rest.len(), false),
    };
    let (calls, leftover) = calls_in_block(body, known, depth + 1);
    if calls.is_empty() {
        return Found::Skip { end, settled };
    }
    Found::Calls {
        end,
        calls,
        leftover: (!leftover.is_empty()).then_some(leftover),
    }
}

/// The calls in the body of a fence or tag, and the rest of the body (trimmed).
fn calls_in_block(body: &str, known: &[&str], depth: usize) -> (Vec<(String, Value)>, String) {
    if let Some(calls) = parse_lenient(body.trim()).and_then(|v| calls_in_value(&v, known)) {
        return (calls, String::new());
    }
    let mut inner = Out::new();
    scan(body, known, depth, &mut inner);
    (inner.calls, join(&inner.chunks))
}

/// The keys that may name the tool, in the order they are tried.
const NAME_KEYS: [&str; 5] = ["tool", "tool_name", "action", "function", "name"];
/// The keys that may hold the arguments.
const ARG_KEYS: [&str; 8] = [
    "arguments",
    "args",
    "parameters",
    "params",
    "param",
    "input",
    "tool_input",
    "action_input",
];

/// The calls a parsed JSON value stands for: one call, `{"tool_calls": […]}`, or an array of
/// calls. All or nothing: a value that is not entirely calls is none.
pub(super) fn calls_in_value(value: &Value, known: &[&str]) -> Option<Vec<(String, Value)>> {
    match value {
        Value::Array(items) if !items.is_empty() => {
            items.iter().map(|v| call_in_object(v, known)).collect()
        }
        Value::Object(map) => match map.get("tool_calls") {
            Some(inner @ (Value::Array(_) | Value::Object(_))) => calls_in_value(inner, known),
            _ => call_in_object(value, known).map(|c| vec![c]),
        },
        _ => None,
    }
}

/// One call: its known tool name and its arguments object.
fn call_in_object(value: &Value, known: &[&str]) -> Option<(String, Value)> {
    let map = value.as_object()?;
    if let Some(inner) = ["function", "function_call"]
        .iter()
        .find_map(|k| map.get(*k).filter(|v| v.is_object()))
    {
        return call_in_object(inner, known);
    }
    let (key, name) = NAME_KEYS.iter().find_map(|k| {
        let name = map.get(*k)?.as_str()?;
        Some((*k, known_name(name, known)?))
    })?;
    if key != "action" && is_definition(map) {
        return None;
    }
    let given = ARG_KEYS.iter().find_map(|k| map.get(*k));
    let arguments = match (given.map(arguments_of), key) {
        (Some(Some(args)), _) => args,
        (Some(None), "action") | (None, _) => other_keys(map, key),
        (Some(None), _) => return None,
    };
    Some((name, arguments))
}

/// The canonical name of `name` among the known tools.
fn known_name(name: &str, known: &[&str]) -> Option<String> {
    let name = name.trim();
    let found = known.iter().find(|k| **k == name);
    found
        .or_else(|| known.iter().find(|k| k.eq_ignore_ascii_case(name)))
        .map(|k| (*k).to_owned())
}

/// Whether the object describes a tool (an echoed definition) rather than calling it: it has a
/// schema, or a description and no arguments.
fn is_definition(map: &Map<String, Value>) -> bool {
    let schema = map.get("parameters").and_then(Value::as_object);
    let is_schema = schema.is_some_and(|s| {
        s.get("type").and_then(Value::as_str) == Some("object") && s.contains_key("properties")
    });
    let has_args = ARG_KEYS.iter().any(|k| map.contains_key(*k));
    is_schema
        || map.contains_key("inputSchema")
        || map.contains_key("input_schema")
        || (map.contains_key("description") && !has_args)
}

/// An arguments value as an object: objects as they are, JSON text parsed, null as `{}`.
fn arguments_of(value: &Value) -> Option<Value> {
    match value {
        Value::Object(_) => Some(value.clone()),
        Value::Null => Some(Value::Object(Map::new())),
        Value::String(s) if s.trim().is_empty() => Some(Value::Object(Map::new())),
        Value::String(s) => parse_lenient(s.trim()).filter(Value::is_object),
        _ => None,
    }
}

/// The arguments given beside the name: every other key (but `id` and `type` next to a `tool`
/// or `name`).
fn other_keys(map: &Map<String, Value>, name_key: &str) -> Value {
    let skip = |k: &str| k == name_key || (name_key != "action" && matches!(k, "id" | "type"));
    let rest = map.iter().filter(|(k, _)| !skip(k));
    Value::Object(rest.map(|(k, v)| (k.clone(), v.clone())).collect())
}
