//! The security-relevant fields of a server an import would add or replace, for its preview:
//! everything that decides what the server may do or receive beyond its command line —
//! approval, private addresses, folders, working directory, auto-start, the names (never the
//! values) of its env variables and headers, the variables it inherits — each marked when it
//! widens trust beyond the defaults.

use serde::Serialize;
use ts_rs::TS;

use crate::vocab::server::{Approval, ServerConfig, Transport};

/// One security-relevant field of a previewed server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TrustNote {
    /// The field as written in the `mcpServers` document, e.g. `approval`, `allowPrivate`.
    pub field: String,
    /// Its value (names only for env, headers and inherited variables).
    pub value: String,
    /// Whether it gives the server more than the defaults (tools run unasked, private
    /// addresses, files, inherited variables).
    pub widens: bool,
}

fn note(field: &str, value: impl Into<String>, widens: bool) -> TrustNote {
    TrustNote {
        field: field.to_owned(),
        value: value.into(),
        widens,
    }
}

fn names<'a>(keys: impl Iterator<Item = &'a String>) -> String {
    keys.map(String::as_str).collect::<Vec<_>>().join(", ")
}

/// The security-relevant fields of `config` that differ from the defaults, in a fixed order.
pub(crate) fn trust_notes(config: &ServerConfig) -> Vec<TrustNote> {
    let mut notes = Vec::new();
    match config.approval {
        Approval::Allow => notes.push(note("approval", "allow", true)),
        Approval::Deny => notes.push(note("approval", "deny", false)),
        Approval::Ask => {}
    }
    if config.allows_private() {
        notes.push(note("allowPrivate", "true", true));
    }
    if config.enabled && config.auto_start {
        notes.push(note("autoStart", "true", false));
    }
    match &config.transport {
        Transport::Stdio { env, cwd, .. } => {
            if let Some(cwd) = cwd {
                notes.push(note("cwd", cwd.display().to_string(), false));
            }
            if !env.is_empty() {
                notes.push(note("env", names(env.keys()), false));
            }
        }
        Transport::Http { headers, .. } | Transport::Sse { headers, .. } => {
            if !headers.is_empty() {
                notes.push(note("headers", names(headers.keys()), false));
            }
        }
        Transport::Builtin {
            server,
            folders,
            env,
            settings,
            ..
        } => {
            if !env.is_empty() {
                notes.push(note("env", names(env.keys()), false));
            }
            for (name, value) in settings {
                notes.push(note(name, value.clone(), false));
            }
            if server == "filesystem" {
                let value = match folders.is_empty() {
                    true => "(the user's roots)".to_owned(),
                    false => {
                        let shown: Vec<String> =
                            folders.iter().map(|f| f.display().to_string()).collect();
                        shown.join(", ")
                    }
                };
                notes.push(note("folders", value, true));
            }
        }
    }
    if !config.inherit_env.is_empty() {
        notes.push(note("inheritEnv", names(config.inherit_env.iter()), true));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_builtin_fetch_allowed_private_addresses_and_every_call_shows_both() {
        let doc = r#"{"fetch":{"builtin":"fetch","allowPrivate":true,"approval":"allow"}}"#;
        let config = crate::mcp::host::config::parse(doc)
            .ok()
            .and_then(|c| c.into_iter().next());
        let notes = config.map(|c| trust_notes(&c)).unwrap_or_default();
        assert_eq!(
            notes,
            vec![
                note("approval", "allow", true),
                note("allowPrivate", "true", true),
                note("autoStart", "true", false),
            ]
        );
    }
}
