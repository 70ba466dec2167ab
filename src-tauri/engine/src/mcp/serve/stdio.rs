//! The process's own stdin and stdout as the transport of `switchboard mcp serve --stdio`.
//! tokio's `stdin()` and `stdout()` hand every read and write to a blocking thread, two thread
//! hand-offs a message each way; when they are pipes (as an app that starts its servers makes
//! them), they are read and written through the runtime's reactor instead. Anything else (a
//! terminal, a file) keeps tokio's.

use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

/// The stdin half.
pub(super) type Input = Pin<Box<dyn AsyncRead + Send>>;
/// The stdout half.
pub(super) type Output = Pin<Box<dyn AsyncWrite + Send>>;

/// stdin and stdout, as pipes on the reactor where they are pipes.
pub(super) fn transport() -> (Input, Output) {
    (input(), output())
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
