//! The network side of a server's OAuth flow. The server chooses every URL the flow fetches
//! (its resource metadata names the authorization server, whose metadata names the
//! registration and token endpoints), so unless the user allowed private addresses for that
//! server, or the server's own URL is itself local, every one of those requests goes through
//! [`GuardedOAuthHttp::public`]: names resolve only to public addresses ([`netguard::PublicOnly`]), IP
//! literals (first request and every redirect) must be public, and bodies are bounded. A local
//! server's requests resolve by [`Beside`] instead. Every client ignores proxy settings (a
//! proxy would resolve names for us, past the address checks) and follows redirects only within
//! the origin a request started at (never to another host, never https → http).

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use reqwest::dns::Resolve;
use reqwest::redirect::{Attempt, Policy};
use rmcp::transport::auth::{
    AuthorizationManager, OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture,
    OAuthHttpRedirectPolicy, OAuthHttpRequest,
};

use super::OAuthError;
use super::beside::Beside;
use crate::logging::error_chain;
use crate::netguard;

/// How long one OAuth request may take (rmcp's own default).
const TIMEOUT: Duration = Duration::from_secs(30);
/// How many redirects a request may follow.
const MAX_REDIRECTS: usize = 10;
/// The largest response body read (rmcp's own bound).
const MAX_BODY: usize = 1024 * 1024;

/// An authorization manager for the server at `url`. Its OAuth requests may reach private
/// addresses only when `allow_private` (the user's per-server setting) or when `url` is itself
/// local (the user pointed us at a server on this machine or network); then [`Beside`] says
/// which (loopback only beside a loopback server, as rmcp's own policy).
pub(crate) async fn manager(
    url: &str,
    allow_private: bool,
) -> Result<AuthorizationManager, OAuthError> {
    let parsed = url::Url::parse(url).map_err(|e| OAuthError::Flow(format!("{url}: {e}")))?;
    let local = netguard::url_is_local(&parsed);
    let manager = match (allow_private, local) {
        (false, false) => {
            let http = Arc::new(GuardedOAuthHttp::public()?);
            AuthorizationManager::new_with_oauth_http_client(url, http).await?
        }
        (false, true) => {
            let http = Arc::new(GuardedOAuthHttp::beside(Beside::server(&parsed, false))?);
            AuthorizationManager::new_with_oauth_http_client(url, http).await?
        }
        (true, _) => {
            // Only rmcp's own constructor lets metadata name private hosts; its client is ours.
            let mut manager = AuthorizationManager::new_allowing_private_addresses(url).await?;
            let beside = Arc::new(Beside::server(&parsed, true));
            manager.with_client(client(Policy::custom(same_origin), beside)?)?;
            manager
        }
    };
    Ok(manager)
}

/// An OAuth HTTP client: no proxy, `redirect`, names resolved by `resolver`.
fn client(redirect: Policy, resolver: Arc<dyn Resolve>) -> Result<reqwest::Client, OAuthError> {
    reqwest::Client::builder()
        .timeout(TIMEOUT)
        .no_proxy()
        .redirect(redirect)
        .dns_resolver(resolver)
        .build()
        .map_err(|e| OAuthError::Flow(e.to_string()))
}

/// An OAuth HTTP client that reaches public addresses only, or those [`Beside`] allows.
#[derive(Debug)]
pub(crate) struct GuardedOAuthHttp {
    follow: reqwest::Client,
    stop: reqwest::Client,
    /// `None`: public addresses only.
    beside: Option<Beside>,
}

impl GuardedOAuthHttp {
    /// Both clients (following redirects, and not) with the public-only resolver.
    pub(crate) fn public() -> Result<Self, OAuthError> {
        let build = |redirect| client(redirect, Arc::new(netguard::PublicOnly::default()));
        Ok(Self {
            follow: build(Policy::custom(public_redirect))?,
            stop: build(Policy::none())?,
            beside: None,
        })
    }

    /// Both clients with a resolver allowing what `beside` allows.
    pub(crate) fn beside(beside: Beside) -> Result<Self, OAuthError> {
        let build = |redirect| client(redirect, Arc::new(beside));
        Ok(Self {
            follow: build(Policy::custom(same_origin))?,
            stop: build(Policy::none())?,
            beside: Some(beside),
        })
    }

    /// Refuses a URL whose host this client may not reach (IP literals skip the resolver).
    fn check(&self, url: &url::Url) -> Result<(), String> {
        let Some(beside) = self.beside else {
            return check_host(url);
        };
        let ip = match url.host() {
            Some(url::Host::Ipv4(v4)) => std::net::IpAddr::V4(v4),
            Some(url::Host::Ipv6(v6)) => std::net::IpAddr::V6(v6),
            _ => return Ok(()),
        };
        match beside.allows(ip) {
            true => Ok(()),
            false => Err(format!(
                "refusing the OAuth request to {url}: {ip} is not an address this server's \
                 authorization may use"
            )),
        }
    }
}

