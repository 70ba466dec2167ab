//! [`StdioTransport`]: the transport of a stdio server's connection. Writing is rmcp's own
//! ([`AsyncRwTransport`]: one JSON line per message). Reading takes one shortcut: rmcp
//! parses every incoming line through two untagged enums (the JSON-RPC message, then the
//! ~20 variants of `ServerResult` tried in turn, each failure formatting an error message),
//! ~42,000 instructions for an `echo` answer, more than the rest of a call together
//! (`docs/performance.md`). An answer to a pending `tools/call` whose result carries only
//! `CallToolResult`'s fields (with `content`) is parsed straight into a `CallToolResult`
//! instead, which is what rmcp's parse yields for it. Every other line (requests,
//! notifications, errors, other results, anything unusual) goes through rmcp's reader
//! unchanged — its framing, compatibility and error handling — from the same buffer, so
//! messages keep their order.

use std::collections::HashSet;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use rmcp::model as rm;
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How much is read from the server at once.
const CHUNK: usize = 64 * 1024;
/// The most pending `tools/call` ids remembered (ids of calls whose answer never came are
/// forgotten past this; their answers then take rmcp's path, which is only slower).
const MAX_PENDING: usize = 4096;
/// The fields of a `CallToolResult`; a result with any other field takes rmcp's path.
const CALL_RESULT_FIELDS: [&str; 5] = [
    "content",
    "structuredContent",
    "isError",
    "_meta",
    "resultType",
];

/// A stdio server's connection: rmcp's writer, and a reader with a shortcut for tool results.
pub(super) struct StdioTransport<R: AsyncRead + Unpin, W: AsyncWrite> {
    rmcp: AsyncRwTransport<RoleClient, LineReader<R>, W>,
    reader: Arc<Mutex<Lines<R>>>,
    /// Ids of the `tools/call` requests sent and not yet answered.
    calls: HashSet<rm::RequestId>,
    /// rmcp's reader is partway through a line (its `receive` was dropped by the service
    /// loop's `select!`): it goes on with it before anything else is read.
    in_rmcp: bool,
}

impl<R, W> StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Reads the server's messages from `read` (lines of at most `max_line` bytes for rmcp's
    /// path) and writes ours to `write`.
    pub(super) fn new(read: R, write: W, max_line: usize) -> Self {
        let reader = Arc::new(Mutex::new(Lines::new(read)));
        let rmcp = AsyncRwTransport::new_client(LineReader(Arc::clone(&reader)), write)
            .with_max_line_length(max_line);
        Self {
            rmcp,
            reader,
            calls: HashSet::new(),
            in_rmcp: false,
        }
    }

    /// The next line, parsed by the shortcut when it applies (and then consumed).
    fn poll_shortcut(&mut self, cx: &mut Context<'_>) -> Poll<Option<rm::ServerJsonRpcMessage>> {
        let mut lines = lock(&self.reader);
        let Ok(Some(end)) = std::task::ready!(lines.poll_line(cx)) else {
            return Poll::Ready(None); // the end or an error: rmcp's reader reports it
        };
        let answer = shortcut(&lines.buf[lines.start..end], &mut self.calls);
        if answer.is_some() {
            lines.consume(end);
        }
        Poll::Ready(answer)
    }
}

impl<R, W> Transport<RoleClient> for StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: rm::ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        if let rm::JsonRpcMessage::Request(request) = &item
            && matches!(request.request, rm::ClientRequest::CallToolRequest(_))
        {
            if self.calls.len() >= MAX_PENDING {
                self.calls.clear();
            }
            self.calls.insert(request.id.clone());
        }
        self.rmcp.send(item)
    }

    async fn receive(&mut self) -> Option<rm::ServerJsonRpcMessage> {
        if !self.in_rmcp {
            if let Some(answer) = std::future::poll_fn(|cx| self.poll_shortcut(cx)).await {
                return Some(answer);
            }
            self.in_rmcp = true;
        }
        let message = self.rmcp.receive().await;
        self.in_rmcp = false;
        let answered = match &message {
            Some(rm::JsonRpcMessage::Response(response)) => Some(&response.id),
            Some(rm::JsonRpcMessage::Error(error)) => error.id.as_ref(),
            _ => None,
        };
        if let Some(id) = answered {
            self.calls.remove(id);
        }
        message
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.rmcp.close().await
    }
}

/// A JSON-RPC answer with a result and nothing else (rmcp's "response" shape: no `method`,
/// no `error`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    #[serde(rename = "jsonrpc")]
    _jsonrpc: rm::JsonRpcVersion2_0, // "2.0", checked by its type
    id: rm::RequestId,
    result: Map<String, Value>,
}

