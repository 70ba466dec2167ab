//! `<think>…</think>` written into the answer text (DeepSeek-R1 distills, QwQ and the like,
//! served by OpenAI-compatible servers and Ollama without a reasoning parser) split into
//! reasoning and answer as the text streams. Only a block that opens the answer counts (text
//! that merely mentions the tag later is the answer's); the split is the same however the text
//! is cut into chunks, because a tail that may be the start of a tag is held until it is
//! known.

use super::ProviderEvent;

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// Where the answer is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// Nothing but whitespace yet: a `<think>` may still open it.
    #[default]
    Start,
    /// Inside the block.
    Thinking,
    /// Right after the block: the blank lines after `</think>` are dropped.
    AfterThinking,
    /// The answer.
    Answer,
}

/// Splits one answer's streamed text into reasoning and answer deltas.
#[derive(Debug, Default)]
pub(crate) struct ThinkTags {
    state: State,
    /// Text not yet passed on: the possible start of a tag.
    held: String,
}

impl ThinkTags {
    /// The events for one piece of answer text.
    pub(crate) fn push(&mut self, piece: &str, out: &mut Vec<ProviderEvent>) {
        match self.state {
            State::Answer => emit_text(piece, out),
            State::Start => {
                self.held.push_str(piece);
                let trimmed = self.held.trim_start();
                if let Some(rest) = trimmed.strip_prefix(OPEN) {
                    let rest = rest.to_owned();
                    self.held.clear();
                    self.state = State::Thinking;
                    self.push(&rest, out);
                } else if !OPEN.starts_with(trimmed) {
                    self.state = State::Answer;
                    emit_text(&std::mem::take(&mut self.held), out);
                }
            }
            State::Thinking => {
                self.held.push_str(piece);
                if let Some(at) = self.held.find(CLOSE) {
                    emit_reasoning(&self.held[..at], out);
                    let rest = self.held[at + CLOSE.len()..].to_owned();
                    self.held.clear();
                    self.state = State::AfterThinking;
                    self.push(&rest, out);
                } else {
                    let keep = partial_tail(&self.held, CLOSE);
                    let cut = self.held.len() - keep;
                    emit_reasoning(&self.held[..cut], out);
                    self.held.drain(..cut);
                }
            }
            State::AfterThinking => {
                let rest = piece.trim_start();
                if !rest.is_empty() {
                    self.state = State::Answer;
                    emit_text(rest, out);
                }
            }
        }
    }

    /// What is still held, at the end of the answer.
    pub(crate) fn finish(&mut self, out: &mut Vec<ProviderEvent>) {
        let held = std::mem::take(&mut self.held);
        match self.state {
            State::Thinking => emit_reasoning(&held, out),
            _ => emit_text(&held, out),
        }
    }
}

fn emit_text(text: &str, out: &mut Vec<ProviderEvent>) {
    if !text.is_empty() {
        out.push(ProviderEvent::text(text));
    }
}

fn emit_reasoning(text: &str, out: &mut Vec<ProviderEvent>) {
    if !text.is_empty() {
        out.push(ProviderEvent::ReasoningDelta { text: text.into() });
    }
}

