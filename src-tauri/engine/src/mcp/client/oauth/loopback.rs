//! The loopback redirect listener of the OAuth flow: a one-shot HTTP listener on 127.0.0.1
//! (random port) that waits for the browser to come back to `/callback?code=…&state=…`,
//! answers it with a short page, and hands the full callback URL to the flow. Other paths
//! (a browser's `/favicon.ico`) get a 404 and the wait goes on, and so does a callback whose
//! `state` is not the one of the flow (any local process or web page can send one: it must
//! neither complete nor deny the sign-in).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::OAuthError;

/// The path the authorization server redirects to.
pub(crate) const CALLBACK_PATH: &str = "/callback";
/// The longest request head we read.
const MAX_HEAD: usize = 16 * 1024;
/// How long one connection may take to send its request head.
const READ_LIMIT: Duration = Duration::from_secs(10);
/// The page shown for a callback of another (or a forged) sign-in.
const WRONG_STATE_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Switchboard</title>\
<p>This sign-in link does not match the sign-in in progress; it was ignored.</p>";
/// The page shown in the browser after the redirect.
const DONE_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Switchboard</title>\
<p>Switchboard is authorized. You can close this tab.</p>";

/// A bound listener waiting for one authorization redirect.
#[derive(Debug)]
pub struct Loopback {
    listener: TcpListener,
    port: u16,
}

impl Loopback {
    /// Binds 127.0.0.1 on a port the OS picks.
    pub async fn bind() -> Result<Self, OAuthError> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| OAuthError::Listener(e.to_string()))?;
        let port = listener
            .local_addr()
            .map_err(|e| OAuthError::Listener(e.to_string()))?
            .port();
        Ok(Self { listener, port })
    }

    /// The redirect URI to register: `http://127.0.0.1:<port>/callback`.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    /// Waits at most `wait` for the redirect; returns the full callback URL. A redirect that
    /// carries `error=…` instead of a code is [`OAuthError::Denied`].
    pub async fn callback(self, wait: Duration) -> Result<String, OAuthError> {
        self.callback_for(wait, None).await
    }

    /// Like [`Self::callback`], but only a callback carrying `state` (when given) ends the
    /// wait: others are answered with a page saying they were ignored.
    pub async fn callback_for(
        self,
        wait: Duration,
        state: Option<&str>,
    ) -> Result<String, OAuthError> {
        let origin = format!("http://127.0.0.1:{}", self.port);
        let accept = async {
            loop {
                let (stream, _) = self
                    .listener
                    .accept()
                    .await
                    .map_err(|e| OAuthError::Listener(e.to_string()))?;
                if let Some(target) = serve(stream, state).await {
                    return Ok::<_, OAuthError>(target);
                }
            }
        };
        let target = tokio::time::timeout(wait, accept)
            .await
            .map_err(|_| OAuthError::NoCallback(wait))??;
        let url = format!("{origin}{target}");
        match denial(&url) {
            Some(reason) => Err(OAuthError::Denied(reason)),
            None => Ok(url),
        }
    }
}

/// Answers one connection; returns the request target when it is the callback (with the
/// expected `state`, when one is given).
async fn serve(mut stream: TcpStream, state: Option<&str>) -> Option<String> {
    let head = tokio::time::timeout(READ_LIMIT, read_head(&mut stream))
        .await
        .ok()??;
    let target = request_target(&head)?;
    let is_callback = target == CALLBACK_PATH || target.starts_with("/callback?");
    let state_ok = state.is_none_or(|expected| target_state(&target).as_deref() == Some(expected));
    let reply = match (is_callback, state_ok) {
        (true, true) => response("200 OK", DONE_PAGE),
        (true, false) => response("400 Bad Request", WRONG_STATE_PAGE),
        (false, _) => response("404 Not Found", "not found"),
    };
    let _ = stream.write_all(reply.as_bytes()).await;
    let _ = stream.shutdown().await;
    (is_callback && state_ok).then_some(target)
}

/// The `state` query parameter of a request target.
fn target_state(target: &str) -> Option<String> {
    let url = url::Url::parse(&format!("http://127.0.0.1{target}")).ok()?;
    url.query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
}

/// The `state` an authorize URL carries (what the redirect must bring back).
pub(super) fn authorize_state(authorize_url: &str) -> Option<String> {
    let url = url::Url::parse(authorize_url).ok()?;
    url.query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
}

/// Reads until the end of the request head (or [`MAX_HEAD`] bytes, or EOF).
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 || head.len() + n > MAX_HEAD {
            break;
        }
        head.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8(head).ok()
}

/// The target of a `GET <target> HTTP/1.x` request line.
fn request_target(head: &str) -> Option<String> {
    let mut parts = head.lines().next()?.split_whitespace();
    let (method, target) = (parts.next()?, parts.next()?);
    (method == "GET" && target.starts_with('/')).then(|| target.to_owned())
}

/// A complete HTTP/1.1 response that closes the connection.
fn response(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The `error` (and `error_description`) of a redirect that refused authorization.
fn denial(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    let get = |key: &str| {
        url.query_pairs()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    };
    let error = get("error")?;
    Some(match get("error_description") {
        Some(description) => format!("{error}: {description}"),
        None => error,
    })
}