/// Follows a redirect only within the origin the request started at.
fn same_origin(attempt: Attempt) -> reqwest::redirect::Action {
    let from = attempt.previous().first().map(url::Url::origin);
    let to = attempt.url().origin();
    if from.as_ref().is_some_and(|from| *from != to) {
        let from = from.map(|o| o.ascii_serialization()).unwrap_or_default();
        return attempt.error(format!(
            "refusing the OAuth request's redirect from {from} to another origin ({})",
            to.ascii_serialization()
        ));
    }
    if attempt.previous().len() >= MAX_REDIRECTS {
        return attempt.error("too many redirects");
    }
    attempt.follow()
}

/// Follows a redirect only within its origin and to a public IP literal or a name (names are
/// checked on resolution).
fn public_redirect(attempt: Attempt) -> reqwest::redirect::Action {
    match check_host(attempt.url()) {
        Ok(()) => same_origin(attempt),
        Err(refused) => attempt.error(refused),
    }
}

/// Refuses a URL naming a local host (`localhost`, a non-public IP literal).
pub(crate) fn check_host(url: &url::Url) -> Result<(), String> {
    match url.host_str() {
        Some(host) if !netguard::is_local_host(host) => Ok(()),
        Some(host) => Err(format!(
            "refusing the OAuth request to {url}: {host} is not a public address \
             (allow private addresses for this server to permit it)"
        )),
        None => Err(format!(
            "refusing the OAuth request to {url}: it has no host"
        )),
    }
}

impl OAuthHttpClient for GuardedOAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let client = match request.redirect_policy {
                OAuthHttpRedirectPolicy::Follow => &self.follow,
                _ => &self.stop,
            };
            let request = reqwest::Request::try_from(request.request).map_err(boxed)?;
            self.check(request.url())
                .map_err(OAuthHttpClientError::from)?;
            // Flattened: rmcp quotes only the error's own text, and why (a refused redirect,
            // say) is in its causes.
            let response = client
                .execute(request)
                .await
                .map_err(|e| OAuthHttpClientError::from(error_chain(&e)))?;
            into_response(response).await
        })
    }
}

fn boxed(error: impl std::error::Error + Send + Sync + 'static) -> OAuthHttpClientError {
    Box::new(error)
}

/// The response as the OAuth machinery takes it, its body read up to [`MAX_BODY`].
async fn into_response(
    response: reqwest::Response,
) -> Result<http::Response<Vec<u8>>, OAuthHttpClientError> {
    let mut builder = http::Response::builder()
        .status(response.status())
        .version(response.version());
    for (name, value) in response.headers() {
        builder = builder.header(name, value);
    }
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(boxed)?;
        if chunk.len() > MAX_BODY - body.len() {
            return Err(format!("the OAuth response is larger than {MAX_BODY} bytes").into());
        }
        body.extend_from_slice(&chunk);
    }
    builder.body(body).map_err(boxed)
}

#[cfg(test)]
mod tests {
    use rmcp::transport::auth::AuthorizationMetadata;

    use super::*;

    #[test]
    fn oauth_urls_in_every_non_public_range_are_refused() {
        for url in [
            "http://198.18.0.1/token",
            "http://240.0.0.1/register",
            "http://[fec0::1]/authorize",
            "http://[::10.0.0.1]/",
            "http://[64:ff9b::7f00:1]/",
            "http://[2002:a00:1::1]/",
            "http://LOCALHOST./",
            "http://169.254.169.254/latest/meta-data",
        ] {
            let parsed = url::Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert!(check_host(&parsed).is_err(), "{url} was allowed");
        }
        let public =
            url::Url::parse("https://auth.example.com/token").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(check_host(&public), Ok(()));
    }

    #[tokio::test]
    async fn a_public_server_cannot_send_the_registration_to_a_reserved_address() {
        let mut manager = manager("https://mcp.example.com/mcp", false)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut metadata = AuthorizationMetadata::default();
        metadata.authorization_endpoint = "https://auth.example.com/authorize".into();
        metadata.token_endpoint = "https://auth.example.com/token".into();
        metadata.registration_endpoint = Some("http://240.0.0.1/register".into());
        manager.set_metadata(metadata);
        let started = std::time::Instant::now();
        let error = manager
            .register_client("Switchboard", "http://127.0.0.1:1/callback", &[])
            .await
            .map(|_| ())
            .err()
            .unwrap_or_else(|| panic!("the registration was sent"));
        assert!(
            error.to_string().contains("is not a public address"),
            "{error}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
