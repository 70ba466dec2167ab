//! [`CappedLines`]: a reader between a stdio server's stdout and rmcp's line framing that caps
//! the size of one message. rmcp drops an over-long line silently, so the request it answered
//! waited for its timeout. Here the line is dropped too, but replaced by a JSON-RPC error
//! answering the same request id, so the call fails at once with a clear reason. The id is
//! looked for where serializers put the top-level one: before `result`/`error` at the line's
//! start (Python SDK), or last before the closing brace (TypeScript SDK); a line whose id
//! cannot be found that way is only dropped (and logged).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, ReadBuf};

/// How many bytes of a line's start and end are kept to find its id.
const EDGE: usize = 512;
/// How much is read from the server at once.
const CHUNK: usize = 64 * 1024;
/// The JSON-RPC "internal error" code of the replacement answer.
const TOO_LARGE_CODE: i32 = -32603;

/// A reader passing lines of at most `cap` bytes through and replacing longer ones.
pub(super) struct CappedLines<R> {
    inner: R,
    cap: usize,
    /// Bytes of the current line passed on so far.
    len: usize,
    /// The current line's first [`EDGE`] bytes.
    head: Vec<u8>,
    /// The last [`EDGE`] bytes of the line being dropped.
    tail: Vec<u8>,
    /// The current line is over the cap and being dropped.
    dropping: bool,
    /// Bytes ready to hand out (passed-through lines, replacement answers).
    out: Vec<u8>,
    /// How much of `out` was handed out.
    taken: usize,
    /// The buffer reads from `inner` go into.
    scratch: Vec<u8>,
}

impl<R> CappedLines<R> {
    /// Wraps `inner`, letting through lines of at most `cap` bytes (newline included).
    pub(super) fn new(inner: R, cap: usize) -> Self {
        Self {
            inner,
            cap,
            len: 0,
            head: Vec::new(),
            tail: Vec::new(),
            dropping: false,
            out: Vec::new(),
            taken: 0,
            scratch: vec![0; CHUNK],
        }
    }

    /// Sorts freshly read bytes into `out` (kept) or the dropped line's edges.
    fn take_in(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let end = bytes.iter().position(|b| *b == b'\n').map(|i| i + 1);
            let (piece, rest) = bytes.split_at(end.unwrap_or(bytes.len()));
            bytes = rest;
            self.piece(piece, end.is_some());
        }
    }

    /// Handles one piece of a line (`ends`: it includes the line's newline).
    fn piece(&mut self, piece: &[u8], ends: bool) {
        if !self.dropping {
            let room = EDGE.saturating_sub(self.head.len()).min(piece.len());
            self.head.extend_from_slice(&piece[..room]);
            if self.len + piece.len() <= self.cap {
                self.out.extend_from_slice(piece);
                self.len += piece.len();
                if ends {
                    self.next_line();
                }
                return;
            }
            self.dropping = true;
            if self.len > 0 {
                // End what was passed on: an unparsable fragment, which rmcp skips.
                self.out.push(b'\n');
            }
        }
        self.keep_tail(piece);
        if ends {
            self.replace_dropped();
        }
    }

    /// Keeps the last [`EDGE`] bytes of the dropped line (without its newline).
    fn keep_tail(&mut self, piece: &[u8]) {
        let piece = piece.strip_suffix(b"\n").unwrap_or(piece);
        let piece = &piece[piece.len().saturating_sub(EDGE)..];
        self.tail.extend_from_slice(piece);
        let excess = self.tail.len().saturating_sub(EDGE);
        self.tail.drain(..excess);
    }

    /// The dropped line ended: answer its request with an error, if its id is known.
    fn replace_dropped(&mut self) {
        match request_id(&self.head, &self.tail) {
            Some(id) => {
                tracing::warn!(%id, cap = self.cap, "an MCP server's answer was too large; dropped");
                self.out
                    .extend_from_slice(too_large(&id, self.cap).as_bytes());
            }
            None => tracing::warn!(
                cap = self.cap,
                "an MCP server's message was too large; dropped"
            ),
        }
        self.next_line();
    }

    fn next_line(&mut self) {
        self.len = 0;
        self.dropping = false;
        self.head.clear();
        self.tail.clear();
    }

    /// Moves pending output into `buf`; `true` if there was any.
    fn hand_out(&mut self, buf: &mut ReadBuf<'_>) -> bool {
        let pending = &self.out[self.taken..];
        if pending.is_empty() {
            return false;
        }
        let n = pending.len().min(buf.remaining());
        buf.put_slice(&pending[..n]);
        self.taken += n;
        if self.taken == self.out.len() {
            self.out.clear();
            self.taken = 0;
        }
        true
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for CappedLines<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.hand_out(buf) {
                return Poll::Ready(Ok(()));
            }
            let mut scratch = std::mem::take(&mut this.scratch);
            let mut read = ReadBuf::new(&mut scratch);
            let polled = Pin::new(&mut this.inner).poll_read(cx, &mut read);
            let filled = read.filled().len();
            if let Poll::Ready(Ok(())) = polled {
                this.take_in(&scratch[..filled]);
            }
            this.scratch = scratch;
            ready!(polled)?;
            if filled == 0 {
                return Poll::Ready(Ok(())); // end of file
            }
        }
    }
}

