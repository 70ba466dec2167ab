//! The model's streamed text as provider events: `<think>…</think>` becomes reasoning, the
//! markers some templates put before tool calls (Mistral's `[TOOL_CALLS]`, Llama 3.x's
//! `<|python_tag|>`) are dropped so that the JSON after them reads as calls. The calls
//! themselves are found by the prompt-mode scanner (`provider::prompt_tools`), which knows
//! Hermes/Qwen `<tool_call>` tags, bare `{"name": …, "arguments"/"parameters": …}` objects and
//! arrays of them, and fenced blocks.

use crate::provider::ProviderEvent;

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";
/// Markers that announce tool calls and carry nothing themselves.
const CALL_MARKERS: [&str; 2] = ["[TOOL_CALLS]", "<|python_tag|>"];

/// Whether a prompt ends inside `<think>` (some templates open it for the model).
pub(crate) fn opens_thinking(prompt: &str) -> bool {
    prompt.trim_end().ends_with(THINK_OPEN)
}

/// Splits streamed text into answer and reasoning.
#[derive(Debug, Default)]
pub(crate) struct Shaper {
    thinking: bool,
    /// Text that may be the start of a tag, not yet passed on.
    held: String,
}

impl Shaper {
    /// A shaper for an answer that starts in reasoning (`thinking`) or in the answer.
    pub(crate) fn new(thinking: bool) -> Self {
        Self {
            thinking,
            held: String::new(),
        }
    }

    /// The events for one piece of text.
    pub(crate) fn push(&mut self, piece: &str) -> Vec<ProviderEvent> {
        let mut text = std::mem::take(&mut self.held);
        text.push_str(piece);
        for marker in CALL_MARKERS {
            text = text.replace(marker, "");
        }
        let mut out = Vec::new();
        let mut rest = text.as_str();
        loop {
            let tag = if self.thinking {
                THINK_CLOSE
            } else {
                THINK_OPEN
            };
            if let Some(at) = rest.find(tag) {
                self.emit(&rest[..at], &mut out);
                self.thinking = !self.thinking;
                rest = &rest[at + tag.len()..];
                if !self.thinking {
                    rest = rest.trim_start_matches('\n');
                }
                continue;
            }
            let keep = partial_tail(rest, tag);
            self.emit(&rest[..rest.len() - keep], &mut out);
            self.held = rest[rest.len() - keep..].to_owned();
            return out;
        }
    }

    /// What is still held, at the end.
    pub(crate) fn finish(&mut self) -> Vec<ProviderEvent> {
        let held = std::mem::take(&mut self.held);
        let mut out = Vec::new();
        self.emit(&held, &mut out);
        out
    }

    fn emit(&self, text: &str, out: &mut Vec<ProviderEvent>) {
        if text.is_empty() {
            return;
        }
        out.push(if self.thinking {
            ProviderEvent::ReasoningDelta { text: text.into() }
        } else {
            ProviderEvent::text(text)
        });
    }
}

/// The length of the longest tail of `text` that begins `tag` (or a call marker).
fn partial_tail(text: &str, tag: &str) -> usize {
    text.char_indices()
        .map(|(i, _)| i)
        .find(|&i| {
            let tail = &text[i..];
            tag.starts_with(tail) || CALL_MARKERS.iter().any(|m| m.starts_with(tail))
        })
        .map_or(0, |i| text.len() - i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(prompt: &str, pieces: &[&str]) -> Vec<ProviderEvent> {
        let mut shaper = Shaper::new(opens_thinking(prompt));
        let mut out: Vec<ProviderEvent> = pieces.iter().flat_map(|p| shaper.push(p)).collect();
        out.extend(shaper.finish());
        merge(out)
    }

    /// Adjacent deltas of one kind joined, so tests do not depend on how pieces were cut.
    fn merge(events: Vec<ProviderEvent>) -> Vec<ProviderEvent> {
        let mut out: Vec<ProviderEvent> = Vec::new();
        for e in events {
            match (out.last_mut(), e) {
                (
                    Some(ProviderEvent::TextDelta { text: a }),
                    ProviderEvent::TextDelta { text: b },
                )
                | (
                    Some(ProviderEvent::ReasoningDelta { text: a }),
                    ProviderEvent::ReasoningDelta { text: b },
                ) => a.push_str(&b),
                (_, e) => out.push(e),
            }
        }
        out
    }

    #[test]
    fn think_tags_split_across_pieces_become_reasoning() {
        let got = run("", &["<thi", "nk>plan it</th", "ink>\n\nThe answer"]);
        assert_eq!(
            got,
            vec![
                ProviderEvent::ReasoningDelta {
                    text: "plan it".into()
                },
                ProviderEvent::text("The answer"),
            ]
        );
    }

    #[test]
    fn a_prompt_that_opens_think_starts_in_reasoning() {
        let got = run("<|im_start|>assistant\n<think>\n", &["hmm</think>ok"]);
        assert_eq!(
            got,
            vec![
                ProviderEvent::ReasoningDelta { text: "hmm".into() },
                ProviderEvent::text("ok"),
            ]
        );
    }

    #[test]
    fn mistral_and_llama_call_markers_are_dropped() {
        let got = run("", &["[TOOL_", "CALLS][{\"name\": \"f\"}]"]);
        assert_eq!(got, vec![ProviderEvent::text("[{\"name\": \"f\"}]")]);
        let got = run("", &["<|python_tag|>{\"name\": \"f\"}"]);
        assert_eq!(got, vec![ProviderEvent::text("{\"name\": \"f\"}")]);
    }

    #[test]
    fn text_that_only_looks_like_a_tag_start_is_kept() {
        let got = run("", &["a <th", "is"]);
        assert_eq!(got, vec![ProviderEvent::text("a <this")]);
    }
}
