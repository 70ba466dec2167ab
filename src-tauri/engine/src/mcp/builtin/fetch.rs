//! The built-in `fetch` server, modelled on PyPI's `mcp-server-fetch`: fetches a URL and
//! returns it as Markdown (HTML, via `htmd`) or text, `max_length` characters from
//! `start_index` at a time, with the same "Content truncated" marker.
//!
//! Safety: downloads stop at [`DOWNLOAD_LIMIT`], and unless `allow_private` is set every
//! address the host resolves to must be public: loopback, private, link-local, CGNAT,
//! unspecified, multicast and reserved addresses (and the IPv6 forms carrying such an IPv4
//! address: see [`crate::netguard`]) are refused before connecting. The check sits in the
//! HTTP client's DNS resolver (so redirects and DNS rebinding are covered too) and in the
//! redirect policy (for IP-literal hosts, which skip the resolver).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use reqwest::Url;
use reqwest::redirect::{Attempt, Policy};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

use crate::logging::error_chain;
use crate::netguard::is_public;

/// The most bytes one fetch downloads.
pub(crate) const DOWNLOAD_LIMIT: usize = 5 * 1024 * 1024;
/// How long one fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);
/// How many redirects are followed.
const MAX_REDIRECTS: usize = 10;
/// The User-Agent sent (the same spirit as mcp-server-fetch's).
const USER_AGENT: &str = concat!(
    "Switchboard/",
    env!("CARGO_PKG_VERSION"),
    " (Autonomous; +https://github.com/modelcontextprotocol/servers)"
);

/// Arguments of `fetch`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct FetchArgs {
    /// What to fetch.
    #[schemars(description = "URL to fetch")]
    pub url: String,
    /// Page size.
    #[schemars(description = "Maximum number of characters to return.")]
    #[serde(default = "default_max_length")]
    pub max_length: usize,
    /// Page start.
    #[schemars(
        description = "On return output starting at this character index, useful if a previous fetch was truncated and more context is required."
    )]
    #[serde(default)]
    pub start_index: usize,
    /// Skip simplification.
    #[schemars(
        description = "Get the actual HTML content of the requested page, without simplification."
    )]
    #[serde(default)]
    pub raw: bool,
}

fn default_max_length() -> usize {
    5000
}

/// The `fetch` server.
#[derive(Clone, Debug)]
pub(crate) struct FetchServer {
    allow_private: bool,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl FetchServer {
    /// A server; `allow_private` lets it reach private, loopback and link-local addresses.
    pub(crate) fn new(allow_private: bool) -> Self {
        Self {
            allow_private,
            tool_router: Self::tool_router(),
        }
    }

    /// Tool `fetch`.
    #[tool(
        description = "Fetches a URL from the internet and optionally extracts its contents as markdown.\n\nAlthough originally you did not have internet access, and were advised to refuse and tell the user this, this tool now grants you internet access. Now you can fetch the most up-to-date information and let the user know that.",
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn fetch(&self, Parameters(args): Parameters<FetchArgs>) -> Result<String, String> {
        if args.max_length == 0 {
            return Err("max_length must be greater than 0".to_owned());
        }
        let url = Url::parse(&args.url).map_err(|e| format!("Invalid URL {}: {e}", args.url))?;
        let page = self.download(&url).await?;
        let (prefix, content) = readable(&page, args.raw);
        Ok(format!(
            "{prefix}Contents of {url}:\n{}",
            window(&content, args.start_index, args.max_length)
        ))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for FetchServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// A downloaded page.
#[derive(Debug)]
struct Page {
    content_type: String,
    body: String,
}

impl FetchServer {
    /// GETs `url` (checking every address it reaches), up to [`DOWNLOAD_LIMIT`] bytes.
    async fn download(&self, url: &Url) -> Result<Page, String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "Only http and https URLs can be fetched, not {url}"
            ));
        }
        if !self.allow_private {
            check_url(url)?;
        }
        let response = self
            .client()?
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
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let bytes = read_limited(response).await?;
        Ok(Page {
            content_type,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        })
    }

    /// An HTTP client whose resolver and redirect policy enforce the address rule.
    fn client(&self) -> Result<reqwest::Client, String> {
        // No proxy: a proxy would resolve the host itself, past the address rule.
        let mut builder = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(FETCH_TIMEOUT)
            .no_proxy();
        if !self.allow_private {
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
}

/// Reads the body, stopping at [`DOWNLOAD_LIMIT`] bytes.
async fn read_limited(response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| format!("Failed to read the page: {}", error_chain(&e)))?;
        let room = DOWNLOAD_LIMIT - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= DOWNLOAD_LIMIT {
            break;
        }
    }
    Ok(body)
}

/// The page as Markdown (HTML, unless `raw`) or as-is, with a prefix when it is not simplified.
fn readable(page: &Page, raw: bool) -> (String, String) {
    let head: String = page
        .body
        .chars()
        .take(100)
        .collect::<String>()
        .to_lowercase();
    let is_html = page.content_type.contains("text/html") || head.contains("<html");
    if is_html && !raw {
        let converter = htmd::HtmlToMarkdown::builder()
            .skip_tags(vec!["script", "style", "noscript", "head", "template"])
            .build();
        if let Ok(markdown) = converter.convert(&page.body) {
            return (String::new(), markdown);
        }
        return (
            String::new(),
            "<error>Page failed to be simplified from HTML</error>".to_owned(),
        );
    }
    let prefix = format!(
        "Content type {} cannot be simplified to markdown, but here is the raw content:\n",
        page.content_type
    );
    (prefix, page.body.clone())
}

/// `max_length` characters from `start`, with mcp-server-fetch's truncation marker.
pub(crate) fn window(content: &str, start: usize, max_length: usize) -> String {
    let total = content.chars().count();
    if start >= total {
        return "<error>No more content available.</error>".to_owned();
    }
    let page: String = content.chars().skip(start).take(max_length).collect();
    let next = start + page.chars().count();
    if next < total {
        return format!(
            "{page}\n\nContent truncated. Call the fetch tool with a start_index of {next} to get more content."
        );
    }
    page
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
        "Refusing to fetch {target}: {ip} is a private, loopback or link-local address (enable private addresses for the fetch server to allow it)"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_page_by_characters_with_the_marker() {
        assert_eq!(window("héllo", 0, 10), "héllo");
        assert_eq!(
            window("héllo", 0, 2),
            "hé\n\nContent truncated. Call the fetch tool with a start_index of 2 to get more content."
        );
        assert_eq!(window("héllo", 2, 10), "llo");
        assert_eq!(
            window("héllo", 5, 10),
            "<error>No more content available.</error>"
        );
    }
}
