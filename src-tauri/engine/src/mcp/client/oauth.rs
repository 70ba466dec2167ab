//! Remote OAuth for streamable HTTP servers (OAuth 2.1, PKCE, dynamic client registration or a
//! pre-registered client), on rmcp's `auth` feature. Authorization is reactive: a request goes
//! out unauthenticated (or with the stored token) and a 401 challenge starts [`OAuth::authorize`]:
//! discover the authorization server from the challenge, register, open the authorize URL
//! through an [`Authorizer`] (the system browser in the app), catch the redirect on a loopback
//! listener on 127.0.0.1 (random port), exchange the code for tokens. Tokens (and the
//! registered client id) live in the OS keychain through [`SecretStore`], under the account
//! `mcp-oauth:id:<server id>@<canonical URL>` ([`OAuth::account`]), never in SQLite or the
//! logs: a token is only ever sent to the endpoint it was granted for, whatever the server's
//! configuration becomes (and a change of URL or name, a replace or a removal deletes it).

mod beside;
mod loopback;
mod machine;
pub(crate) mod net;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession, CredentialStore,
    StoredCredentials,
};
use secrecy::{ExposeSecret, SecretString};

pub use loopback::Loopback;

use super::oauth_client::secret_account;
use crate::logging::Redactor;
use crate::secrets::SecretStore;
use crate::vocab::server::canonical_url;
use crate::vocab::server::{OAuthClient, OAuthGrant};

/// How long we wait, by default, for the user to approve in the browser.
pub(crate) const APPROVAL_WAIT: Duration = Duration::from_secs(300);
/// The client name sent in dynamic client registration.
const CLIENT_NAME: &str = "Switchboard";

/// A failure of the OAuth flow.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// Discovery, registration or the token exchange failed.
    #[error("authorization with the server failed: {0}")]
    Flow(String),
    /// The authorize URL could not be opened (no browser, or the headless fetch failed).
    #[error("cannot open the authorization page: {0}")]
    Open(String),
    /// The browser never came back to our loopback listener.
    #[error("no answer from the browser after {0:?}")]
    NoCallback(Duration),
    /// The authorization server redirected back with an error (e.g. `access_denied`).
    #[error("the authorization server refused: {0}")]
    Denied(String),
    /// The loopback listener could not be bound or read.
    #[error("the loopback redirect listener failed: {0}")]
    Listener(String),
    /// The client-credentials grant needs a client secret or private key, and none is stored.
    #[error(
        "server {0:?} signs in with client credentials but no client secret or private key is set; enter it in the server's settings"
    )]
    MissingSecret(String),
    /// The stored private key cannot sign assertions with the configured algorithm.
    #[error("the client's private key is unusable: {0}")]
    BadKey(String),
}

impl From<AuthError> for OAuthError {
    fn from(error: AuthError) -> Self {
        Self::Flow(error.to_string())
    }
}

/// Shows the user the page where they approve access, e.g. by opening the system browser.
/// The flow waits on its own loopback listener for the redirect; `open` only has to get the
/// user (or, in tests and the conformance client, a headless fetch) to `url`.
pub trait Authorizer: Send + Sync + 'static {
    /// Opens `url`, the authorize page for `server`.
    fn open<'a>(&'a self, server: &'a str, url: &'a str) -> BoxFuture<'a, Result<(), OAuthError>>;
}

/// Follows the authorize URL without a browser, for authorization servers that approve at once
/// (test servers, the conformance suite): a GET that follows redirects down to our loopback
/// listener. Every URL it opens is also passed to `on_url` (the CLI prints it).
pub struct Headless {
    http: reqwest::Client,
    on_url: Box<dyn Fn(&str) + Send + Sync>,
}

impl Headless {
    /// A headless authorizer reporting each URL to `on_url`.
    pub fn new(on_url: impl Fn(&str) + Send + Sync + 'static) -> Self {
        Self {
            http: reqwest::Client::new(),
            on_url: Box::new(on_url),
        }
    }
}

impl Authorizer for Headless {
    fn open<'a>(&'a self, _server: &'a str, url: &'a str) -> BoxFuture<'a, Result<(), OAuthError>> {
        Box::pin(async move {
            (self.on_url)(url);
            let response = self.http.get(url).send().await;
            let response = response.map_err(|e| OAuthError::Open(e.to_string()))?;
            match response.status().is_success() {
                true => Ok(()),
                false => Err(OAuthError::Open(format!(
                    "the authorization page answered {}",
                    response.status()
                ))),
            }
        })
    }
}

/// Hands each authorize URL to a function (which publishes it, e.g. as an event the shell
/// answers by opening the system browser); the function says whether anyone received it.
pub struct Notify {
    notify: Box<NotifyFn>,
}

/// `notify(server, url)`: publishes the URL, `true` when someone received it.
type NotifyFn = dyn Fn(&str, &str) -> bool + Send + Sync;

impl Notify {
    /// An authorizer calling `notify(server, url)`.
    pub fn new(notify: impl Fn(&str, &str) -> bool + Send + Sync + 'static) -> Self {
        Self {
            notify: Box::new(notify),
        }
    }
}

