//! [`Lines`]: a stream of JSON-RPC lines read ahead of rmcp, so a transport can take the
//! lines it parses faster itself and leave every other line to rmcp's reader
//! ([`LineReader`]) from the same buffer, in order. Used by a stdio server's connection
//! (`stdio`: tool results) and by `switchboard mcp serve --stdio` (`serve::stdio`: tool
//! calls). A line longer than the limit is handed to rmcp in pieces without being buffered
//! whole, so rmcp's own cap drops it as before.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// How much is read at once.
const CHUNK: usize = 64 * 1024;

/// The stream, buffered up to the end of the next line.
pub(crate) struct Lines<R> {
    inner: R,
    /// Bytes read; `buf[start..]` are not consumed yet.
    buf: Vec<u8>,
    start: usize,
    /// `buf[start..scanned]` has no newline.
    scanned: usize,
    /// The most bytes of one line buffered before it is handed on in pieces.
    limit: usize,
    /// The stream ended or failed (the error, kept for rmcp's reader).
    done: Option<Option<io::ErrorKind>>,
    /// The buffer reads go into.
    scratch: Vec<u8>,
}

/// A [`Lines`] shared by a transport and rmcp's reader.
pub(crate) type SharedLines<R> = Arc<Mutex<Lines<R>>>;

impl<R: AsyncRead + Unpin> Lines<R> {
    /// Lines of `inner`, at most `limit` bytes of one buffered.
    pub(crate) fn shared(inner: R, limit: usize) -> SharedLines<R> {
        Arc::new(Mutex::new(Self {
            inner,
            buf: Vec::new(),
            start: 0,
            scanned: 0,
            limit: limit.max(1),
            done: None,
            scratch: vec![0; CHUNK],
        }))
    }

    /// Reads until `buf[start..]` holds a whole line, or `limit` bytes of one; its end (past
    /// the newline, if any), or `None` at the end of the stream (or an error) with nothing
    /// left.
    fn poll_line(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<usize>>> {
        loop {
            let unscanned = &self.buf[self.scanned..];
            if let Some(at) = unscanned.iter().position(|b| *b == b'\n') {
                self.scanned += at;
                return Poll::Ready(Ok(Some(self.scanned + 1)));
            }
            self.scanned = self.buf.len();
            if self.buf.len() - self.start >= self.limit {
                return Poll::Ready(Ok(Some(self.buf.len())));
            }
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

    /// The next whole line (with its newline) and its end, for a transport's own parse; `None`
    /// at the end of the stream, on an error (rmcp's reader reports either), or when the next
    /// line is longer than the limit (rmcp's reader drops it).
    pub(crate) fn poll_whole_line(&mut self, cx: &mut Context<'_>) -> Poll<Option<(&[u8], usize)>> {
        let Ok(Some(end)) = std::task::ready!(self.poll_line(cx)) else {
            return Poll::Ready(None);
        };
        if self.buf[end - 1] != b'\n' || end - self.start > self.limit {
            return Poll::Ready(None);
        }
        Poll::Ready(Some((&self.buf[self.start..end], end)))
    }

    /// Marks `buf[..end]` consumed.
    pub(crate) fn consume(&mut self, end: usize) {
        self.start = end;
        self.scanned = self.scanned.max(end);
        if self.start == self.buf.len() {
            self.buf.clear();
            (self.start, self.scanned) = (0, 0);
        }
    }
}

/// Locks shared lines (a poisoned lock is still usable: the buffer is consistent between
/// calls).
pub(crate) fn lock<R>(lines: &Mutex<Lines<R>>) -> MutexGuard<'_, Lines<R>> {
    lines.lock().unwrap_or_else(PoisonError::into_inner)
}

/// rmcp's side of [`Lines`]: hands out at most the rest of one line per read, so rmcp's
/// own buffer never holds bytes past the line it is parsing.
pub(crate) struct LineReader<R>(pub(crate) SharedLines<R>);

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
