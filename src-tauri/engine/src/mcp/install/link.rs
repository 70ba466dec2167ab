//! Install links: `switchboard://mcp/install?name=NAME&config=BASE64` where the config is
//! one server's `mcpServers` entry as JSON (`{"command", "args", "env"}` or `{"url",
//! "headers"}`), base64 encoded — the shape of Cursor's `cursor://…/mcp/install` links.
//! [`parse`] reads and checks one and returns what it would save, shown to the user before
//! anything is saved ([`LinkPreview`]: the exact command, arguments, environment and header
//! values, URL, and what the server is allowed). A link is untrusted input: bounded, strictly
//! decoded, never run here. It may give only [`LINK_FIELDS`]: a grant (`approval`,
//! `allowPrivate`, `inheritEnv`, `cwd`, …) is the user's to give, never a link's. A link that
//! sets a loader-style variable (`NODE_OPTIONS`, `LD_PRELOAD`, …) is installed only when the
//! caller passes the names the user accepted ([`parse_to_install`]).

use std::collections::BTreeMap;

use base64::Engine as _;
use serde::Serialize;
use ts_rs::TS;

use crate::mcp::host::config;
use crate::vocab::error::InstallError;
use crate::vocab::server::{Approval, ServerConfig, Transport};

/// The only fields a link's config may have.
pub(crate) const LINK_FIELDS: &[&str] = &["type", "command", "args", "env", "url", "headers"];

/// The URL scheme the app registers with the OS.
pub const SCHEME: &str = "switchboard";

/// The longest link accepted, in bytes.
pub(crate) const MAX_LINK_BYTES: usize = 16 * 1024;

/// What an install link would save, shown before anything is saved: every value the link
/// gives, exactly, and the grants the server gets.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LinkPreview {
    /// The link as received.
    pub link: String,
    /// The server's name.
    pub name: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The program run (stdio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub command: Option<String>,
    /// Its arguments, exactly.
    pub args: Vec<String>,
    /// The environment variables it gets, with their values as the link gives them.
    pub env: BTreeMap<String, String>,
    /// The remote URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub url: Option<String>,
    /// The headers sent, with their values as the link gives them.
    pub headers: BTreeMap<String, String>,
    /// Whether its tools run without asking (a link cannot change it: always `ask`).
    pub approval: Approval,
    /// Whether it may reach private network addresses (a link cannot grant it).
    pub allow_private: bool,
    /// The app's environment variables it also gets (a link cannot grant any).
    pub inherit_env: Vec<String>,
    /// The folder it runs in (a link cannot choose one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cwd: Option<String>,
    /// The loader-style variables it sets (e.g. `NODE_OPTIONS`): the user must accept each
    /// before it is installed.
    pub risky_env: Vec<String>,
}

/// The configuration install link `link` saves, refused when it sets a loader-style variable
/// that is not in `accepted` (the names the user ticked in the preview).
pub(crate) fn parse_to_install(
    link: &str,
    accepted: &[String],
) -> Result<ServerConfig, InstallError> {
    let (shown, config) = parse(link)?;
    let unaccepted: Vec<&str> = (shown.risky_env.iter())
        .filter(|name| !accepted.contains(name))
        .map(String::as_str)
        .collect();
    match unaccepted.is_empty() {
        true => Ok(config),
        false => Err(InstallError::Link(format!(
            "it sets {}, which can make the server run other code; accept it in the preview first",
            unaccepted.join(", ")
        ))),
    }
}

/// Reads install link `link`: its preview and the configuration it would save.
pub(crate) fn parse(link: &str) -> Result<(LinkPreview, ServerConfig), InstallError> {
    let bad = |why: &str| InstallError::Link(why.to_owned());
    if link.len() > MAX_LINK_BYTES {
        return Err(bad(&format!("it is longer than {MAX_LINK_BYTES} bytes")));
    }
    let url = url::Url::parse(link.trim()).map_err(|e| bad(&format!("it is not a URL ({e})")))?;
    if url.scheme() != SCHEME {
        return Err(bad(&format!("it is not a {SCHEME}:// link")));
    }
    let route = format!("{}{}", url.host_str().unwrap_or(""), url.path());
    if route.trim_end_matches('/') != "mcp/install" {
        return Err(bad(&format!("{SCHEME}://{route} is not an install link")));
    }
    let (name, encoded) = query(&url)?;
    let json = decode(&encoded)?;
    let config = server_config(&name, &json)?;
    Ok((preview(link.trim(), &config), config))
}