impl Authorizer for Notify {
    fn open<'a>(&'a self, server: &'a str, url: &'a str) -> BoxFuture<'a, Result<(), OAuthError>> {
        let delivered = (self.notify)(server, url);
        Box::pin(async move {
            match delivered {
                true => Ok(()),
                false => Err(OAuthError::Open(
                    "nothing is listening for authorization requests".to_owned(),
                )),
            }
        })
    }
}

/// What the OAuth flow needs: where tokens go, how the user approves, which client we are.
#[derive(Clone)]
pub struct OAuth {
    secrets: Arc<dyn SecretStore>,
    authorizer: Arc<dyn Authorizer>,
    wait: Duration,
    redactor: Redactor,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("secrets", &self.secrets.describe())
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl OAuth {
    /// OAuth with tokens in `secrets` and approval through `authorizer`.
    pub fn new(secrets: Arc<dyn SecretStore>, authorizer: Arc<dyn Authorizer>) -> Self {
        Self {
            secrets,
            authorizer,
            wait: APPROVAL_WAIT,
            redactor: Redactor::default(),
        }
    }

    /// Scrubs every token read or written from the logs through `redactor`.
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// How long to wait for the browser to come back.
    pub fn with_wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// The keychain account holding the tokens of the server whose credentials are keyed by
    /// `key` (`ServerSpec::credentials`: its id) for its endpoint `url` (compared canonical:
    /// case of scheme and host, default port, trailing slash and fragment aside).
    pub fn account(key: &str, url: &str) -> String {
        format!("mcp-oauth:{key}@{}", canonical_url(url))
    }

    /// The account an older version kept `server`'s tokens under (by name only): deleted with
    /// the server's other secrets, never read.
    pub fn legacy_account(server: &str) -> String {
        format!("mcp-oauth:{server}")
    }

    /// An authorization manager for `url`, loaded with the tokens stored under `key` if any. Its
    /// requests reach public addresses only unless `allow_private` or `url` is local (see
    /// [`net::manager`]).
    pub(crate) async fn manager(
        &self,
        key: &str,
        url: &str,
        allow_private: bool,
    ) -> Result<AuthorizationManager, OAuthError> {
        let mut manager = net::manager(url, allow_private).await?;
        manager.set_credential_store(self.store(key, url));
        // Stored tokens from an earlier run; a failure here only means we authorize anew.
        if let Err(error) = manager.initialize_from_store().await {
            tracing::info!(server = key, %error, "stored OAuth credentials are unusable");
        }
        Ok(manager)
    }

    /// Runs the flow `client` says (authorization code, or client credentials) for the 401/403
    /// `challenge` and returns the manager, now holding fresh tokens (also saved to the
    /// keychain). `url` is the server's endpoint, the `resource` of a client-credentials
    /// request.
    pub(crate) async fn authorize(
        &self,
        server: &str,
        key: &str,
        url: &str,
        mut manager: AuthorizationManager,
        challenge: &str,
        client: &OAuthClient,
    ) -> Result<AuthorizationManager, OAuthError> {
        let resolution = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await?;
        manager.set_metadata(resolution.metadata);
        if client.grant == OAuthGrant::ClientCredentials {
            let secret = self.client_secret(server).await?;
            let config = machine::credentials(client, secret, url)?;
            return machine::exchange(manager, config).await;
        }
        let secret = match client.client_id {
            Some(_) => self.client_secret(server).await.ok(),
            None => None,
        };
        let listener = Loopback::bind().await?;
        let mut request = request(listener.redirect_uri(), challenge, client, secret);
        if let Some(scopes) = self.step_up_scopes(key, url, challenge).await {
            request = request.with_scopes(scopes);
        }
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, e)| OAuthError::from(e))?;
        let url = session.get_authorization_url().to_owned();
        let callback = self.approve(server, &url, listener).await?;
        session.handle_callback_url(&callback).await?;
        Ok(session.auth_manager)
    }

    /// For a step-up (a challenge naming scopes while we already hold a grant): the union of
    /// the scopes granted so far and the challenged ones, so the new token keeps what the old
    /// one allowed (SEP-2350). `None` for a first authorization.
    async fn step_up_scopes(&self, key: &str, url: &str, challenge: &str) -> Option<Vec<String>> {
        let challenged = challenge_scopes(challenge)?;
        let stored = self.store(key, url).load().await.ok().flatten()?;
        if stored.token_response.is_none() || stored.granted_scopes.is_empty() {
            return None;
        }
        let mut union = stored.granted_scopes;
        for scope in challenged {
            if !union.contains(&scope) {
                union.push(scope);
            }
        }
        Some(union)
    }

    /// The client secret (or private key) of `server` from the keychain.
    async fn client_secret(&self, server: &str) -> Result<SecretString, OAuthError> {
        let (secrets, account) = (self.secrets.clone(), secret_account(server));
        let read = tokio::task::spawn_blocking(move || secrets.get(&account)).await;
        let read = read.map_err(|e| OAuthError::Flow(e.to_string()))?;
        match read {
            Ok(Some(secret)) => {
                self.redactor.add(secret.expose_secret());
                Ok(secret)
            }
            Ok(None) => Err(OAuthError::MissingSecret(server.to_owned())),
            Err(e) => Err(OAuthError::Flow(format!(
                "cannot read the client secret: {e}"
            ))),
        }
    }

    /// Opens `url` and waits (at most [`Self::with_wait`]) for the redirect to `listener`.
    async fn approve(
        &self,
        server: &str,
        url: &str,
        listener: Loopback,
    ) -> Result<String, OAuthError> {
        // Only the redirect of this flow (its `state`) ends the wait; forged ones are ignored.
        let state = loopback::authorize_state(url);
        let wait = listener.callback_for(self.wait, state.as_deref());
        tokio::pin!(wait);
        tokio::select! {
            callback = &mut wait => callback,
            opened = self.authorizer.open(server, url) => {
                opened?;
                wait.await
            }
        }
    }

    /// The keychain-backed credential store of the server keyed `key` at `url`.
    fn store(&self, key: &str, url: &str) -> KeychainCredentials {
        KeychainCredentials {
            secrets: self.secrets.clone(),
            account: Self::account(key, url),
            redactor: self.redactor.clone(),
        }
    }
}

