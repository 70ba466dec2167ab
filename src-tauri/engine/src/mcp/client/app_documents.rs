//! MCP Apps (SEP-1865, the `io.modelcontextprotocol/ui` extension), host side: what a tool's
//! `_meta.ui` declares (its UI resource, who may call it), the UI resource itself
//! (`text/html;profile=mcp-app` with its `_meta.ui` CSP), the Content Security Policy an App
//! frame is served with (built from the resource's declared domains and nothing wider), and
//! the registry of App documents the shell serves to sandboxed frames.
//!
//! The rules for an App's own `tools/call` live in `mcp/host/apps.rs` and their approval in `mcp/host/approval.rs`.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::vocab::error::AppError;
use crate::vocab::mcp::{APP_MIME, ToolUi, Visibility};

/// The extension id advertised in the client capabilities.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The legacy flat `_meta` key some servers still send beside `_meta.ui.resourceUri`.
const LEGACY_RESOURCE_URI: &str = "ui/resourceUri";
/// How many App documents the registry keeps at once (the oldest is dropped first).
pub(crate) const MAX_VIEWS: usize = 64;

impl ToolUi {
    /// Reads `_meta.ui` (and the legacy `_meta["ui/resourceUri"]`); `None` when neither is set.
    pub fn from_meta(meta: Option<&Map<String, Value>>) -> Option<Self> {
        let meta = meta?;
        let ui = meta.get("ui").and_then(Value::as_object);
        let legacy = meta.get(LEGACY_RESOURCE_URI).and_then(Value::as_str);
        if ui.is_none() && legacy.is_none() {
            return None;
        }
        let uri = ui
            .and_then(|u| u.get("resourceUri"))
            .and_then(Value::as_str);
        let resource_uri = uri.or(legacy).map(str::to_owned);
        let visibility = ui
            .and_then(|u| u.get("visibility"))
            .and_then(|v| serde_json::from_value::<Vec<Visibility>>(v.clone()).ok())
            .unwrap_or_else(|| vec![Visibility::Model, Visibility::App]);
        Some(Self {
            resource_uri,
            visibility,
        })
    }
}

/// The settings advertised under [`UI_EXTENSION`]: the App MIME type we render.
pub(crate) fn extension_capabilities() -> BTreeMap<String, Map<String, Value>> {
    let mut settings = Map::new();
    let mimes = Value::Array(vec![Value::String(APP_MIME.to_owned())]);
    settings.insert("mimeTypes".to_owned(), mimes);
    BTreeMap::from([(UI_EXTENSION.to_owned(), settings)])
}

/// Whether a tool with `ui` may be offered to the model.
pub fn visible_to_model(ui: Option<&ToolUi>) -> bool {
    ui.is_none_or(|u| u.visibility.contains(&Visibility::Model))
}

/// Whether a tool with `ui` may be called by an App of its server.
pub(crate) fn visible_to_apps(ui: Option<&ToolUi>) -> bool {
    ui.is_none_or(|u| u.visibility.contains(&Visibility::App))
}

/// The domains an App's resource declares (`_meta.ui.csp`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct AppCsp {
    /// Origins for fetch/XHR/WebSocket (`connect-src`).
    pub connect_domains: Vec<String>,
    /// Origins for scripts, styles, images, fonts and media.
    pub resource_domains: Vec<String>,
    /// Origins for nested frames (`frame-src`).
    pub frame_domains: Vec<String>,
    /// Allowed base URIs (`base-uri`).
    pub base_uri_domains: Vec<String>,
}

/// An App's UI resource, read from its server, as stored with the tool result so the App
/// renders again when the conversation is reopened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AppView {
    /// The server the App belongs to (the only one its `tools/call` may reach).
    pub server: String,
    /// The tool whose call rendered it.
    pub tool: String,
    /// The `ui://` resource.
    pub resource_uri: String,
    /// The HTML document.
    pub html: String,
    /// The domains the resource declares.
    pub csp: AppCsp,
    /// Whether it asks for a visible border (`None`: the host decides).
    pub prefers_border: Option<bool>,
}

/// Builds the Content Security Policy an App frame is served with: its inline scripts and
/// styles, the domains its resource declares (invalid ones dropped), and nothing else — in
/// particular never the app's IPC (`ipc:`, `http://ipc.localhost`) or its own origin, and no
/// local or private host.
pub fn csp_header(csp: &AppCsp) -> String {
    csp_header_allowing(csp, false)
}

/// [`csp_header`], with local and private hosts kept when `allow_private` (the user allowed
/// private addresses for the App's server); the IPC hosts stay out regardless.
pub(crate) fn csp_header_allowing(csp: &AppCsp, allow_private: bool) -> String {
    let resources = sources(&csp.resource_domains, allow_private);
    let list = |v: &[String], none: &str| {
        let s = sources(v, allow_private);
        if s.is_empty() { none.to_owned() } else { s }
    };
    let with = |base: &str| format!("{base} {resources}").trim_end().to_owned();
    [
        "default-src 'none'".to_owned(),
        format!("script-src {}", with("'unsafe-inline'")),
        format!("style-src {}", with("'unsafe-inline'")),
        format!("img-src {}", with("data: blob:")),
        format!("font-src {}", with("data:")),
        format!("media-src {}", with("data: blob:")),
        format!("connect-src {}", list(&csp.connect_domains, "'none'")),
        format!("frame-src {}", list(&csp.frame_domains, "'none'")),
        format!("base-uri {}", list(&csp.base_uri_domains, "'none'")),
        "form-action 'none'".to_owned(),
        "object-src 'none'".to_owned(),
        "worker-src 'none'".to_owned(),
    ]
    .join("; ")
}

