//! Writing configs back as an `mcpServers` document: Claude Desktop's fields, then ours
//! (timeouts, `autoStart`, `approval`, built-in servers) when they are not the defaults.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::vocab::server::{Approval, OAuthClient, ServerConfig};
use crate::vocab::server::{ServerSpec, Transport};

/// One entry as written back to the file: Claude Desktop's fields, then ours when not default.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Entry<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    env: Option<&'a BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", rename = "type")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    headers: Option<&'a BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    builtin: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allow_private: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    folders: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    settings: Option<&'a BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    disabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    startup_timeout_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    call_timeout_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    auto_start: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    approval: Option<Approval>,
    #[serde(skip_serializing_if = "Option::is_none")]
    oauth: Option<&'a OAuthClient>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inherit_env: Option<&'a [String]>,
}

fn non_empty<K, V>(m: &BTreeMap<K, V>) -> Option<&BTreeMap<K, V>> {
    (!m.is_empty()).then_some(m)
}

fn unless_default(d: Duration, default: Duration) -> Option<u64> {
    (d != default).then(|| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl<'a> From<&'a ServerConfig> for Entry<'a> {
    fn from(s: &'a ServerConfig) -> Self {
        let mut e = Entry {
            command: None,
            args: None,
            env: None,
            cwd: None,
            kind: None,
            url: None,
            headers: None,
            builtin: None,
            allow_private: s.allow_private.then_some(true),
            folders: None,
            settings: None,
            disabled: (!s.enabled).then_some(true),
            startup_timeout_ms: unless_default(s.startup_timeout, ServerSpec::STARTUP_TIMEOUT),
            call_timeout_ms: unless_default(s.call_timeout, ServerSpec::CALL_TIMEOUT),
            auto_start: (!s.auto_start).then_some(false),
            approval: (s.approval != Approval::Ask).then_some(s.approval),
            oauth: (!s.oauth.is_default()).then_some(&s.oauth),
            inherit_env: (!s.inherit_env.is_empty()).then_some(s.inherit_env.as_slice()),
        };
        match &s.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                e.command = Some(command);
                e.args = Some(args);
                e.env = non_empty(env);
                e.cwd = cwd.as_ref().map(|p| p.display().to_string());
            }
            Transport::Http { url, headers } | Transport::Sse { url, headers } => {
                let sse = matches!(s.transport, Transport::Sse { .. });
                e.kind = Some(if sse { "sse" } else { "http" });
                e.url = Some(url);
                e.headers = non_empty(headers);
            }
            Transport::Builtin {
                server,
                allow_private,
                folders,
                env,
                settings,
            } => {
                e.kind = Some("builtin");
                e.env = non_empty(env);
                e.settings = non_empty(settings);
                e.builtin = Some(server);
                e.allow_private = allow_private.then_some(true);
                let folders = folders.iter().map(|f| f.display().to_string());
                e.folders = (folders.len() != 0).then(|| folders.collect());
            }
        }
        e
    }
}

/// The configs as an `mcpServers` document (pretty JSON, servers by name); [`super::parse`] reads
/// it back to the same configs.
pub fn export(configs: &[ServerConfig]) -> String {
    let servers: BTreeMap<&str, Entry<'_>> = configs
        .iter()
        .map(|c| (c.name.as_str(), Entry::from(c)))
        .collect();
    let doc = BTreeMap::from([("mcpServers", servers)]);
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}
