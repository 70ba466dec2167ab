//! Asking an MCP Registry: a search or a page of its listing (`GET /v0/servers` with
//! `search`, `cursor`, `limit` and `version=latest`) and one entry by name and version. Every
//! answer is bounded: [`MAX_ANSWER_BYTES`], a timeout, and JSON of the API's shape; anything
//! else is an [`InstallError`] that names the registry (the host keeps its cached listing).

use std::time::Duration;

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{RegistryEntry, WireList, parse_one};
use crate::vocab::error::InstallError;

/// The official registry.
pub(crate) const DEFAULT_REGISTRY: &str = "https://registry.modelcontextprotocol.io";
/// The setting holding the registry's URL (an organisation's own registry works).
pub(crate) const REGISTRY_URL_SETTING: &str = "mcp.registry_url";
/// The setting holding how long one registry request may take, in milliseconds.
pub(crate) const REGISTRY_TIMEOUT_SETTING: &str = "mcp.registry_timeout_ms";
/// The default time one request may take.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
/// The largest answer read (a page of 100 entries is well under 1 MiB).
pub(crate) const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;
/// Entries asked for per page.
pub(crate) const PAGE_SIZE: u32 = 30;

/// One page of a registry listing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RegistryPage {
    /// The registry asked.
    pub registry: String,
    /// The search text (empty: the whole listing).
    pub query: String,
    /// The entries, in the registry's order.
    pub entries: Vec<RegistryEntry>,
    /// The cursor of the next page; none at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub next_cursor: Option<String>,
    /// Read from the cache (offline) rather than the registry just now.
    #[serde(default)]
    pub cached: bool,
    /// When it was fetched, Unix milliseconds.
    #[ts(type = "number")]
    pub fetched_at: i64,
}

/// A client of one registry.
#[derive(Clone, Debug)]
pub(crate) struct RegistryClient {
    base: String,
    timeout: Duration,
    http: reqwest::Client,
}

impl RegistryClient {
    /// A client of the registry at `base` (e.g. [`DEFAULT_REGISTRY`]), each request allowed
    /// `timeout`.
    pub(crate) fn new(base: &str, timeout: Duration) -> Result<Self, InstallError> {
        let url = url::Url::parse(base.trim()).map_err(|e| InstallError::Unreachable {
            url: base.to_owned(),
            reason: format!("not a URL: {e}"),
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(InstallError::Unreachable {
                url: base.to_owned(),
                reason: "a registry URL is http or https".to_owned(),
            });
        }
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| InstallError::Unreachable {
                url: base.to_owned(),
                reason: e.to_string(),
            })?;
        let base = url.as_str().trim_end_matches('/').to_owned();
        Ok(Self {
            base,
            timeout,
            http,
        })
    }

    /// The registry's base URL.
    pub(crate) fn base(&self) -> &str {
        &self.base
    }

    /// A page of the latest versions matching `query` (empty: all), after `cursor`.
    pub(crate) async fn search(
        &self,
        query: &str,
        cursor: Option<&str>,
    ) -> Result<RegistryPage, InstallError> {
        let mut params = vec![("version", "latest".to_owned())];
        params.push(("limit", PAGE_SIZE.to_string()));
        if !query.trim().is_empty() {
            params.push(("search", query.trim().to_owned()));
        }
        if let Some(cursor) = cursor.filter(|c| !c.is_empty()) {
            params.push(("cursor", cursor.to_owned()));
        }
        let url = format!("{}/v0/servers", self.base);
        let body = self.get(&url, &params).await?;
        let list: WireList = serde_json::from_slice(&body).map_err(|e| self.malformed(e))?;
        let (entries, next_cursor) = list.into_parts();
        Ok(RegistryPage {
            registry: self.base.clone(),
            query: query.trim().to_owned(),
            entries,
            next_cursor,
            cached: false,
            fetched_at: jiff::Timestamp::now().as_millisecond(),
        })
    }

    /// Entry `name` at `version` (`None`: the latest).
    pub(crate) async fn entry(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> Result<RegistryEntry, InstallError> {
        let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let version = version.unwrap_or("latest");
        let url = format!(
            "{}/v0/servers/{}/versions/{}",
            self.base,
            enc(name),
            enc(version)
        );
        let body = self.get(&url, &[]).await?;
        parse_one(&body).map_err(|e| self.malformed(e))
    }

    fn malformed(&self, e: serde_json::Error) -> InstallError {
        InstallError::Malformed {
            url: self.base.clone(),
            reason: e.to_string(),
        }
    }

    /// The body of a GET, at most [`MAX_ANSWER_BYTES`], within the timeout.
    async fn get(&self, url: &str, params: &[(&str, String)]) -> Result<Vec<u8>, InstallError> {
        let work = async {
            let mut url = url::Url::parse(url).map_err(|e| InstallError::Unreachable {
                url: self.base.clone(),
                reason: e.to_string(),
            })?;
            if !params.is_empty() {
                url.query_pairs_mut().extend_pairs(params);
            }
            let response = self.http.get(url).send().await;
            let response = response.map_err(|e| self.failed(e))?;
            let status = response.status();
            if status == reqwest::StatusCode::NOT_FOUND {
                return Err(InstallError::Plan(format!(
                    "the MCP Registry at {} has no such server or version",
                    self.base
                )));
            }
            if !status.is_success() {
                return Err(InstallError::Unreachable {
                    url: self.base.clone(),
                    reason: format!("it answered HTTP {status}"),
                });
            }
            let mut body = Vec::new();
            let mut stream = response.bytes_stream();
            while let Some(chunk) = stream.next().await {
                body.extend_from_slice(&chunk.map_err(|e| self.failed(e))?);
                if body.len() > MAX_ANSWER_BYTES {
                    return Err(InstallError::TooLarge {
                        url: self.base.clone(),
                        limit: MAX_ANSWER_BYTES,
                    });
                }
            }
            Ok(body)
        };
        match tokio::time::timeout(self.timeout, work).await {
            Ok(result) => result,
            Err(_) => Err(self.timed_out()),
        }
    }

    fn timed_out(&self) -> InstallError {
        InstallError::Timeout {
            url: self.base.clone(),
            seconds: self.timeout.as_secs().max(1),
        }
    }

    fn failed(&self, e: reqwest::Error) -> InstallError {
        if e.is_timeout() {
            return self.timed_out();
        }
        InstallError::Unreachable {
            url: self.base.clone(),
            reason: e.to_string(),
        }
    }
}
