//! Web search providers for the built-in `web` server: SearXNG's JSON API (self-hosted or an
//! instance's URL), Brave Search, Tavily and Google Programmable Search. Each provider is a
//! request (URL, headers, body) built from one query, and a parser of its answer into
//! [`Hit`]s; [`search`] sends it. The provider's URL is the user's choice, so it may be on the
//! LAN (a self-hosted SearXNG), but redirects are never followed (a key must not reach another
//! host), answers are read up to [`ANSWER_LIMIT`] bytes within the settings' timeout, and no
//! error carries the request's URL (Google's key is in its query).

use std::time::Duration;

use reqwest::Url;
use serde_json::{Value, json};

use super::super::guarded::read_capped;
use crate::logging::error_chain;

/// The most bytes of a provider's answer that are read.
pub(crate) const ANSWER_LIMIT: usize = 2 * 1024 * 1024;
/// The most results one search returns.
pub(crate) const MAX_COUNT: usize = 10;

/// One search provider and what it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Provider {
    /// SearXNG's JSON API at this instance URL.
    Searxng {
        /// The instance, e.g. `http://localhost:8080`.
        url: Url,
    },
    /// Brave Search's web search API.
    Brave {
        /// The subscription token.
        key: String,
        /// The endpoint.
        endpoint: Url,
    },
    /// Tavily's search API.
    Tavily {
        /// The API key.
        key: String,
        /// The endpoint.
        endpoint: Url,
    },
    /// Google Programmable Search (Custom Search JSON API).
    Google {
        /// The API key.
        key: String,
        /// The search engine id (`cx`).
        engine: String,
        /// The endpoint.
        endpoint: Url,
    },
}

/// One search result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    /// The page's title.
    pub(crate) title: String,
    /// Its URL.
    pub(crate) url: String,
    /// What the provider quotes of it (plain text or Markdown).
    pub(crate) snippet: String,
}

/// One request to a provider.
#[derive(Debug)]
pub(crate) struct Request {
    /// Where it goes.
    pub(crate) url: Url,
    /// Its headers.
    pub(crate) headers: Vec<(&'static str, String)>,
    /// Its JSON body (a POST), or none (a GET).
    pub(crate) body: Option<Value>,
}

impl Provider {
    /// The provider's name, for messages.
    pub(crate) fn label(&self) -> &'static str {
        match self {
            Self::Searxng { .. } => "SearXNG",
            Self::Brave { .. } => "Brave Search",
            Self::Tavily { .. } => "Tavily",
            Self::Google { .. } => "Google Programmable Search",
        }
    }

    /// The request for `query`: at most `count` results, in `language` (a BCP 47 tag) when the
    /// provider can be asked for one.
    pub(crate) fn request(&self, query: &str, count: usize, language: Option<&str>) -> Request {
        let count = count.clamp(1, MAX_COUNT);
        match self {
            Self::Searxng { url } => {
                let mut url = url.clone();
                let path = format!("{}/search", url.path().trim_end_matches('/'));
                url.set_path(&path);
                let mut q = url.query_pairs_mut();
                q.append_pair("q", query).append_pair("format", "json");
                if let Some(lang) = language {
                    q.append_pair("language", lang);
                }
                drop(q);
                // `text/html` too: a public instance's limiter refuses a request whose Accept
                // lacks it (the JSON comes by `format=json` either way).
                Request {
                    url,
                    headers: vec![("Accept", "application/json, text/html;q=0.5".into())],
                    body: None,
                }
            }
            Self::Brave { key, endpoint } => {
                let mut url = endpoint.clone();
                let mut q = url.query_pairs_mut();
                q.append_pair("q", query)
                    .append_pair("count", &count.to_string());
                if let Some(lang) = language {
                    q.append_pair("search_lang", &brave_language(lang));
                }
                drop(q);
                Request {
                    url,
                    headers: vec![
                        ("Accept", "application/json".into()),
                        ("X-Subscription-Token", key.clone()),
                    ],
                    body: None,
                }
            }
            Self::Tavily { key, endpoint } => Request {
                url: endpoint.clone(),
                headers: vec![
                    ("Authorization", format!("Bearer {key}")),
                    ("Content-Type", "application/json".into()),
                ],
                body: Some(json!({
                    "query": query,
                    "max_results": count,
                    "search_depth": "basic",
                    "include_answer": false,
                })),
            },
            Self::Google {
                key,
                engine,
                endpoint,
            } => {
                let mut url = endpoint.clone();
                let mut q = url.query_pairs_mut();
                q.append_pair("key", key)
                    .append_pair("cx", engine)
                    .append_pair("q", query)
                    .append_pair("num", &count.to_string());
                if let Some(lang) = language {
                    q.append_pair("lr", &google_language(lang));
                }
                drop(q);
                Request {
                    url,
                    headers: vec![("Accept", "application/json".into())],
                    body: None,
                }
            }
        }
    }

