//! Response framing: turns a body's byte chunks (split anywhere, even inside a UTF-8
//! character) into frames — Server-Sent Events or newline-delimited JSON — and feeds them to a
//! wire format's [`StreamParser`], yielding normalized events.

use bytes::Bytes;
use eventsource_stream::Eventsource;
use futures::{Stream, StreamExt, stream};

use super::{ProviderError, ProviderEvent};

/// How a response body is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// `text/event-stream`.
    Sse,
    /// One JSON document per line.
    Ndjson,
}

/// One frame: an SSE event (its `event:` name, empty when absent, and its data) or one NDJSON
/// line (`event` empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The SSE event name; empty for NDJSON and unnamed events.
    pub event: &'a str,
    /// The data (SSE) or the line (NDJSON).
    pub data: &'a str,
}

/// A wire format's incremental decoder for one response.
pub trait StreamParser: Send {
    /// Decodes one frame, pushing any events it completes onto `out`.
    fn frame(
        &mut self,
        frame: Frame<'_>,
        out: &mut Vec<ProviderEvent>,
    ) -> Result<(), ProviderError>;
    /// The body ended: push what is still pending (e.g. tool calls not yet closed), or say the
    /// stream ended too early.
    fn finish(&mut self, out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError>;
}

/// Decodes `body` with `framing` and `parser` into a stream of events. A transport error ends
/// the stream with that error after every event decoded so far.
pub fn decode<S, E>(
    body: S,
    framing: Framing,
    parser: Box<dyn StreamParser>,
) -> impl Stream<Item = Result<ProviderEvent, ProviderError>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send + Unpin + 'static,
    E: Into<ProviderError> + std::fmt::Display + Send + 'static,
{
    let frames: FrameStream = match framing {
        Framing::Sse => Box::pin(sse_frames(body)),
        Framing::Ndjson => Box::pin(ndjson_frames(body)),
    };
    run_parser(frames, parser)
}

/// Owned frames: (event name, data).
type FrameStream =
    std::pin::Pin<Box<dyn Stream<Item = Result<(String, String), ProviderError>> + Send>>;

fn transport_error(e: impl Into<ProviderError>) -> ProviderError {
    e.into()
}

fn sse_frames<S, E>(body: S) -> impl Stream<Item = Result<(String, String), ProviderError>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send + Unpin + 'static,
    E: Into<ProviderError> + std::fmt::Display + Send + 'static,
{
    body.eventsource().map(|item| match item {
        Ok(ev) => Ok((ev.event, ev.data)),
        Err(eventsource_stream::EventStreamError::Transport(e)) => Err(transport_error(e)),
        Err(e) => Err(ProviderError::MalformedStream(e.to_string())),
    })
}

fn ndjson_frames<S, E>(
    body: S,
) -> impl Stream<Item = Result<(String, String), ProviderError>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send + Unpin + 'static,
    E: Into<ProviderError> + std::fmt::Display + Send + 'static,
{
    let state = (
        body,
        Vec::<u8>::new(),
        std::collections::VecDeque::<Result<String, ProviderError>>::new(),
        false,
    );
    stream::unfold(
        state,
        |(mut body, mut buf, mut ready, mut done)| async move {
            loop {
                if let Some(line) = ready.pop_front() {
                    let frame = line.map(|line| (String::new(), line));
                    return Some((frame, (body, buf, ready, done)));
                }
                if done {
                    return None;
                }
                match body.next().await {
                    Some(Ok(chunk)) => {
                        buf.extend_from_slice(&chunk);
                        done = take_lines(&mut buf, &mut ready);
                    }
                    Some(Err(e)) => {
                        done = true;
                        return Some((Err(transport_error(e)), (body, buf, ready, done)));
                    }
                    None => {
                        done = true;
                        let rest = std::mem::take(&mut buf);
                        ready.extend(utf8_line(&rest).transpose());
                    }
                }
            }
        },
    )
}

/// Moves every complete line of `buf` into `ready`, keeping the unfinished tail; a line that
/// is not UTF-8 goes in as an error after the lines before it, and ends the body (true).
fn take_lines(
    buf: &mut Vec<u8>,
    ready: &mut std::collections::VecDeque<Result<String, ProviderError>>,
) -> bool {
    let mut start = 0;
    while let Some(pos) = buf[start..].iter().position(|b| *b == b'\n') {
        let line = utf8_line(&buf[start..start + pos]);
        let failed = line.is_err();
        ready.extend(line.transpose());
        if failed {
            return true;
        }
        start += pos + 1;
    }
    buf.drain(..start);
    false
}

/// A non-blank line as text, without its `\r`.
fn utf8_line(bytes: &[u8]) -> Result<Option<String>, ProviderError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| ProviderError::MalformedStream(format!("a line is not UTF-8: {e}")))?;
    let text = text.trim_end_matches('\r');
    Ok((!text.trim().is_empty()).then(|| text.to_owned()))
}