/// The authorization request: the redirect URI and the challenge (its `scope` seeds scope
/// selection), and who we are: a pre-registered client (with its secret, if any), else our
/// client metadata document (used when the server supports it), else dynamic registration
/// under our name.
fn request(
    redirect_uri: String,
    challenge: &str,
    client: &OAuthClient,
    secret: Option<SecretString>,
) -> AuthorizationRequest {
    let mut request = AuthorizationRequest::new(redirect_uri)
        .with_client_name(CLIENT_NAME)
        .with_application_type("native")
        .with_challenge(challenge)
        .with_initial_scope_selection();
    if let Some(url) = &client.client_metadata_url {
        request = request.with_client_metadata_url(url);
    }
    if let Some(id) = &client.client_id {
        request = request.with_preregistered_client(id);
        if let Some(secret) = secret {
            request = request.with_client_secret(secret.expose_secret());
        }
    }
    request
}

/// The scopes a `WWW-Authenticate` challenge names (`scope="a b"`), if any.
fn challenge_scopes(challenge: &str) -> Option<Vec<String>> {
    let at = challenge
        .match_indices("scope=")
        .map(|(i, _)| i)
        .find(|&i| {
            i == 0 || matches!(challenge.as_bytes().get(i - 1), Some(b' ' | b',' | b'\t'))
        })?;
    let rest = &challenge[at + "scope=".len()..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => &quoted[..quoted.find('"')?],
        None => rest.split([',', ' ']).next()?,
    };
    let scopes: Vec<String> = value.split_whitespace().map(str::to_owned).collect();
    (!scopes.is_empty()).then_some(scopes)
}

/// rmcp's credential store on our [`SecretStore`]: one JSON entry per server. The keychain
/// calls block (D-Bus), so they run on the blocking pool.
struct KeychainCredentials {
    secrets: Arc<dyn SecretStore>,
    account: String,
    redactor: Redactor,
}

impl KeychainCredentials {
    /// Registers the access and refresh tokens of `json` (stored credentials) for redaction.
    fn redact(&self, json: &str) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(json) else {
            return;
        };
        for key in ["access_token", "refresh_token"] {
            if let Some(token) = value["token_response"][key].as_str() {
                self.redactor.add(token);
            }
        }
    }

    /// Runs `f` with the store on the blocking pool.
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&dyn SecretStore, &str) -> Result<T, crate::secrets::SecretError>
        + Send
        + 'static,
    ) -> Result<T, AuthError> {
        let (secrets, account) = (self.secrets.clone(), self.account.clone());
        let joined = tokio::task::spawn_blocking(move || f(secrets.as_ref(), &account)).await;
        let stored = joined.map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        stored.map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }
}

#[async_trait::async_trait]
impl CredentialStore for KeychainCredentials {
    /// No tokens when the keychain cannot be read: the request goes out unauthenticated, so
    /// servers without OAuth keep working on a machine without a keychain.
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let secret = match self.blocking(|s, account| s.get(account)).await {
            Ok(secret) => secret,
            Err(error) => {
                tracing::warn!(account = self.account, %error, "cannot read stored OAuth tokens");
                None
            }
        };
        let Some(secret) = secret else {
            return Ok(None);
        };
        self.redact(secret.expose_secret());
        serde_json::from_str(secret.expose_secret())
            .map(Some)
            .map_err(|e| AuthError::CredentialStoreError(format!("stored tokens unreadable: {e}")))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let json = serde_json::to_string(&credentials)
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        self.redact(&json);
        let secret = SecretString::from(json);
        self.blocking(move |s, account| s.set(account, &secret))
            .await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.blocking(|s, account| s.delete(account)).await
    }
}

#[cfg(test)]
mod tests;