/// `line` as the answer to a pending `tools/call`, when it is one whose result has only
/// `CallToolResult`'s fields, `content` among them; `None` leaves the line to rmcp.
///
/// rmcp's parse tries `ServerResult`'s variants in order and takes the first that accepts
/// the result. The ones before `CallToolResult` each need a field such a result does not
/// have (`tools`, `messages`, `action`, `task`, …), except `SubscriptionsListenResult`
/// (`resultType` and a `_meta`), so a result with both of those is left to rmcp too
/// (`stdio_tests` checks the two parses agree).
fn shortcut(line: &[u8], calls: &mut HashSet<rm::RequestId>) -> Option<rm::ServerJsonRpcMessage> {
    if calls.is_empty() {
        return None;
    }
    let answer: Answer = serde_json::from_slice(line).ok()?;
    let result = &answer.result;
    let only_call_fields = result.contains_key("content")
        && !(result.contains_key("_meta") && result.contains_key("resultType"))
        && result
            .keys()
            .all(|k| CALL_RESULT_FIELDS.contains(&k.as_str()));
    if !only_call_fields || !calls.contains(&answer.id) {
        return None;
    }
    let result = rm::CallToolResult::deserialize(Value::Object(answer.result)).ok()?;
    calls.remove(&answer.id);
    Some(rm::ServerJsonRpcMessage::response(
        rm::ServerResult::CallToolResult(result),
        answer.id,
    ))
}

fn lock<R>(reader: &Mutex<Lines<R>>) -> MutexGuard<'_, Lines<R>> {
    reader.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The server's output, buffered up to the end of the next line.
struct Lines<R> {
    inner: R,
    /// Bytes read; `buf[start..]` are not consumed yet.
    buf: Vec<u8>,
    start: usize,
    /// `buf[start..scanned]` has no newline.
    scanned: usize,
    /// The stream ended or failed (the error, kept for rmcp's reader).
    done: Option<Option<io::ErrorKind>>,
    /// The buffer reads go into.
    scratch: Vec<u8>,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    fn new(inner: R) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            done: None,
            scratch: vec![0; CHUNK],
        }
    }

    /// Reads until `buf[start..]` holds a whole line; its end (past the newline), or `None`
    /// at the end of the stream (or an error) with no whole line left.
    fn poll_line(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<usize>>> {
        loop {
            let unscanned = &self.buf[self.scanned..];
            if let Some(at) = unscanned.iter().position(|b| *b == b'\n') {
                self.scanned += at;
                return Poll::Ready(Ok(Some(self.scanned + 1)));
            }
            self.scanned = self.buf.len();
            match self.done {
                Some(None) => return Poll::Ready(Ok(None)),
                Some(Some(kind)) => return Poll::Ready(Err(kind.into())),
                None => {}
            }
            if self.start > 0 {
                // Drop what was consumed before reading more (the rest of one line at most).
                self.buf.drain(..self.start);
                self.scanned -= self.start;
                self.start = 0;
            }
            let mut read = ReadBuf::new(&mut self.scratch);
            match std::task::ready!(Pin::new(&mut self.inner).poll_read(cx, &mut read)) {
                Ok(()) if read.filled().is_empty() => self.done = Some(None),
                Ok(()) => self.buf.extend_from_slice(read.filled()),
                Err(e) => self.done = Some(Some(e.kind())),
            }
        }
    }

    /// Marks `buf[..end]` consumed.
    fn consume(&mut self, end: usize) {
        self.start = end;
        self.scanned = self.scanned.max(end);
        if self.start == self.buf.len() {
            self.buf.clear();
            (self.start, self.scanned) = (0, 0);
        }
    }
}

/// rmcp's side of [`Lines`]: hands out at most the rest of one line per read, so rmcp's
/// own buffer never holds bytes past the line it is parsing.
pub(super) struct LineReader<R>(Arc<Mutex<Lines<R>>>);

impl<R: AsyncRead + Unpin> AsyncRead for LineReader<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut lines = lock(&self.0);
        let end = match std::task::ready!(lines.poll_line(cx)) {
            Ok(Some(end)) => end,
            Ok(None) => lines.buf.len(), // a last line without newline, or nothing: the end
            Err(e) if lines.start == lines.buf.len() => return Poll::Ready(Err(e)),
            Err(_) => lines.buf.len(),
        };
        let n = (end - lines.start).min(buf.remaining());
        let start = lines.start;
        buf.put_slice(&lines.buf[start..start + n]);
        lines.consume(start + n);
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
#[path = "stdio_tests.rs"]
mod tests;