/// The valid sources of `domains`, space-separated.
fn sources(domains: &[String], allow_private: bool) -> String {
    let valid: Vec<&str> = domains
        .iter()
        .map(|d| d.trim())
        .filter(|d| {
            let ok = valid_source_allowing(d, allow_private);
            if !ok {
                tracing::warn!(source = %d, "an MCP App declared an invalid CSP source; dropped");
            }
            ok
        })
        .collect();
    valid.join(" ")
}

/// An `http(s)://` or `ws(s)://` origin (optionally `*.` before the host, a port, a path),
/// never a keyword, a bare wildcard, the app's own IPC hosts, or a local or private host
/// (`localhost`, loopback, link-local, private addresses: see [`crate::netguard`]).
pub fn valid_source(source: &str) -> bool {
    valid_source_allowing(source, false)
}

/// [`valid_source`], with local and private hosts accepted when `allow_private`. Hosts are
/// compared case-insensitively and without a trailing dot, as browsers match them.
pub fn valid_source_allowing(source: &str, allow_private: bool) -> bool {
    let Some((scheme, rest)) = source.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "http" | "https" | "ws" | "wss") {
        return false;
    }
    let host_port = rest.split('/').next().unwrap_or_default();
    let host = host_port.split(':').next().unwrap_or_default();
    let bare = host.strip_prefix("*.").unwrap_or(host);
    let host_ok = !bare.is_empty()
        && bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        && !bare.starts_with('.');
    let normal = crate::netguard::normalize_host(bare);
    let forbidden = matches!(normal.as_str(), "ipc.localhost" | "tauri.localhost")
        || (host.starts_with("*.") && normal == "localhost");
    let local = crate::netguard::is_local_host(&normal);
    let clean = !source
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, ';' | ',' | '\'' | '"'));
    host_ok && !forbidden && clean && (allow_private || !local)
}

/// Reads an App resource's `_meta.ui` (`csp`, `prefersBorder`).
pub(crate) fn resource_meta(meta: Option<&Map<String, Value>>) -> (AppCsp, Option<bool>) {
    let ui = meta.and_then(|m| m.get("ui")).and_then(Value::as_object);
    let csp = ui
        .and_then(|u| u.get("csp"))
        .and_then(|c| serde_json::from_value::<AppCsp>(c.clone()).ok())
        .unwrap_or_default();
    let border = ui
        .and_then(|u| u.get("prefersBorder"))
        .and_then(Value::as_bool);
    (csp, border)
}

/// Whether `mime` is the App profile of HTML (parameters in any order, any spacing).
pub(crate) fn is_app_mime(mime: Option<&str>) -> bool {
    let Some(mime) = mime else { return false };
    let mut parts = mime.split(';').map(|p| p.trim().to_ascii_lowercase());
    parts.next().as_deref() == Some("text/html")
        && parts.any(|p| p.replace(' ', "") == "profile=mcp-app")
}

/// An App document ready to serve: its HTML and its CSP header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppDocument {
    /// The HTML.
    pub html: Arc<str>,
    /// The `Content-Security-Policy` header value.
    pub csp: String,
}

/// The App documents the shell serves to frames, by unguessable token; bounded.
#[derive(Clone, Debug, Default)]
pub struct AppViews {
    inner: Arc<Mutex<VecDeque<(String, AppDocument)>>>,
}

impl AppViews {
    /// Registers `html` with the CSP built from `csp`; returns its token.
    pub fn register(&self, html: &str, csp: &AppCsp) -> String {
        self.register_allowing(html, csp, false)
    }

    /// [`Self::register`], keeping local and private hosts when `allow_private`.
    pub fn register_allowing(&self, html: &str, csp: &AppCsp, allow_private: bool) -> String {
        let token = uuid::Uuid::new_v4().simple().to_string();
        let doc = AppDocument {
            html: Arc::from(html),
            csp: csp_header_allowing(csp, allow_private),
        };
        if let Ok(mut views) = self.inner.lock() {
            while views.len() >= MAX_VIEWS {
                views.pop_front();
            }
            views.push_back((token.clone(), doc));
        }
        token
    }

    /// The document registered under `token`.
    pub fn get(&self, token: &str) -> Result<AppDocument, AppError> {
        let views = self.inner.lock().ok();
        let found = views.and_then(|v| v.iter().find(|(t, _)| t == token).map(|(_, d)| d.clone()));
        found.ok_or_else(|| AppError::UnknownView {
            token: token.to_owned(),
        })
    }

    /// Forgets the document under `token` (the frame was unmounted).
    pub fn release(&self, token: &str) {
        if let Ok(mut views) = self.inner.lock() {
            views.retain(|(t, _)| t != token);
        }
    }
}

#[cfg(test)]
#[path = "app_documents_tests.rs"]
mod tests;
