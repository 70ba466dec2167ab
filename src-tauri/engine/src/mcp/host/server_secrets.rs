//! Where a configured server's env values (stdio) and header values (remote) live: the OS
//! keychain, like provider keys, one entry per server (account [`account`], the values as a
//! JSON object keyed by name), never SQLite, logs or exports. The database keeps the names
//! with blank values; the UI sees [`SECRET_MASK`] for each value and sends it back to keep the
//! stored one, as long as the server is still the same one ([`identity`]: the command of a
//! stdio server, the URL's origin of a remote one); after that changed a masked value that has
//! a stored one is refused and must be typed again, so a kept `Authorization` never goes to a
//! new host. A server is given its values only when it starts ([`ServerSecrets::runnable`]).
//! Values a database written by an older version still holds move to the keychain at start
//! ([`ServerSecrets::move_server_secrets`]).

use std::collections::BTreeMap;

use secrecy::{ExposeSecret, SecretString};

use super::McpHost;
use crate::EngineError;
use crate::secrets::{SecretError, blocking};
use crate::store::ServerRecord;
use crate::vocab::error::ConfigError;
use crate::vocab::server::{SECRET_MASK, secrets_of, secrets_of_mut};
use crate::vocab::server::{ServerConfig, Transport};

/// The keychain account holding the env or header values of the server with this id.
pub fn account(id: &str) -> String {
    format!("mcp-server-values:{id}")
}

/// `config`'s env or header values, the empty ones left out.
fn values_of(config: &ServerConfig) -> BTreeMap<String, String> {
    (secrets_of(&config.transport).iter())
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `record` as it leaves the engine: its values masked.
pub(crate) fn masked(mut record: ServerRecord) -> ServerRecord {
    record.config = record.config.masked();
    record
}

/// Who a server's values are for: `command NAME` (stdio), the URL's origin (remote), or
/// `builtin:NAME`.
pub(crate) fn identity(config: &ServerConfig) -> String {
    match &config.transport {
        Transport::Stdio { command, .. } => format!("command {command}"),
        Transport::Http { url, .. } | Transport::Sse { url, .. } => match url::Url::parse(url) {
            Ok(parsed) => parsed.origin().ascii_serialization(),
            Err(_) => url.clone(),
        },
        Transport::Builtin { server, .. } => format!("builtin:{server}"),
    }
}

/// The refusal of `new`'s masked values that `stored` holds a value for, when `new` is not
/// the same server as `old` ([`identity`]); none when they may be kept.
fn refuse_moved(
    old: &ServerConfig,
    new: &ServerConfig,
    stored: &BTreeMap<String, String>,
) -> Option<ConfigError> {
    let (was, now) = (identity(old), identity(new));
    if was == now {
        return None;
    }
    let kind = match new.transport {
        Transport::Stdio { .. } => "env",
        _ => "header",
    };
    let errors: Vec<String> = (secrets_of(&new.transport).iter())
        .filter(|(name, v)| *v == SECRET_MASK && stored.get(*name).is_some_and(|s| !s.is_empty()))
        .map(|(name, _)| {
            format!(
                "server {:?}: the {kind} value {name} was kept for {was}, and the server is now \
                 {now}; type the value again",
                new.name
            )
        })
        .collect();
    ConfigError::from_list(errors)
}

/// `new` with each [`SECRET_MASK`] value replaced by the value `old` holds under that name
/// (blank when it holds none).
fn keep_masked(new: &mut ServerConfig, old: &BTreeMap<String, String>) {
    for (name, value) in secrets_of_mut(&mut new.transport).iter_mut() {
        if value == SECRET_MASK {
            *value = old.get(name).cloned().unwrap_or_default();
        }
    }
}

impl McpHost {
    /// A configured server's values in the keychain.
    pub(crate) fn server_secrets(&self) -> ServerSecrets<'_> {
        ServerSecrets { host: self }
    }
}

/// A configured server's env and header values (and OAuth client secret) in the keychain,
/// on the host's store and secrets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ServerSecrets<'a> {
    pub(super) host: &'a McpHost,
}

