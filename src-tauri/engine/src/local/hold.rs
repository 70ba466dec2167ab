//! Held tool calls: when tools are offered, the model answers freely until its text begins a
//! call — a template's marker (`<tool_call>`, `[TOOL_CALLS]`, `<|python_tag|>`) or the shapes
//! small models write instead (a JSON object whose first key is `name`, `tool`, `function`…,
//! bare, in an array or in a fenced block). [`Watch`] finds that start in the streamed text
//! (holding back text that may still become one); the decoder then takes the answer back to
//! the token where the call began and generates the rest under the call grammar
//! ([`super::grammar`]), so the call names an offered tool and its arguments follow the schema.
//! Prose, code samples and JSON that is not a call are never held. [`Hold`] is what a prompt
//! asks of the decoder; [`repeats_spent`] tells a call the model already got an answer to.

use serde_json::Value;

use super::grammar::Form;
use crate::provider::prompt_tools::extract_tool_calls;
use crate::provider::{ChatMessage, ChatRequest};

/// How an answer's calls are held.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hold {
    /// The call grammar, with a root per [`Form`].
    pub grammar: String,
    /// `Some`: the answer is a call from its first token, in this form (`tool_choice` forces
    /// one); `None`: the model chooses, and a call is held once it begins.
    pub forced: Option<Form>,
    /// The offered tools' names, to read a finished call.
    pub names: Vec<String>,
    /// Calls (name, arguments) already made and answered since the user's message: one made
    /// again is taken back and the model answers instead.
    pub spent: Vec<(String, Value)>,
    /// The first decision's ratio when the request sets one (`switchboard_call_ratio`).
    pub call_ratio: Option<f32>,
    /// The answer must begin in prose (no call opener as its first token): a model in prompt
    /// mode whose calls of this turn were answered. Small models call again and again from a
    /// result; beginning in prose, they answer from it, and a call later in the answer is
    /// still held.
    pub answer_first: bool,
}

/// Keys that open a call when they come first in a JSON object.
const CALL_KEYS: [&str; 5] = ["name", "tool", "tool_name", "function", "function_name"];
/// Markers that open a call, with the form the rest takes.
const MARKERS: [(&str, Form); 3] = [
    ("<tool_call>", Form::Tagged),
    ("[TOOL_CALLS]", Form::Mistral),
    ("<|python_tag|>", Form::Python),
];
/// The most text held while a possible start is undecided.
const MAX_UNDECIDED: usize = 96;

/// What the watched text holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scan {
    /// No call has begun; the first `n` bytes can be passed on (the rest may start one).
    Free(usize),
    /// A call begins at byte `at`, in this form.
    Call {
        /// Where the call's text begins.
        at: usize,
        /// Its shape.
        form: Form,
    },
}

/// Watches an answer's text for the start of a call.
#[derive(Clone, Debug, Default)]
pub(crate) struct Watch {
    /// Every possible start before this byte has been decided: not a call.
    decided: usize,
}

impl Watch {
    /// Scans `answer` (the whole answer so far; it only grows between calls).
    pub(crate) fn scan(&mut self, answer: &str) -> Scan {
        let mut from = self.decided.min(answer.len());
        while let Some(off) = answer[from..].find(['<', '[', '`', '{']) {
            let at = from + off;
            match classify(&answer[at..]) {
                Class::Call(form) => return Scan::Call { at, form },
                Class::NeedMore => {
                    self.decided = at;
                    return Scan::Free(at);
                }
                Class::No => from = at + 1,
            }
        }
        self.decided = answer.len();
        Scan::Free(answer.len())
    }
}

/// What may start at the beginning of a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Call(Form),
    No,
    NeedMore,
}

fn classify(rest: &str) -> Class {
    for (marker, form) in MARKERS {
        if rest.starts_with(marker) {
            return Class::Call(form);
        }
        if marker.starts_with(rest) {
            return Class::NeedMore;
        }
    }
    let class = match rest.as_bytes()[0] {
        b'`' => fenced(rest),
        b'{' | b'[' => json(rest),
        _ => Class::No,
    };
    match (class, form_of(class)) {
        (Class::NeedMore, _) if rest.len() > MAX_UNDECIDED => Class::No,
        (Class::Call(_), Some(Form::Bare)) if rest.starts_with('`') => Class::Call(Form::Fenced),
        _ => class,
    }
}

fn form_of(class: Class) -> Option<Form> {
    match class {
        Class::Call(form) => Some(form),
        _ => None,
    }
}

/// A fence (```, an optional language word, a line break) followed by a call.
fn fenced(rest: &str) -> Class {
    if !rest.starts_with("```") {
        return if "```".starts_with(rest) {
            Class::NeedMore
        } else {
            Class::No
        };
    }
    let after = &rest[3..];
    let lang_end = after
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(after.len());
    let body = after[lang_end..].trim_start();
    if lang_end == after.len() || body.is_empty() {
        return Class::NeedMore;
    }
    match json(body) {
        Class::Call(_) => Class::Call(Form::Fenced),
        other => other,
    }
}

/// A JSON object whose first key is a call key, or an array whose first item is one
/// (`rest` may begin with anything: a fence's body is any text).
fn json(rest: &str) -> Class {
    if let Some(inner) = rest.strip_prefix('[') {
        let inner = inner.trim_start();
        return match inner.chars().next() {
            None => Class::NeedMore,
            Some('{') => json(inner),
            Some(_) => Class::No,
        };
    }
    let Some(inner) = rest.strip_prefix('{') else {
        return Class::No;
    };
    let inner = inner.trim_start();
    let Some(key) = inner.strip_prefix('"') else {
        return if inner.is_empty() {
            Class::NeedMore
        } else {
            Class::No
        };
    };
    match key.find('"') {
        Some(end) if CALL_KEYS.contains(&&key[..end]) => Class::Call(Form::Bare),
        Some(_) => Class::No,
        None if CALL_KEYS.iter().any(|k| k.starts_with(key)) => Class::NeedMore,
        None => Class::No,
    }
}

/// The calls made and answered since the request's last user message.
pub(crate) fn spent_calls(req: &ChatRequest) -> Vec<(String, Value)> {
    let start = req
        .messages
        .iter()
        .rposition(|m| matches!(m, ChatMessage::User { .. }))
        .map_or(0, |at| at + 1);
    let turn = &req.messages[start..];
    let answered = |id: &str| {
        turn.iter()
            .any(|m| matches!(m, ChatMessage::Tool { call_id, .. } if call_id == id))
    };
    turn.iter()
        .filter_map(|m| match m {
            ChatMessage::Assistant { tool_calls, .. } => Some(tool_calls),
            _ => None,
        })
        .flatten()
        .filter(|c| answered(&c.id))
        .map(|c| (c.name.clone(), c.arguments.clone()))
        .collect()
}

/// Whether `text` (a finished held call) holds only calls already made and answered.
pub(crate) fn repeats_spent(text: &str, hold: &Hold) -> bool {
    if hold.spent.is_empty() {
        return false;
    }
    let names: Vec<&str> = hold.names.iter().map(String::as_str).collect();
    let calls = extract_tool_calls(text, &names).calls;
    !calls.is_empty()
        && calls.iter().all(|c| {
            hold.spent
                .iter()
                .any(|(n, a)| *n == c.name && *a == c.arguments)
        })
}

#[cfg(test)]
#[path = "hold_tests.rs"]
mod tests;
