//! Turning sampled tokens into streamed text: token bytes joined into whole UTF-8 characters
//! ([`Utf8Pieces`]), and stop texts cut out with nothing of them streamed first ([`StopText`]).

/// Joins token bytes into text, holding an incomplete UTF-8 sequence until its end arrives.
#[derive(Debug, Default)]
pub(crate) struct Utf8Pieces {
    held: Vec<u8>,
}

impl Utf8Pieces {
    /// The text completed by `bytes`.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> String {
        self.held.extend_from_slice(bytes);
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.held) {
                Ok(s) => {
                    out.push_str(s);
                    self.held.clear();
                    return out;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    out.push_str(&String::from_utf8_lossy(&self.held[..valid]));
                    match e.error_len() {
                        None => {
                            self.held.drain(..valid);
                            return out;
                        }
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            self.held.drain(..valid + bad);
                        }
                    }
                }
            }
        }
    }

    /// What is left at the end (an incomplete sequence, replaced).
    pub(crate) fn finish(&mut self) -> String {
        let rest = String::from_utf8_lossy(&self.held).into_owned();
        self.held.clear();
        rest
    }
}

/// Finds stop texts in streamed text; text that may begin one is held until it is decided.
#[derive(Debug, Default)]
pub(crate) struct StopText {
    stops: Vec<String>,
    held: String,
}

impl StopText {
    /// Watches for `stops` (empty ones are ignored).
    pub(crate) fn new(stops: Vec<String>) -> Self {
        Self {
            stops: stops.into_iter().filter(|s| !s.is_empty()).collect(),
            held: String::new(),
        }
    }

    /// Adds `text`; returns what may be streamed now and whether a stop text appeared (then
    /// what follows it is dropped).
    pub(crate) fn push(&mut self, text: &str) -> (String, bool) {
        self.held.push_str(text);
        let first_stop = self
            .stops
            .iter()
            .filter_map(|s| self.held.find(s.as_str()))
            .min();
        if let Some(at) = first_stop {
            let ready = self.held[..at].to_owned();
            self.held.clear();
            return (ready, true);
        }
        let keep = self.undecided_tail();
        let split = self.held.len() - keep;
        let ready = self.held[..split].to_owned();
        self.held.drain(..split);
        (ready, false)
    }

    /// Everything still held, with `extra` after it.
    pub(crate) fn finish(&mut self, extra: &str) -> String {
        let mut rest = std::mem::take(&mut self.held);
        rest.push_str(extra);
        rest
    }

    /// The length of the longest tail of the held text that begins a stop text.
    fn undecided_tail(&self) -> usize {
        let held = self.held.as_str();
        held.char_indices()
            .map(|(i, _)| i)
            .find(|&i| {
                let tail = &held[i..];
                self.stops.iter().any(|s| s.starts_with(tail))
            })
            .map_or(0, |i| held.len() - i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_across_tokens_comes_out_whole() {
        let mut u = Utf8Pieces::default();
        let bytes = "é".as_bytes();
        assert_eq!(u.push(&bytes[..1]), "");
        assert_eq!(u.push(&bytes[1..]), "é");
        assert_eq!(u.finish(), "");
    }

    #[test]
    fn a_stop_text_split_across_pieces_is_never_streamed() {
        let mut s = StopText::new(vec!["</answer>".into()]);
        assert_eq!(s.push("the end </ans"), ("the end ".to_owned(), false));
        assert_eq!(s.push("wer> more"), (String::new(), true));
    }

    #[test]
    fn held_text_that_is_not_a_stop_is_let_go() {
        let mut s = StopText::new(vec!["STOP".into()]);
        assert_eq!(s.push("ST"), (String::new(), false));
        assert_eq!(s.push("AY"), ("STAY".to_owned(), false));
        assert_eq!(s.finish("!"), "!");
    }
}