/// The length of the longest tail of `text` that begins `tag`.
fn partial_tail(text: &str, tag: &str) -> usize {
    text.char_indices()
        .map(|(i, _)| i)
        .find(|&i| tag.starts_with(&text[i..]))
        .map_or(0, |i| text.len() - i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text and reasoning of `pieces`, each joined (so the cut does not matter).
    fn split(pieces: &[&str]) -> (String, String) {
        let mut tags = ThinkTags::default();
        let mut out = Vec::new();
        for p in pieces {
            tags.push(p, &mut out);
        }
        tags.finish(&mut out);
        let (mut text, mut reasoning) = (String::new(), String::new());
        for e in out {
            match e {
                ProviderEvent::TextDelta { text: t } => text.push_str(&t),
                ProviderEvent::ReasoningDelta { text: t } => reasoning.push_str(&t),
                other => panic!("unexpected {other:?}"),
            }
        }
        (text, reasoning)
    }

    #[test]
    fn a_block_opening_the_answer_is_reasoning_however_the_text_is_cut() {
        let whole = "\n<think>\n嗯，用户问 2+2。</think>\n\n2 + 2 = 4。";
        let expected = ("2 + 2 = 4。".to_owned(), "\n嗯，用户问 2+2。".to_owned());
        assert_eq!(split(&[whole]), expected);
        let bounds: Vec<usize> = whole.char_indices().map(|(i, _)| i).skip(1).collect();
        for &at in &bounds {
            assert_eq!(
                split(&[&whole[..at], &whole[at..]]),
                expected,
                "cut at {at}"
            );
        }
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(split(&refs), expected);
    }

    #[test]
    fn a_tag_that_does_not_open_the_answer_stays_text() {
        let whole = "Use <think> tags like <think>this</think>.";
        assert_eq!(split(&[whole]), (whole.to_owned(), String::new()));
        assert_eq!(
            split(&["<", "b>bold</b>"]),
            ("<b>bold</b>".into(), String::new())
        );
    }

    #[test]
    fn an_unclosed_block_is_all_reasoning_and_a_bare_tag_start_is_text() {
        assert_eq!(
            split(&["<think>still", " going</thi"]),
            (String::new(), "still going</thi".into())
        );
        assert_eq!(split(&["<thi"]), ("<thi".into(), String::new()));
    }

    /// A DeepSeek-R1 distill's answer as an OpenAI-compatible server streams it (content only,
    /// no `reasoning_content`), one SSE chunk per token.
    const R1_TOKENS: [&str; 12] = [
        "<think>",
        "\n",
        "The user",
        " asks",
        " 7×6",
        ".",
        "\n",
        "</think>",
        "\n\n",
        "7 × 6 = ",
        "42",
        "。",
    ];

    fn openai_body(pieces: &[&str]) -> Vec<u8> {
        let mut body = String::new();
        for p in pieces {
            let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": p}}]});
            body.push_str(&format!("data: {chunk}\n\n"));
        }
        body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
        body.into_bytes()
    }

    fn ollama_body(pieces: &[&str]) -> Vec<u8> {
        let mut body = String::new();
        for p in pieces {
            let line = serde_json::json!({"model": "qwq", "message": {"role": "assistant", "content": p}, "done": false});
            body.push_str(&format!("{line}\n"));
        }
        body.push_str("{\"model\":\"qwq\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\"}\n");
        body.into_bytes()
    }

    /// Text and reasoning of decoded events, each joined, and the finish.
    fn joined(
        events: Vec<Result<ProviderEvent, crate::provider::ProviderError>>,
    ) -> (String, String, usize) {
        let (mut text, mut reasoning, mut finishes) = (String::new(), String::new(), 0);
        for e in events {
            match e.unwrap() {
                ProviderEvent::TextDelta { text: t } => text.push_str(&t),
                ProviderEvent::ReasoningDelta { text: t } => reasoning.push_str(&t),
                ProviderEvent::Finish { .. } => finishes += 1,
                other => panic!("unexpected {other:?}"),
            }
        }
        (text, reasoning, finishes)
    }

    #[tokio::test]
    async fn a_recorded_stream_split_at_every_byte_and_rechunked_at_every_char_splits_the_same() {
        use crate::provider::framing::{Framing, decode_all, decode_at_every_split};
        use crate::provider::{StreamParser, ollama, openai};
        let expected = (
            "7 × 6 = 42。".to_owned(),
            "\nThe user asks 7×6.\n".to_owned(),
            1,
        );
        let whole: String = R1_TOKENS.concat();
        let bounds: Vec<usize> = whole.char_indices().map(|(i, _)| i).skip(1).collect();
        type Make = fn() -> Box<dyn StreamParser>;
        type Body = fn(&[&str]) -> Vec<u8>;
        let formats: [(Framing, Body, Make); 2] = [
            (Framing::Sse, openai_body, || {
                Box::new(openai::Parser::default())
            }),
            (Framing::Ndjson, ollama_body, || {
                Box::new(ollama::Parser::default())
            }),
        ];
        for (framing, body, parser) in formats {
            let events = decode_at_every_split(&body(&R1_TOKENS), framing, parser)
                .await
                .unwrap();
            assert_eq!(joined(events), expected);
            for &at in &bounds {
                let rechunked = body(&[&whole[..at], &whole[at..]]);
                let got = joined(decode_all(vec![rechunked], framing, parser()).await);
                assert_eq!(got, expected, "content cut at {at}");
            }
            let chars: Vec<String> = whole.chars().map(String::from).collect();
            let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
            let got = joined(decode_all(vec![body(&refs)], framing, parser()).await);
            assert_eq!(got, expected, "one char per chunk");
        }
    }
}