/// The `name` and `config` parameters, each exactly once.
fn query(url: &url::Url) -> Result<(String, String), InstallError> {
    let (mut name, mut config) = (None, None);
    for (key, value) in url.query_pairs() {
        let slot = match key.as_ref() {
            "name" => &mut name,
            "config" => &mut config,
            _ => continue,
        };
        if slot.replace(value.into_owned()).is_some() {
            return Err(InstallError::Link(format!("it gives {key} more than once")));
        }
    }
    let name = name.filter(|n| !n.trim().is_empty());
    let name = name.ok_or_else(|| InstallError::Link("it has no server name".to_owned()))?;
    let config = config.ok_or_else(|| InstallError::Link("it has no config".to_owned()))?;
    if name.chars().any(char::is_control) {
        return Err(InstallError::Link(
            "its name has control characters".to_owned(),
        ));
    }
    Ok((name.trim().to_owned(), config))
}

/// The config's JSON text: base64 (standard or URL-safe, padded or not) of a UTF-8 object.
fn decode(encoded: &str) -> Result<serde_json::Value, InstallError> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let text = encoded.trim();
    let bytes = [STANDARD, URL_SAFE, STANDARD_NO_PAD, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(text).ok())
        .ok_or_else(|| InstallError::Link("its config is not base64".to_owned()))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| InstallError::Link(format!("its config is not JSON ({e})")))?;
    match value.is_object() {
        true => Ok(value),
        false => Err(InstallError::Link(
            "its config is not a JSON object".to_owned(),
        )),
    }
}

/// The server `config` describes, checked as an `mcpServers` entry named `name`; only a
/// command or a URL (a link cannot configure a built-in server).
fn server_config(name: &str, config: &serde_json::Value) -> Result<ServerConfig, InstallError> {
    let fields = config.as_object().into_iter().flat_map(|o| o.keys());
    if let Some(field) = fields
        .into_iter()
        .find(|f| !LINK_FIELDS.contains(&f.as_str()))
    {
        return Err(InstallError::Link(format!(
            "it sets {field:?}, which a link may not; it may give only {}",
            LINK_FIELDS.join(", ")
        )));
    }
    let doc = serde_json::json!({ "mcpServers": { name: config } });
    let mut parsed = config::parse(&doc.to_string())
        .map_err(|e| InstallError::Link(format!("its config is not a server: {e}")))?;
    let server = match (parsed.pop(), parsed.is_empty()) {
        (Some(server), true) => server,
        _ => return Err(InstallError::Link("it must describe one server".to_owned())),
    };
    if matches!(server.transport, Transport::Builtin { .. }) {
        return Err(InstallError::Link(
            "it may only give a command or a URL".to_owned(),
        ));
    }
    Ok(server)
}

fn preview(link: &str, config: &ServerConfig) -> LinkPreview {
    let mut shown = LinkPreview {
        link: link.to_owned(),
        name: config.name.clone(),
        transport: String::new(),
        command: None,
        args: vec![],
        env: BTreeMap::new(),
        url: None,
        headers: BTreeMap::new(),
        approval: config.approval,
        allow_private: config.allow_private,
        inherit_env: config.inherit_env.clone(),
        cwd: None,
        risky_env: config::risky_env(config),
    };
    match &config.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            shown.transport = "stdio".to_owned();
            shown.command = Some(command.clone());
            shown.args = args.clone();
            shown.env = env.clone();
            shown.cwd = cwd.as_ref().map(|p| p.display().to_string());
        }
        Transport::Http { url, headers } | Transport::Sse { url, headers } => {
            let sse = matches!(config.transport, Transport::Sse { .. });
            shown.transport = if sse { "sse" } else { "http" }.to_owned();
            shown.url = Some(url.clone());
            shown.headers = headers.clone();
        }
        Transport::Builtin { .. } => {}
    }
    shown
}

#[cfg(test)]
#[path = "link_tests.rs"]
mod tests;
