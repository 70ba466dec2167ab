//! The process's own stdin and stdout as the transport of `switchboard mcp serve --stdio`.
//! tokio's `stdin()` and `stdout()` hand every read and write to a blocking thread, two thread
//! hand-offs a message each way; when they are pipes (as an app that starts its servers makes
//! them), they are read and written through the runtime's reactor instead. Anything else (a
//! terminal, a file) keeps tokio's.
//!
//! Reading takes one shortcut ([`ServeTransport`]): rmcp parses every incoming line through
//! untagged enums (the JSON-RPC message, then the ~20 variants of `ClientRequest` tried in
//! turn, `tools/call` the 14th, each failure formatting an error message). A `tools/call`
//! that carries only a name and arguments is parsed straight into its request, which is
//! what rmcp's parse yields for it (`stdio_tests` compares the two). Every other line goes
//! through rmcp's reader unchanged, from the same buffer, so messages keep their order.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use rmcp::model as rm;
use rmcp::service::RoleServer;
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH};
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::mcp::client::lines::{LineReader, Lines, SharedLines, lock};

/// The stdin half.
pub(super) type Input = Pin<Box<dyn AsyncRead + Send>>;
/// The stdout half.
pub(super) type Output = Pin<Box<dyn AsyncWrite + Send>>;

/// stdin and stdout, as pipes on the reactor where they are pipes.
pub(super) fn transport() -> ServeTransport<Input, Output> {
    ServeTransport::new(input(), output(), DEFAULT_MAX_LINE_LENGTH)
}

/// The served app's stream: rmcp's writer, and a reader with a shortcut for tool calls.
pub(super) struct ServeTransport<R: AsyncRead + Unpin, W: AsyncWrite> {
    rmcp: AsyncRwTransport<RoleServer, LineReader<R>, W>,
    reader: SharedLines<R>,
    /// rmcp's reader is partway through a line (its `receive` was dropped by the service
    /// loop's `select!`): it goes on with it before anything else is read.
    in_rmcp: bool,
}

impl<R, W> ServeTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Reads the app's messages from `read` (lines of at most `max_line` bytes) and writes
    /// ours to `write`.
    pub(super) fn new(read: R, write: W, max_line: usize) -> Self {
        let reader = Lines::shared(read, max_line);
        let rmcp = AsyncRwTransport::new_server(LineReader(reader.clone()), write)
            .with_max_line_length(max_line);
        Self {
            rmcp,
            reader,
            in_rmcp: false,
        }
    }

    /// The next line, parsed by the shortcut when it applies (and then consumed).
    fn poll_shortcut(&mut self, cx: &mut Context<'_>) -> Poll<Option<rm::ClientJsonRpcMessage>> {
        let mut lines = lock(&self.reader);
        // The end, an error or an over-long line: rmcp's reader has it.
        let Some((line, end)) = std::task::ready!(lines.poll_whole_line(cx)) else {
            return Poll::Ready(None);
        };
        let call = shortcut(line);
        if call.is_some() {
            lines.consume(end);
        }
        Poll::Ready(call)
    }
}

impl<R, W> Transport<RoleServer> for ServeTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: rm::ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        self.rmcp.send(item)
    }

    async fn receive(&mut self) -> Option<rm::ClientJsonRpcMessage> {
        if !self.in_rmcp {
            if let Some(call) = std::future::poll_fn(|cx| self.poll_shortcut(cx)).await {
                return Some(call);
            }
            self.in_rmcp = true;
        }
        let message = self.rmcp.receive().await;
        self.in_rmcp = false;
        message
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.rmcp.close().await
    }
}

/// A `tools/call` request with nothing but its name and arguments (no `_meta`, no relayed
/// answers, no task): what most calls are.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainCall {
    #[serde(rename = "jsonrpc")]
    _jsonrpc: rm::JsonRpcVersion2_0, // "2.0", checked by its type
    id: rm::RequestId,
    #[serde(rename = "method")]
    _method: rm::CallToolRequestMethod, // "tools/call", checked by its type
    params: PlainParams,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainParams {
    name: String,
    arguments: Option<rm::JsonObject>,
}

/// `line` as a plain `tools/call` request ([`PlainCall`]); `None` leaves the line to rmcp.
fn shortcut(line: &[u8]) -> Option<rm::ClientJsonRpcMessage> {
    let call: PlainCall = serde_json::from_slice(line).ok()?;
    let mut params = rm::CallToolRequestParams::new(call.params.name);
    params.arguments = call.params.arguments;
    Some(rm::ClientJsonRpcMessage::request(
        rm::ClientRequest::CallToolRequest(rm::Request::new(params)),
        call.id,
    ))
}

#[cfg(unix)]
fn input() -> Input {
    use std::os::fd::AsFd;
    let pipe = (std::io::stdin().as_fd().try_clone_to_owned())
        .and_then(tokio::net::unix::pipe::Receiver::from_owned_fd);
    match pipe {
        Ok(pipe) => Box::pin(pipe),
        Err(_) => Box::pin(tokio::io::stdin()),
    }
}

#[cfg(unix)]
fn output() -> Output {
    use std::os::fd::AsFd;
    let pipe = (std::io::stdout().as_fd().try_clone_to_owned())
        .and_then(tokio::net::unix::pipe::Sender::from_owned_fd);
    match pipe {
        Ok(pipe) => Box::pin(pipe),
        Err(_) => Box::pin(tokio::io::stdout()),
    }
}

#[cfg(not(unix))]
fn input() -> Input {
    Box::pin(tokio::io::stdin())
}

#[cfg(not(unix))]
fn output() -> Output {
    Box::pin(tokio::io::stdout())
}

#[cfg(test)]
#[path = "stdio_tests.rs"]
mod tests;
