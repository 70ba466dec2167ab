//! The built-in `web` server: `search` asks the search provider the user chose (SearXNG,
//! Brave Search, Tavily or Google Programmable Search: [`search`]) and returns numbered
//! results the model can cite; `read` fetches a page under the same network rules as `fetch`
//! ([`super::guarded`]: public addresses only unless allowed, 5 MB, 30 s) and returns its main
//! content as Markdown ([`read`]). Its settings come as the server's env — names below, values
//! kept in the keychain like any server's env — and are read when a tool runs, so a missing key
//! is a clear tool error, never a server that does not start.

pub(crate) mod read;
pub(crate) mod search;

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::Url;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;

use search::{Hit, Provider};

/// The setting that names the provider: `searxng`, `brave`, `tavily` or `google` (when absent,
/// the first of them whose URL or key is set).
pub(crate) const PROVIDER: &str = "SEARCH_PROVIDER";
/// SearXNG: the instance's URL.
pub(crate) const SEARXNG_URL: &str = "SEARXNG_URL";
/// Brave Search: the subscription token.
pub(crate) const BRAVE_API_KEY: &str = "BRAVE_API_KEY";
/// Tavily: the API key.
pub(crate) const TAVILY_API_KEY: &str = "TAVILY_API_KEY";
/// Google Programmable Search: the API key.
pub(crate) const GOOGLE_API_KEY: &str = "GOOGLE_API_KEY";
/// Google Programmable Search: the search engine id (`cx`).
pub(crate) const GOOGLE_CSE_ID: &str = "GOOGLE_CSE_ID";
/// Another endpoint for Brave, Tavily or Google (a proxy, or a test server).
pub(crate) const SEARCH_ENDPOINT: &str = "SEARCH_ENDPOINT";
/// Seconds one search may take (1 to 120; 15 when absent).
pub(crate) const SEARCH_TIMEOUT_SECS: &str = "SEARCH_TIMEOUT_SECS";
/// Every setting the web server knows.
pub(crate) const SETTINGS: [&str; 8] = [
    PROVIDER,
    SEARXNG_URL,
    BRAVE_API_KEY,
    TAVILY_API_KEY,
    GOOGLE_API_KEY,
    GOOGLE_CSE_ID,
    SEARCH_ENDPOINT,
    SEARCH_TIMEOUT_SECS,
];

/// Whether a setting is a key (kept in the keychain, masked for the UI).
pub(crate) fn is_secret(name: &str) -> bool {
    name.ends_with("_KEY")
}

/// The provider names [`PROVIDER`] takes, in the order they are guessed.
pub(crate) const PROVIDERS: [&str; 4] = ["searxng", "brave", "tavily", "google"];

const BRAVE_ENDPOINT: &str = "https://api.search.brave.com/res/v1/web/search";
const TAVILY_ENDPOINT: &str = "https://api.tavily.com/search";
const GOOGLE_ENDPOINT: &str = "https://www.googleapis.com/customsearch/v1";
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long extracting one page's main content may take.
const READ_BUDGET: Duration = Duration::from_secs(10);

/// Arguments of `search`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct SearchArgs {
    /// What to search for.
    #[schemars(description = "What to search the web for")]
    pub query: String,
    /// How many results.
    #[schemars(description = "How many results to return (1 to 10, default 5)")]
    #[serde(default = "default_count")]
    pub count: usize,
    /// In which language.
    #[schemars(
        description = "Language of the results as a BCP 47 tag such as en or zh-CN (optional)"
    )]
    #[serde(default)]
    pub language: Option<String>,
}

fn default_count() -> usize {
    5
}

/// Arguments of `read`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct ReadArgs {
    /// What to read.
    #[schemars(description = "URL of the page to read")]
    pub url: String,
    /// Page size.
    #[schemars(description = "Maximum number of characters to return (default 8000)")]
    #[serde(default = "default_max_length")]
    pub max_length: usize,
    /// Page start.
    #[schemars(
        description = "Return the content from this character on, when a previous read was truncated"
    )]
    #[serde(default)]
    pub start_index: usize,
}

fn default_max_length() -> usize {
    8000
}

