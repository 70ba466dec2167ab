//! API keys and tokens: never in SQLite, logs, exports or the webview. They live in a
//! [`SecretStore`] — the OS keychain (Secret Service on Linux, through keyring-core), an
//! in-memory store for tests, or an explicit opt-in file (0600) when no keychain exists — and
//! environment variables (`OPENAI_API_KEY`, …) are honoured first. Every key read or written is
//! registered with the log [`Redactor`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use keyring_core::{CredentialStore, Entry};
use secrecy::{ExposeSecret, SecretString};

use crate::logging::Redactor;

/// The keychain "service" our entries are filed under.
pub const SERVICE: &str = "app.switchboard.desktop";

/// A problem with a secret store.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// No keychain is reachable and the file fallback is off.
    #[error(
        "no keychain is available ({0}); set the provider's environment variable, or start Switchboard with --secrets-file to keep keys in a private file"
    )]
    Unavailable(String),
    /// No keychain is reachable for a server's env or header values (file fallback off).
    #[error(
        "no keychain is available ({0}) to keep the server's env and header values; start Switchboard with --secrets-file to keep them in a private file readable only by you"
    )]
    NoPlaceForServerValues(String),
    /// The store refused or failed.
    #[error("the {store} failed: {reason}")]
    Store {
        /// Which store.
        store: String,
        /// Why.
        reason: String,
    },
}

/// Somewhere secrets can be kept, by account name (e.g. `provider:<id>`).
pub trait SecretStore: Send + Sync {
    /// The secret of `account`, if one is stored.
    fn get(&self, account: &str) -> Result<Option<SecretString>, SecretError>;
    /// Stores (or replaces) the secret of `account`.
    fn set(&self, account: &str, secret: &SecretString) -> Result<(), SecretError>;
    /// Removes the secret of `account`; removing nothing is fine.
    fn delete(&self, account: &str) -> Result<(), SecretError>;
    /// A short name for messages: "Secret Service keychain", "secrets file …".
    fn describe(&self) -> String;
}

/// A keyring-core credential store: the OS keychain, or keyring-core's mock store in tests.
pub struct KeyringSecrets {
    /// Always `Some` until dropped (see `Drop`).
    store: Option<Arc<CredentialStore>>,
    name: String,
}

impl Drop for KeyringSecrets {
    /// The Secret Service client blocks on its own runtime when dropped, which panics inside
    /// an async context: drop it on a plain thread.
    fn drop(&mut self) {
        if let Some(store) = self.store.take() {
            let _ = std::thread::spawn(move || drop(store)).join();
        }
    }
}

impl KeyringSecrets {
    /// The Secret Service keychain (GNOME Keyring, KWallet) over D-Bus.
    #[cfg(target_os = "linux")]
    pub fn secret_service() -> Result<Self, SecretError> {
        let store = zbus_secret_service_keyring_store::Store::new()
            .map_err(|e| SecretError::Unavailable(e.to_string()))?;
        let store: Arc<CredentialStore> = store;
        let probe = Entry::new_in_store(&store, SERVICE, "probe")
            .map_err(|e| SecretError::Unavailable(e.to_string()))?;
        match probe.get_password() {
            Ok(_) | Err(keyring_core::Error::NoEntry) => {}
            Err(e) => return Err(SecretError::Unavailable(e.to_string())),
        }
        Ok(Self {
            store: Some(store),
            name: "Secret Service keychain".into(),
        })
    }

    /// keyring-core's in-memory mock store (tests).
    pub fn mock() -> Result<Self, SecretError> {
        let store: Arc<CredentialStore> = keyring_core::mock::Store::new()
            .map_err(|e| SecretError::Unavailable(e.to_string()))?;
        Ok(Self {
            store: Some(store),
            name: "in-memory keychain".into(),
        })
    }

    fn entry(&self, account: &str) -> Result<Entry, SecretError> {
        let store = self.store.as_ref().ok_or_else(|| SecretError::Store {
            store: self.name.clone(),
            reason: "the store was closed".into(),
        })?;
        Entry::new_in_store(store, SERVICE, account).map_err(|e| self.failed(e))
    }

    fn failed(&self, e: keyring_core::Error) -> SecretError {
        SecretError::Store {
            store: self.name.clone(),
            reason: e.to_string(),
        }
    }
}

impl SecretStore for KeyringSecrets {
    fn get(&self, account: &str) -> Result<Option<SecretString>, SecretError> {
        match self.entry(account)?.get_password() {
            Ok(p) => Ok(Some(SecretString::from(p))),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(e) => Err(self.failed(e)),
        }
    }

