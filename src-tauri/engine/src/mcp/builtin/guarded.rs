//! The HTTP client the built-in servers use for URLs a model chose (`fetch`, and `web`'s
//! `read`): downloads stop at [`DOWNLOAD_LIMIT`] and take at most [`FETCH_TIMEOUT`], and unless
//! the server was allowed private addresses every address a host resolves to must be public:
//! loopback, private, link-local, CGNAT, unspecified, multicast and reserved addresses (and the
//! IPv6 forms carrying such an IPv4 address: see [`crate::netguard`]) are refused before
//! connecting. The check sits in the client's DNS resolver (so redirects and DNS rebinding are
//! covered too) and in the redirect policy (for IP-literal hosts, which skip the resolver).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use reqwest::Url;
use reqwest::redirect::{Attempt, Policy};

use crate::logging::error_chain;
use crate::netguard::is_public;

/// The most bytes one download keeps.
pub(crate) const DOWNLOAD_LIMIT: usize = 5 * 1024 * 1024;
/// How long one download may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);
/// How many redirects are followed.
const MAX_REDIRECTS: usize = 10;
/// The User-Agent sent (the same spirit as mcp-server-fetch's).
const USER_AGENT: &str = concat!(
    "Switchboard/",
    env!("CARGO_PKG_VERSION"),
    " (Autonomous; +https://github.com/modelcontextprotocol/servers)"
);

/// A downloaded page.
#[derive(Debug)]
pub(crate) struct Page {
    /// The URL it was finally read from (after redirects).
    pub(crate) url: Url,
    /// Its `Content-Type`, or empty.
    pub(crate) content_type: String,
    /// Its body as text (invalid UTF-8 replaced), at most [`DOWNLOAD_LIMIT`] bytes of it.
    pub(crate) body: String,
}

impl Page {
    /// Whether the page is HTML (by its type, or by its first characters when it has none).
    pub(crate) fn is_html(&self) -> bool {
        let head: String = self.body.chars().take(100).collect::<String>();
        self.content_type.contains("text/html")
            || self.content_type.contains("application/xhtml")
            || head.to_lowercase().contains("<html")
    }
}

/// GETs `url` (checking every address it reaches unless `allow_private`), up to
/// [`DOWNLOAD_LIMIT`] bytes.
pub(crate) async fn download(url: &Url, allow_private: bool) -> Result<Page, String> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "Only http and https URLs can be fetched, not {url}"
        ));
    }
    if !allow_private {
        check_url(url)?;
    }
    let response = client(allow_private)?
        .get(url.clone())
        .send()
        .await
        .map_err(|e| format!("Failed to fetch {url}: {}", error_chain(&e)))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!(
            "Failed to fetch {url} - status code {}",
            status.as_u16()
        ));
    }
    let final_url = response.url().clone();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let bytes = read_capped(response, DOWNLOAD_LIMIT)
        .await
        .map_err(|e| format!("Failed to read the page: {}", error_chain(&e)))?;
    Ok(Page {
        url: final_url,
        content_type,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    })
}

/// An HTTP client whose resolver and redirect policy enforce the address rule.
fn client(allow_private: bool) -> Result<reqwest::Client, String> {
    // No proxy: a proxy would resolve the host itself, past the address rule.
    let mut builder = reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .timeout(FETCH_TIMEOUT)
        .no_proxy();
    if !allow_private {
        builder = builder
            .dns_resolver(Arc::new(crate::netguard::PublicOnly::saying(refusal)))
            .redirect(Policy::custom(public_redirects));
    } else {
        builder = builder.redirect(Policy::limited(MAX_REDIRECTS));
    }
    builder
        .build()
        .map_err(|e| format!("cannot create an HTTP client: {e}"))
}

/// The body, up to `limit` bytes (the rest is not read).
pub(crate) async fn read_capped(
    response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, reqwest::Error> {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk?;
        let room = limit - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= limit {
            break;
        }
    }
    Ok(body)
}

/// Refuses a URL whose host is a non-public IP literal (names are checked at resolution).
fn check_url(url: &Url) -> Result<(), String> {
    let Some(host) = url.host_str() else {
        return Err(format!("{url} has no host"));
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let Ok(ip) = bare.parse::<IpAddr>() else {
        return Ok(());
    };
    if is_public(ip) {
        Ok(())
    } else {
        Err(refusal(url.as_str(), ip))
    }
}

/// The message for a refused address.
fn refusal(target: &str, ip: IpAddr) -> String {
    format!(
        "Refusing to fetch {target}: {ip} is a private, loopback or link-local address (enable private addresses for this server to allow it)"
    )
}

/// The redirect policy when private addresses are refused.
fn public_redirects(attempt: Attempt) -> reqwest::redirect::Action {
    if attempt.previous().len() >= MAX_REDIRECTS {
        return attempt.error("too many redirects");
    }
    match check_url(attempt.url()) {
        Ok(()) => attempt.follow(),
        Err(message) => attempt.error(message),
    }
}