impl ServerSecrets<'_> {
    /// The stored env or header values of server `id`.
    pub(crate) async fn server_values(
        &self,
        id: &str,
    ) -> Result<BTreeMap<String, String>, EngineError> {
        let (secrets, account) = (self.host.secrets().clone(), account(id));
        let stored = blocking(move || secrets.key(&account, None)).await?;
        let Some((json, _)) = stored else {
            return Ok(BTreeMap::new());
        };
        serde_json::from_str(json.expose_secret()).map_err(|e| {
            let reason = format!("the stored values of server {id} are unreadable: {e}");
            EngineError::from(SecretError::Store {
                store: "secret store".into(),
                reason,
            })
        })
    }

    /// Stores `config`'s non-empty env or header values as server `id`'s (none: the entry is
    /// removed) and keeps them out of the logs.
    pub(crate) async fn seal(&self, id: &str, config: &ServerConfig) -> Result<(), EngineError> {
        let values = values_of(config);
        self.host.guard_secrets(std::slice::from_ref(config));
        let (secrets, account) = (self.host.secrets().clone(), account(id));
        if values.is_empty() {
            return Ok(blocking(move || secrets.delete_key(&account)).await?);
        }
        let json = serde_json::to_string(&values).unwrap_or_default();
        let secret = SecretString::from(json);
        let stored = blocking(move || secrets.set_key(&account, &secret)).await;
        Ok(stored.map_err(|e| match e {
            SecretError::Unavailable(why) => SecretError::NoPlaceForServerValues(why),
            other => other,
        })?)
    }

    /// Forgets server `id`'s env and header values (best effort: it was removed).
    pub(crate) async fn unseal_forget(&self, id: &str) {
        let (secrets, account) = (self.host.secrets().clone(), account(id));
        if let Err(error) = blocking(move || secrets.delete_key(&account)).await {
            tracing::warn!(server = id, %error, "cannot forget a removed server's values");
        }
    }

    /// `new` with the values the user left masked taken from server `id`'s stored ones;
    /// refused (one line per value: type it again) when `new` is no longer the same server
    /// ([`identity`]: another command, another URL origin) and a masked value has a stored one.
    pub(crate) async fn with_kept_values(
        &self,
        id: &str,
        mut new: ServerConfig,
    ) -> Result<ServerConfig, EngineError> {
        let masked = secrets_of(&new.transport)
            .values()
            .any(|v| v == SECRET_MASK);
        if masked {
            let stored = self.server_values(id).await?;
            let old = self.host.store().find_server(id).await?;
            if let Some(refused) = refuse_moved(&old.config, &new, &stored) {
                return Err(refused.into());
            }
            keep_masked(&mut new, &stored);
        }
        Ok(new)
    }

    /// `record`'s configuration with its values filled in from the keychain: what the server
    /// is started with (and what `servers export --with-secrets` writes).
    pub(crate) async fn runnable(&self, record: ServerRecord) -> Result<ServerConfig, EngineError> {
        let mut config = record.config;
        config.id = Some(record.id.clone());
        let values = self.server_values(&record.id).await?;
        for (name, value) in secrets_of_mut(&mut config.transport).iter_mut() {
            if let Some(stored) = values.get(name) {
                stored.clone_into(value);
            }
        }
        crate::mcp::host::secret_args::fill_secret_args(&mut config);
        self.host.guard_secrets(std::slice::from_ref(&config));
        Ok(config)
    }

    /// Moves the env and header values an older version left in the database to the keychain
    /// and blanks them there (zeroed on disk, WAL included). Returns how many servers moved.
    pub(crate) async fn move_server_secrets(&self) -> Result<usize, EngineError> {
        let records = self.host.store().list_servers().await?;
        let mut moved = 0;
        for record in records.iter().filter(|r| !values_of(&r.config).is_empty()) {
            let mut values = self.server_values(&record.id).await?;
            values.extend(values_of(&record.config));
            let mut config = record.config.clone();
            secrets_of_mut(&mut config.transport).extend(values);
            self.seal(&record.id, &config).await?;
            self.host.store().update_server(&record.id, &config).await?;
            moved += 1;
        }
        if moved > 0 {
            self.host.store().checkpoint().await?;
            tracing::info!(
                servers = moved,
                "moved MCP server env and header values to the keychain"
            );
        }
        Ok(moved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::server::Transport;

    fn stdio(env: &[(&str, &str)]) -> ServerConfig {
        let env = env
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        let transport = Transport::Stdio {
            command: "srv".into(),
            args: vec![],
            env,
            cwd: None,
        };
        ServerConfig::new("s", transport)
    }

    #[test]
    fn a_masked_value_keeps_the_stored_one_and_a_new_value_replaces_it() {
        let mut new = stdio(&[
            ("TOKEN", SECRET_MASK),
            ("REGION", "eu"),
            ("NEW", SECRET_MASK),
        ]);
        let old = BTreeMap::from([
            ("TOKEN".to_owned(), "t0ps3cret".to_owned()),
            ("REGION".to_owned(), "us".to_owned()),
        ]);
        keep_masked(&mut new, &old);
        let values = secrets_of(&new.transport);
        assert_eq!(values["TOKEN"], "t0ps3cret");
        assert_eq!(values["REGION"], "eu");
        assert_eq!(
            values["NEW"], "",
            "a masked value with nothing stored is blank"
        );
    }

    fn remote(url: &str, headers: &[(&str, &str)]) -> ServerConfig {
        let headers = (headers.iter())
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        let transport = Transport::Http {
            url: url.into(),
            headers,
        };
        ServerConfig::new("r", transport)
    }

    #[test]
    fn a_masked_value_sent_back_after_the_url_origin_changed_must_be_typed_again() {
        let stored = BTreeMap::from([("Authorization".to_owned(), "Bearer s3cret".to_owned())]);
        let old = remote("https://api.example.com/mcp", &[("Authorization", "")]);
        let moved = remote(
            "https://evil.example.net/mcp",
            &[("Authorization", SECRET_MASK)],
        );
        let error = refuse_moved(&old, &moved, &stored).unwrap().to_string();
        assert_eq!(
            error,
            "server \"r\": the header value Authorization was kept for https://api.example.com, \
             and the server is now https://evil.example.net; type the value again"
        );
        let same = remote(
            "https://api.example.com/v2/mcp",
            &[("Authorization", SECRET_MASK)],
        );
        assert!(refuse_moved(&old, &same, &stored).is_none(), "same origin");
        let typed = remote(
            "https://evil.example.net/mcp",
            &[("Authorization", "Bearer new")],
        );
        assert!(refuse_moved(&old, &typed, &stored).is_none(), "typed again");
        let other = stdio(&[("TOKEN", SECRET_MASK)]);
        let mut moved = other.clone();
        if let Transport::Stdio { command, .. } = &mut moved.transport {
            *command = "/tmp/other".into();
        }
        let stored = BTreeMap::from([("TOKEN".to_owned(), "t".to_owned())]);
        assert!(
            refuse_moved(&other, &moved, &stored).is_some(),
            "another command"
        );
    }

    #[test]
    fn masking_hides_every_value_and_keeps_every_name() {
        let masked = stdio(&[("A", "1"), ("B", "secret")]).masked();
        let values = secrets_of(&masked.transport);
        assert_eq!(values.keys().collect::<Vec<_>>(), ["A", "B"]);
        assert!(values.values().all(|v| v == SECRET_MASK));
    }
}