/// The JSON error line answering request `id` in place of a message over `cap` bytes.
fn too_large(id: &str, cap: usize) -> String {
    let message = format!(
        "the server's answer was larger than {} MiB (the limit) and was dropped",
        cap / (1024 * 1024)
    );
    let error = serde_json::json!({"code": TOO_LARGE_CODE, "message": message});
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{error}}}\n")
}

/// The top-level id of a JSON-RPC answer from its first and last bytes, as raw JSON.
fn request_id(head: &[u8], tail: &[u8]) -> Option<String> {
    leading_id(head).or_else(|| trailing_id(tail))
}

/// `{"jsonrpc":"2.0","id":7,"result":…`: an id before `result` / `error` is top-level.
fn leading_id(head: &[u8]) -> Option<String> {
    let at = find(head, b"\"id\"")?;
    let body = [b"\"result\"".as_slice(), b"\"error\""]
        .iter()
        .filter_map(|key| find(head, key))
        .min();
    if body.is_some_and(|body| body < at) {
        return None;
    }
    id_value(&head[at + 4..]).map(|(id, _)| id)
}

/// `…,"jsonrpc":"2.0","id":7}`: the last id, followed only by the closing brace.
fn trailing_id(tail: &[u8]) -> Option<String> {
    let at = rfind(tail, b"\"id\"")?;
    let (id, rest) = id_value(&tail[at + 4..])?;
    (rest.trim_ascii() == b"}").then_some(id)
}

