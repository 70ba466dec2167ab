//! The built-in `fetch` server, modelled on PyPI's `mcp-server-fetch`: fetches a URL and
//! returns it as Markdown (HTML, via `htmd`) or text, `max_length` characters from
//! `start_index` at a time, with the same "Content truncated" marker.
//!
//! Safety: the download goes through [`super::guarded`] (size and time caps; public
//! addresses only unless the user allowed private ones).

use reqwest::Url;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

use super::guarded::{Page, download};

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
        let page = download(&url, self.allow_private).await?;
        let (prefix, content) = readable(&page, args.raw);
        Ok(format!(
            "{prefix}Contents of {url}:\n{}",
            window(&content, args.start_index, args.max_length, "fetch")
        ))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for FetchServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// The page as Markdown (HTML, unless `raw`) or as-is, with a prefix when it is not simplified.
fn readable(page: &Page, raw: bool) -> (String, String) {
    if page.is_html() && !raw {
        if let Some(markdown) = markdown(&page.body) {
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

/// `html` as Markdown, without scripts, styles and the head; `None` when it cannot be converted.
pub(crate) fn markdown(html: &str) -> Option<String> {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec!["script", "style", "noscript", "head", "template"])
        .build();
    converter.convert(html).ok()
}

/// `max_length` characters from `start`, with mcp-server-fetch's truncation marker naming
/// `tool`.
pub(crate) fn window(content: &str, start: usize, max_length: usize, tool: &str) -> String {
    let total = content.chars().count();
    if start >= total {
        return "<error>No more content available.</error>".to_owned();
    }
    let page: String = content.chars().skip(start).take(max_length).collect();
    let next = start + page.chars().count();
    if next < total {
        return format!(
            "{page}\n\nContent truncated. Call the {tool} tool with a start_index of {next} to get more content."
        );
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_page_by_characters_with_the_marker() {
        assert_eq!(window("héllo", 0, 10, "fetch"), "héllo");
        assert_eq!(
            window("héllo", 0, 2, "fetch"),
            "hé\n\nContent truncated. Call the fetch tool with a start_index of 2 to get more content."
        );
        assert_eq!(window("héllo", 2, 10, "fetch"), "llo");
        assert_eq!(
            window("héllo", 5, 10, "fetch"),
            "<error>No more content available.</error>"
        );
    }
}