    /// The hits in a successful answer, at most `count`; an error naming what is wrong when
    /// the answer is not this provider's.
    pub(crate) fn parse(&self, answer: &Value, count: usize) -> Result<Vec<Hit>, String> {
        let (list, title, url, snippet) = match self {
            Self::Searxng { .. } => (answer.get("results"), "title", "url", "content"),
            Self::Brave { .. } => (
                answer.pointer("/web/results").or_else(|| {
                    // A search with no web results has no `web` at all.
                    (answer.get("type") == Some(&json!("search"))).then_some(&Value::Null)
                }),
                "title",
                "url",
                "description",
            ),
            Self::Tavily { .. } => (answer.get("results"), "title", "url", "content"),
            Self::Google { .. } => (
                answer.get("items").or_else(|| {
                    // Google leaves `items` out when nothing was found.
                    answer.get("searchInformation").map(|_| &Value::Null)
                }),
                "title",
                "link",
                "snippet",
            ),
        };
        let list = match list {
            Some(Value::Array(items)) => items.as_slice(),
            Some(Value::Null) => &[],
            _ => {
                return Err(format!(
                    "{} answered JSON without a list of results",
                    self.label()
                ));
            }
        };
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(plain);
        Ok(list
            .iter()
            .filter_map(|item| {
                Some(Hit {
                    url: text(item, url)?,
                    title: text(item, title).unwrap_or_default(),
                    snippet: text(item, snippet).unwrap_or_default(),
                })
            })
            .take(count.clamp(1, MAX_COUNT))
            .collect())
    }

    /// What a failed answer (`status`, its body) says, in one line.
    pub(crate) fn failure(&self, status: u16, body: &str) -> String {
        let parsed: Option<Value> = serde_json::from_str(body).ok();
        let said = parsed.as_ref().and_then(|v| {
            [
                "/error/detail",
                "/error/message",
                "/detail/error",
                "/detail",
                "/error",
                "/message",
            ]
            .iter()
            .find_map(|p| v.pointer(p).and_then(Value::as_str))
            .map(str::to_owned)
        });
        let bad_key =
            body.contains("API_KEY_INVALID") || body.contains("SUBSCRIPTION_TOKEN_INVALID");
        let hint = match (self, status) {
            (Self::Searxng { .. }, 403) => {
                " (the instance does not serve JSON: add `json` to `search.formats` in its settings.yml)"
            }
            (Self::Searxng { .. }, 429) => {
                " (the instance's limiter refused the request: turn `server.limiter` off on your own instance, or use another)"
            }
            (_, 401 | 403 | 422) => " (check the API key in the web server's settings)",
            _ if bad_key => " (check the API key in the web server's settings)",
            (_, 402 | 429 | 432 | 433) => {
                " (the plan's rate or usage limit was reached; try again later)"
            }
            _ => "",
        };
        let said = said.map_or_else(String::new, |s| format!(": {}", one_line(&s, 300)));
        format!("{} answered {status}{said}{hint}", self.label())
    }
}