/// Feeds frames to the parser, yielding its events in order; a frame or transport error ends
/// the stream after the events already decoded.
fn run_parser(
    frames: FrameStream,
    parser: Box<dyn StreamParser>,
) -> impl Stream<Item = Result<ProviderEvent, ProviderError>> + Send {
    let state = (frames, parser, std::collections::VecDeque::new(), false);
    stream::unfold(
        state,
        |(mut frames, mut parser, mut queue, mut done)| async move {
            loop {
                if let Some(item) = queue.pop_front() {
                    return Some((item, (frames, parser, queue, done)));
                }
                if done {
                    return None;
                }
                let mut out = Vec::new();
                let result = match frames.next().await {
                    Some(Ok((event, data))) => parser.frame(
                        Frame {
                            event: &event,
                            data: &data,
                        },
                        &mut out,
                    ),
                    Some(Err(e)) => {
                        done = true;
                        Err(e)
                    }
                    None => {
                        done = true;
                        parser.finish(&mut out)
                    }
                };
                queue.extend(out.into_iter().map(Ok));
                if let Err(e) = result {
                    done = true;
                    queue.push_back(Err(e));
                }
            }
        },
    )
}

/// Runs a whole in-memory body through framing and parser: for tests, fuzzing and benchmarks.
pub async fn decode_all(
    chunks: Vec<Vec<u8>>,
    framing: Framing,
    parser: Box<dyn StreamParser>,
) -> Vec<Result<ProviderEvent, ProviderError>> {
    let body = stream::iter(
        chunks
            .into_iter()
            .map(|c| Ok::<_, ProviderError>(Bytes::from(c))),
    );
    decode(body, framing, parser).collect().await
}

/// Splits `body` into two chunks at every byte offset and checks each split decodes to the
/// same events as the whole body; returns those events. For tests.
pub async fn decode_at_every_split(
    body: &[u8],
    framing: Framing,
    parser: impl Fn() -> Box<dyn StreamParser>,
) -> Result<Vec<Result<ProviderEvent, ProviderError>>, String> {
    let whole = decode_all(vec![body.to_vec()], framing, parser()).await;
    for at in 1..body.len() {
        let split = vec![body[..at].to_vec(), body[at..].to_vec()];
        let got = decode_all(split, framing, parser()).await;
        if got != whole {
            return Err(format!(
                "split at byte {at} decoded differently:\n{got:?}\nvs\n{whole:?}"
            ));
        }
    }
    let bytewise = body.iter().map(|b| vec![*b]).collect();
    if decode_all(bytewise, framing, parser()).await != whole {
        return Err("byte-by-byte chunks decoded differently".into());
    }
    Ok(whole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::openai;

    /// Found by the `framing` fuzz target: a bad line must not swallow the lines before it.
    #[tokio::test]
    async fn a_non_utf8_line_fails_after_the_lines_before_it_however_the_body_is_split() {
        let body = b"{\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\xff\n";
        let events =
            decode_at_every_split(
                body,
                Framing::Ndjson,
                || Box::new(openai::Parser::default()),
            )
            .await
            .unwrap();
        assert_eq!(events[0], Ok(ProviderEvent::text("Hi")));
        assert!(
            matches!(events[1], Err(ProviderError::MalformedStream(_))),
            "{events:?}"
        );
    }
}