    fn set(&self, account: &str, secret: &SecretString) -> Result<(), SecretError> {
        self.entry(account)?
            .set_password(secret.expose_secret())
            .map_err(|e| self.failed(e))
    }

    fn delete(&self, account: &str) -> Result<(), SecretError> {
        match self.entry(account)?.delete_credential() {
            Ok(()) | Err(keyring_core::Error::NoEntry) => Ok(()),
            Err(e) => Err(self.failed(e)),
        }
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}

/// The opt-in fallback: a JSON file readable only by the user (0600).
pub struct FileSecrets {
    path: PathBuf,
    lock: Mutex<()>,
}

impl FileSecrets {
    /// Keeps secrets in `path` (created on first write).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        tracing::warn!("API keys are kept in a private file, not an OS keychain");
        Self {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    fn read(&self) -> Result<BTreeMap<String, String>, SecretError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.failed(e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(self.failed(e)),
        }
    }

    fn write(&self, map: &BTreeMap<String, String>) -> Result<(), SecretError> {
        let bytes = serde_json::to_vec_pretty(map).map_err(|e| self.failed(e))?;
        write_private(&self.path, &bytes).map_err(|e| self.failed(e))
    }

    fn failed(&self, e: impl std::fmt::Display) -> SecretError {
        SecretError::Store {
            store: self.describe(),
            reason: e.to_string(),
        }
    }

    fn update(&self, f: impl FnOnce(&mut BTreeMap<String, String>)) -> Result<(), SecretError> {
        let _guard = self.lock.lock().map_err(|e| self.failed(e))?;
        let mut map = self.read()?;
        f(&mut map);
        self.write(&map)
    }
}

/// Writes `bytes` to `path` through a temporary file created with mode 0600.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}

impl SecretStore for FileSecrets {
    fn get(&self, account: &str) -> Result<Option<SecretString>, SecretError> {
        Ok(self.read()?.remove(account).map(SecretString::from))
    }

    fn set(&self, account: &str, secret: &SecretString) -> Result<(), SecretError> {
        let value = secret.expose_secret().to_owned();
        self.update(|m| {
            m.insert(account.to_owned(), value);
        })
    }

    fn delete(&self, account: &str) -> Result<(), SecretError> {
        self.update(|m| {
            m.remove(account);
        })
    }

    fn describe(&self) -> String {
        format!("secrets file {}", self.path.display())
    }
}

/// No store: reads find nothing, writes explain what to do instead.
pub struct NoSecrets(pub String);

impl SecretStore for NoSecrets {
    fn get(&self, _: &str) -> Result<Option<SecretString>, SecretError> {
        Ok(None)
    }
    fn set(&self, _: &str, _: &SecretString) -> Result<(), SecretError> {
        Err(SecretError::Unavailable(self.0.clone()))
    }
    fn delete(&self, _: &str) -> Result<(), SecretError> {
        Ok(())
    }
    fn describe(&self) -> String {
        "no keychain".into()
    }
}

/// The store for this machine: the OS keychain when reachable; else, if the user opted in,
/// `secrets.json` (0600) in `config_dir`; else a store that explains how to provide keys.
pub fn choose_store(config_dir: &Path, file_fallback: bool) -> Arc<dyn SecretStore> {
    let keychain = keychain();
    match keychain {
        Ok(store) => Arc::new(store),
        Err(_) if file_fallback => Arc::new(FileSecrets::new(config_dir.join("secrets.json"))),
        Err(e) => {
            tracing::info!(error = %e, "no keychain; keys only from the environment");
            let reason = match e {
                SecretError::Unavailable(r) => r,
                other => other.to_string(),
            };
            Arc::new(NoSecrets(reason))
        }
    }
}

#[cfg(target_os = "linux")]
fn keychain() -> Result<KeyringSecrets, SecretError> {
    KeyringSecrets::secret_service()
}

#[cfg(not(target_os = "linux"))]
fn keychain() -> Result<KeyringSecrets, SecretError> {
    Err(SecretError::Unavailable(
        "this platform's keychain is not wired yet".into(),
    ))
}

/// Reads an environment variable; injectable so tests never touch the process environment.
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The process environment.
pub fn process_env() -> EnvLookup {
    Arc::new(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
}

/// Where a key came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// An environment variable.
    Env,
    /// The secret store.
    Store,
}

/// Keys for the engine: environment first, then the store; every key seen is redacted.
#[derive(Clone)]
pub struct Secrets {
    store: Arc<dyn SecretStore>,
    env: EnvLookup,
    redactor: Redactor,
}

impl Secrets {
    /// Secrets from `store` and `env`, redacted in logs by `redactor`.
    pub fn new(store: Arc<dyn SecretStore>, env: EnvLookup, redactor: Redactor) -> Self {
        Self {
            store,
            env,
            redactor,
        }
    }