/// Parses `: <number or string>` and returns the value's JSON text and what follows.
fn id_value(after_key: &[u8]) -> Option<(String, &[u8])> {
    let rest = after_key
        .trim_ascii_start()
        .strip_prefix(b":")?
        .trim_ascii_start();
    let len = match rest.first()? {
        b'"' => rest[1..].iter().position(|b| *b == b'"')? + 2,
        b'-' | b'0'..=b'9' => (rest.iter())
            .position(|b| !(b.is_ascii_digit() || *b == b'-'))
            .unwrap_or(rest.len()),
        _ => return None,
    };
    let (value, rest) = rest.split_at(len);
    let value = std::str::from_utf8(value).ok()?;
    serde_json::from_str::<serde_json::Value>(value).ok()?;
    Some((value.to_owned(), rest))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use tokio::io::AsyncReadExt;

    use super::*;

    /// A reader yielding its chunks one read at a time.
    struct Chunks(VecDeque<Vec<u8>>);

    impl AsyncRead for Chunks {
        fn poll_read(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let this = self.get_mut();
            if let Some(mut chunk) = this.0.pop_front() {
                let n = chunk.len().min(buf.remaining());
                buf.put_slice(&chunk[..n]);
                if n < chunk.len() {
                    this.0.push_front(chunk.split_off(n));
                }
            }
            Poll::Ready(Ok(()))
        }
    }

    /// Everything `input` turns into under `cap`, read in chunks of `split` bytes.
    async fn through(input: &str, cap: usize, split: usize) -> String {
        let chunks = input.as_bytes().chunks(split).map(<[u8]>::to_vec);
        let mut capped = CappedLines::new(Chunks(chunks.collect()), cap);
        let mut out = String::new();
        capped.read_to_string(&mut out).await.unwrap();
        out
    }

    /// Splits `out` at `expected_end`, checks that what precedes it is nothing or a fragment
    /// of `line` (at most `cap` bytes) ended by a newline, and that `expected_end` ends `out`.
    fn assert_fragment_then(out: &str, line: &str, cap: usize, expected_end: &str) {
        let at = out
            .len()
            .checked_sub(expected_end.len())
            .expect("long enough");
        let (fragment, end) = out.split_at(at);
        assert_eq!(end, expected_end);
        let cut = fragment.strip_suffix('\n').unwrap_or(fragment);
        assert!(
            fragment.is_empty() || (line.starts_with(cut) && cut.len() <= cap && !cut.is_empty()),
            "{fragment:?}"
        );
    }

    #[tokio::test]
    async fn lines_within_the_cap_pass_through_unchanged_however_they_are_split() {
        let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nbanner\n\n{\"a\":2}";
        for split in [1, 2, 7, 100] {
            assert_eq!(through(input, 64, split).await, input);
        }
    }

    #[tokio::test]
    async fn an_over_long_answer_with_a_leading_id_becomes_an_error_for_that_id() {
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"text\":\"{}\"}}}}",
            "x".repeat(5000)
        );
        let input = format!("{line}\n{{\"next\":1}}\n");
        let end = format!("{}{{\"next\":1}}\n", too_large("7", 100));
        for split in [3, 1000, 10_000] {
            assert_fragment_then(&through(&input, 100, split).await, &line, 100, &end);
        }
    }

    #[tokio::test]
    async fn an_over_long_answer_with_a_trailing_id_as_typescript_writes_it_is_answered_too() {
        let line = format!(
            "{{\"result\":{{\"content\":[{{\"id\":99,\"text\":\"{}\"}}]}},\"jsonrpc\":\"2.0\",\"id\":\"req-3\"}}",
            "y".repeat(5000)
        );
        let out = through(&format!("{line}\n"), 100, 64).await;
        assert_fragment_then(&out, &line, 100, &too_large("\"req-3\"", 100));
    }

    #[tokio::test]
    async fn an_over_long_line_without_a_findable_id_is_only_dropped() {
        let line = format!(
            "{{\"method\":\"notifications/message\",\"params\":\"{}\"}}",
            "z".repeat(500)
        );
        let out = through(&format!("{line}\nok\n"), 100, 7).await;
        assert_fragment_then(&out, &line, 100, "ok\n");
    }

    #[test]
    fn a_nested_id_inside_the_result_is_not_taken_for_the_request_id() {
        assert_eq!(leading_id(br#"{"result":{"id":5,"text":"xxxx"#), None);
        let tail = br#"xxx","id":5}],"jsonrpc":"2.0","id":12}"#;
        assert_eq!(trailing_id(tail), Some("12".to_owned()));
        assert_eq!(trailing_id(br#"xx","id":5}]}"#), None);
    }

    #[test]
    fn the_replacement_answer_is_a_json_rpc_error_naming_the_limit() {
        let answer: serde_json::Value = serde_json::from_str(&too_large("7", 64 << 20)).unwrap();
        assert_eq!(
            answer,
            serde_json::json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32603,
                "message": "the server's answer was larger than 64 MiB (the limit) and was dropped"}})
        );
    }
}