/// Sends `request` to `provider` and returns its hits, or an error in words: a provider that
/// is down, slow (past `timeout`), redirecting, failing or answering something else.
pub(crate) async fn search(
    provider: &Provider,
    request: Request,
    count: usize,
    timeout: Duration,
) -> Result<Vec<Hit>, String> {
    let label = provider.label();
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot create an HTTP client: {e}"))?;
    let mut builder = match &request.body {
        Some(body) => client.post(request.url).json(body),
        None => client.get(request.url),
    };
    for (name, value) in &request.headers {
        builder = builder.header(*name, value);
    }
    let sent = async {
        let response = builder.send().await.map_err(|e| unreachable(label, e))?;
        let status = response.status();
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = read_capped(response, ANSWER_LIMIT)
            .await
            .map_err(|e| unreachable(label, e))?;
        Ok::<_, String>((status, location, body))
    };
    let (status, location, body) = tokio::time::timeout(timeout, sent)
        .await
        .map_err(|_| format!("{label} did not answer within {} s", timeout.as_secs()))??;
    if status.is_redirection() {
        let to = location.unwrap_or_else(|| "elsewhere".into());
        return Err(format!(
            "{label} answered {} redirecting to {}; redirects are not followed, so set the URL it redirects to",
            status.as_u16(),
            one_line(&to, 200)
        ));
    }
    let body = String::from_utf8_lossy(&body);
    if !status.is_success() {
        return Err(provider.failure(status.as_u16(), &body));
    }
    let answer: Value = serde_json::from_str(&body).map_err(|e| {
        format!(
            "{label} answered something that is not JSON ({e}); it begins: {}",
            one_line(&body, 120)
        )
    })?;
    provider.parse(&answer, count)
}

/// A send or read error in words, without the request's URL (it may hold a key).
fn unreachable(label: &str, e: reqwest::Error) -> String {
    let timed_out = e.is_timeout();
    let e = e.without_url();
    if timed_out {
        return format!("{label} did not answer in time: {}", error_chain(&e));
    }
    format!("{label} could not be reached: {}", error_chain(&e))
}

/// Brave's `search_lang` for a BCP 47 tag (`zh-hans`, `zh-hant`, `jp` are its own codes).
fn brave_language(tag: &str) -> String {
    let lower = tag.to_ascii_lowercase();
    match lower.as_str() {
        "zh" | "zh-cn" | "zh-sg" | "zh-hans" => "zh-hans".into(),
        "zh-tw" | "zh-hk" | "zh-mo" | "zh-hant" => "zh-hant".into(),
        _ => match primary(&lower) {
            "ja" => "jp".into(),
            p => p.into(),
        },
    }
}

/// Google's `lr` for a BCP 47 tag (`lang_zh-CN`, `lang_zh-TW`, else `lang_<language>`).
fn google_language(tag: &str) -> String {
    let lower = tag.to_ascii_lowercase();
    match lower.as_str() {
        "zh" | "zh-cn" | "zh-sg" | "zh-hans" => "lang_zh-CN".into(),
        "zh-tw" | "zh-hk" | "zh-mo" | "zh-hant" => "lang_zh-TW".into(),
        _ => format!("lang_{}", primary(&lower)),
    }
}

/// The language subtag of a BCP 47 tag.
fn primary(tag: &str) -> &str {
    tag.split(['-', '_']).next().unwrap_or(tag)
}

/// A provider's text as plain text: markup (Brave's `<strong>`) and entities turned into
/// Markdown, whitespace runs made one space.
fn plain(text: &str) -> String {
    let text = if text.contains('<') || text.contains('&') {
        super::super::fetch::markdown(text).unwrap_or_else(|| text.to_owned())
    } else {
        text.to_owned()
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` on one line, cut at `max` characters.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