    /// The store itself, for tokens that are not keys (e.g. MCP servers' OAuth tokens).
    pub fn store(&self) -> Arc<dyn SecretStore> {
        self.store.clone()
    }

    /// The key for `account`: the environment variable `env_var` when set, else the store.
    pub fn key(
        &self,
        account: &str,
        env_var: Option<&str>,
    ) -> Result<Option<(SecretString, KeySource)>, SecretError> {
        let found = match env_var.and_then(|v| (self.env)(v)) {
            Some(v) => Some((SecretString::from(v), KeySource::Env)),
            None => self.store.get(account)?.map(|k| (k, KeySource::Store)),
        };
        if let Some((k, _)) = &found {
            self.redactor.add(k.expose_secret());
        }
        Ok(found)
    }

    /// Stores the key of `account`.
    pub fn set_key(&self, account: &str, key: &SecretString) -> Result<(), SecretError> {
        self.redactor.add(key.expose_secret());
        self.store.set(account, key)
    }

    /// Forgets the key of `account`.
    pub fn delete_key(&self, account: &str) -> Result<(), SecretError> {
        self.store.delete(account)
    }

    /// The store's name.
    pub fn describe(&self) -> String {
        self.store.describe()
    }
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secrets")
            .field("store", &self.store.describe())
            .finish_non_exhaustive()
    }
}

/// Runs a blocking secret-store call off the async threads.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, SecretError> + Send + 'static,
) -> Result<T, SecretError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| SecretError::Store {
            store: "secret store".into(),
            reason: e.to_string(),
        })?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&'static str, &'static str)]) -> EnvLookup {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        Arc::new(move |k| map.get(k).cloned())
    }

    #[test]
    fn the_environment_wins_over_the_store_and_both_are_redacted() {
        let redactor = Redactor::default();
        let store = Arc::new(KeyringSecrets::mock().unwrap());
        let secrets = Secrets::new(
            store,
            env(&[("OPENAI_API_KEY", "sk-from-env-123")]),
            redactor.clone(),
        );
        secrets
            .set_key("provider:a", &SecretString::from("sk-stored-456"))
            .unwrap();
        let (k, src) = secrets
            .key("provider:a", Some("OPENAI_API_KEY"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (k.expose_secret(), src),
            ("sk-from-env-123", KeySource::Env)
        );
        let (k, src) = secrets
            .key("provider:a", Some("UNSET_VAR"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (k.expose_secret(), src),
            ("sk-stored-456", KeySource::Store)
        );
        assert_eq!(
            redactor.scrub("a sk-from-env-123 b sk-stored-456"),
            "a [REDACTED] b [REDACTED]"
        );
    }

    #[test]
    fn the_mock_keychain_stores_replaces_and_deletes() {
        let store = KeyringSecrets::mock().unwrap();
        assert!(store.get("x").unwrap().is_none());
        store.set("x", &SecretString::from("one")).unwrap();
        store.set("x", &SecretString::from("two")).unwrap();
        assert_eq!(store.get("x").unwrap().unwrap().expose_secret(), "two");
        store.delete("x").unwrap();
        store.delete("x").unwrap();
        assert!(store.get("x").unwrap().is_none());
    }

    #[test]
    fn the_file_fallback_is_private_to_the_user() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secrets.json");
        let store = FileSecrets::new(&path);
        store
            .set("provider:a", &SecretString::from("sk-file"))
            .unwrap();
        assert_eq!(
            store.get("provider:a").unwrap().unwrap().expose_secret(),
            "sk-file"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        store.delete("provider:a").unwrap();
        assert!(store.get("provider:a").unwrap().is_none());
    }

    #[test]
    fn without_a_keychain_writes_say_what_to_do() {
        let err = NoSecrets("no D-Bus session".into())
            .set("a", &SecretString::from("k"))
            .unwrap_err();
        assert!(err.to_string().starts_with(
            "no keychain is available (no D-Bus session); set the provider's environment variable"
        ));
    }
}
