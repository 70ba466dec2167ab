//! The engine's side of a remote server's OAuth client secret (or private key): set, clear
//! and ask whether one is set. The value goes to the OS keychain (account
//! [`secret_account`]) and is registered with the log redactor; it is never read back out
//! to the UI, stored in SQLite or exported.

use secrecy::SecretString;

use super::McpHost;
use crate::EngineError;
use crate::mcp::client::oauth::OAuth;
use crate::mcp::client::oauth_client::secret_account;
use crate::secrets::blocking;
use crate::vocab::server::credentials_key;
use crate::vocab::server::{ServerConfig, Transport};

impl McpHost {
    /// Stores (`Some`) or forgets (`None`) the OAuth client secret or PEM private key of the
    /// server `id_or_name`.
    pub async fn set_server_client_secret(
        &self,
        id_or_name: &str,
        secret: Option<SecretString>,
    ) -> Result<(), EngineError> {
        let record = self.store().find_server(id_or_name).await?;
        let account = secret_account(&record.config.name);
        let secrets = self.secrets().clone();
        blocking(move || match secret {
            Some(secret) => secrets.set_key(&account, &secret),
            None => secrets.delete_key(&account),
        })
        .await?;
        tracing::info!(server = %record.config.name, "changed an MCP server's OAuth client secret");
        Ok(())
    }

    /// Whether the server `id_or_name` has an OAuth client secret or private key stored.
    pub async fn server_client_secret_set(&self, id_or_name: &str) -> Result<bool, EngineError> {
        let record = self.store().find_server(id_or_name).await?;
        let account = secret_account(&record.config.name);
        let secrets = self.secrets().clone();
        Ok(blocking(move || secrets.key(&account, None).map(|k| k.is_some())).await?)
    }
}

impl super::server_secrets::ServerSecrets<'_> {
    /// Forgets the OAuth tokens and client secret of server `id` configured as `old` (its name
    /// and URL as they were), and the tokens an older version kept by its name (best effort: a
    /// keychain that cannot be reached is logged, the removal stands).
    pub(crate) async fn forget_server_secrets(&self, id: &str, old: &ServerConfig) {
        let name = old.name.as_str();
        let mut accounts = vec![secret_account(name), OAuth::legacy_account(name)];
        if let Transport::Http { url, .. } | Transport::Sse { url, .. } = &old.transport {
            accounts.push(OAuth::account(&credentials_key(id), url));
        }
        let secrets = self.host.secrets().clone();
        let forgotten = blocking(move || {
            accounts
                .iter()
                .try_for_each(|account| secrets.delete_key(account))
        })
        .await;
        if let Err(error) = forgotten {
            tracing::warn!(server = name, %error, "cannot forget the removed server's secrets");
        }
    }
}