/// The `web` server.
#[derive(Clone, Debug)]
pub(crate) struct WebServer {
    settings: BTreeMap<String, String>,
    allow_private: bool,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl WebServer {
    /// A server with these settings (the names above); `allow_private` lets `read` reach
    /// private, loopback and link-local addresses.
    pub(crate) fn new(settings: BTreeMap<String, String>, allow_private: bool) -> Self {
        Self {
            settings,
            allow_private,
            tool_router: Self::tool_router(),
        }
    }

    /// Tool `search`.
    #[tool(
        description = "Searches the web and returns numbered results (title, URL, snippet). Cite the results you use by their numbers, e.g. [1], and read a page with the read tool when a snippet is not enough.",
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn search(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<CallToolResult, String> {
        let query = args.query.trim();
        if query.is_empty() {
            return Err("query must not be empty".to_owned());
        }
        let provider = provider_of(&self.settings)?;
        let timeout = timeout_of(&self.settings)?;
        let language = args
            .language
            .as_deref()
            .map(str::trim)
            .filter(|l| !l.is_empty());
        let request = provider.request(query, args.count, language);
        let hits = search::search(&provider, request, args.count, timeout).await?;
        let mut result = CallToolResult::success(vec![ContentBlock::text(listing(
            query,
            provider.label(),
            &hits,
        ))]);
        result.structured_content = Some(sources(query, provider.label(), &hits));
        Ok(result)
    }

    /// Tool `read`.
    #[tool(
        description = "Reads a web page and returns its main content (title and text, without menus and ads) as Markdown, max_length characters from start_index at a time.",
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn read(&self, Parameters(args): Parameters<ReadArgs>) -> Result<String, String> {
        if args.max_length == 0 {
            return Err("max_length must be greater than 0".to_owned());
        }
        let url =
            Url::parse(args.url.trim()).map_err(|e| format!("Invalid URL {}: {e}", args.url))?;
        let page = super::guarded::download(&url, self.allow_private).await?;
        let shown = url.clone();
        let reading = tokio::task::spawn_blocking(move || read::main_content(&page));
        let article = tokio::time::timeout(READ_BUDGET, reading)
            .await
            .map_err(|_| {
                format!(
                    "{shown} took more than {} s to read; it is not read",
                    READ_BUDGET.as_secs()
                )
            })?
            .map_err(|e| format!("reading {shown} failed: {e}"))??;
        Ok(article.windowed(args.start_index, args.max_length))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for WebServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// The hits as the model reads them: numbered, for citations.
fn listing(query: &str, label: &str, hits: &[Hit]) -> String {
    if hits.is_empty() {
        return format!("No results for \"{query}\" ({label}).");
    }
    let mut out = format!("Results for \"{query}\" ({label}):\n");
    for (i, hit) in hits.iter().enumerate() {
        out.push_str(&format!("\n[{}] {}\n{}\n", i + 1, hit.title, hit.url));
        if !hit.snippet.is_empty() {
            out.push_str(&hit.snippet);
            out.push('\n');
        }
    }
    out
}

/// The hits for the app, which shows them as the answer's sources: `{query, provider,
/// results: [{n, title, url, snippet}]}`, `n` being the number the model cites.
fn sources(query: &str, label: &str, hits: &[Hit]) -> serde_json::Value {
    let results: Vec<serde_json::Value> = (hits.iter().enumerate())
        .map(|(i, h)| json!({"n": i + 1, "title": h.title, "url": h.url, "snippet": h.snippet}))
        .collect();
    json!({"query": query, "provider": label, "results": results})
}

/// The provider the settings choose, or what is missing.
pub(crate) fn provider_of(settings: &BTreeMap<String, String>) -> Result<Provider, String> {
    let get = |name: &str| {
        settings
            .get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    };
    let needs = |name: &str, what: &str| {
        get(name).map(str::to_owned).ok_or_else(|| {
            format!("web search needs {what}: set {name} in the web server's settings")
        })
    };
    let endpoint =
        |default: &str| parse_url(get(SEARCH_ENDPOINT).unwrap_or(default), SEARCH_ENDPOINT);
    let chosen = match get(PROVIDER) {
        Some(name) => name.to_ascii_lowercase(),
        None => {
            let set = [SEARXNG_URL, BRAVE_API_KEY, TAVILY_API_KEY, GOOGLE_API_KEY];
            let first = PROVIDERS
                .iter()
                .zip(set)
                .find(|(_, key)| get(key).is_some());
            let Some((name, _)) = first else {
                return Err(format!(
                    "web search has no provider: set {PROVIDER} (searxng, brave, tavily or google) and its URL or key in the web server's settings"
                ));
            };
            (*name).to_owned()
        }
    };
    match chosen.as_str() {
        "searxng" => Ok(Provider::Searxng {
            url: parse_url(&needs(SEARXNG_URL, "a SearXNG instance URL")?, SEARXNG_URL)?,
        }),
        "brave" => Ok(Provider::Brave {
            key: needs(BRAVE_API_KEY, "a Brave Search API key")?,
            endpoint: endpoint(BRAVE_ENDPOINT)?,
        }),
        "tavily" => Ok(Provider::Tavily {
            key: needs(TAVILY_API_KEY, "a Tavily API key")?,
            endpoint: endpoint(TAVILY_ENDPOINT)?,
        }),
        "google" => Ok(Provider::Google {
            key: needs(GOOGLE_API_KEY, "a Google API key")?,
            engine: needs(GOOGLE_CSE_ID, "a Programmable Search engine id")?,
            endpoint: endpoint(GOOGLE_ENDPOINT)?,
        }),
        other => Err(format!(
            "{PROVIDER} {other:?} is not a search provider; use searxng, brave, tavily or google"
        )),
    }
}

/// An http(s) URL from the settings, or what is wrong with it.
fn parse_url(text: &str, name: &str) -> Result<Url, String> {
    let url = Url::parse(text).map_err(|e| format!("{name} {text:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("{name} must be an http or https URL, not {text:?}"));
    }
    Ok(url)
}

/// The search timeout the settings give, or what is wrong with it.
fn timeout_of(settings: &BTreeMap<String, String>) -> Result<Duration, String> {
    match settings.get(SEARCH_TIMEOUT_SECS).map(|v| v.trim()) {
        None | Some("") => Ok(DEFAULT_TIMEOUT),
        Some(text) => match text.parse::<u64>() {
            Ok(secs @ 1..=120) => Ok(Duration::from_secs(secs)),
            _ => Err(format!(
                "{SEARCH_TIMEOUT_SECS} must be a number of seconds from 1 to 120, not {text:?}"
            )),
        },
    }
}
