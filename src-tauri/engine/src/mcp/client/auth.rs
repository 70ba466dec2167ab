//! Streamable HTTP connections that authorize with OAuth when the server asks: the first
//! attempt goes out with the stored token (or none); a 401 challenge runs the OAuth flow of
//! [`crate::mcp::oauth`] once, and the handshake is tried again with the fresh token.

use std::collections::BTreeMap;

use rmcp::transport::auth::{AuthClient, AuthorizationManager};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::service::serve_client_with_lifecycle;

use super::{Bridge, McpClient, convert, era, header_map, lifecycle};
use crate::mcp::oauth::OAuth;
use crate::mcp::spec::ServerSpec;
use crate::mcp::types::McpError;

/// How one handshake attempt ended, when it did not succeed.
enum Refused {
    /// The server demands authorization: its `WWW-Authenticate` challenge.
    Challenge(String),
    /// Any other failure.
    Failed(McpError),
}

/// Connects to `url`, authorizing through `oauth` if the server answers 401.
pub(super) async fn connect(
    spec: &ServerSpec,
    url: &str,
    headers: &BTreeMap<String, String>,
    bridge: Bridge,
    oauth: &OAuth,
) -> Result<McpClient, McpError> {
    let manager = oauth.manager(&spec.name, url).await.map_err(auth_error)?;
    let challenge = match attempt(spec, url, headers, bridge.clone(), manager).await {
        Ok(client) => return Ok(client),
        Err(Refused::Failed(error)) => return Err(error),
        Err(Refused::Challenge(challenge)) => challenge,
    };
    tracing::info!(server = spec.name, "the server asks for OAuth authorization");
    let manager = oauth.manager(&spec.name, url).await.map_err(auth_error)?;
    let manager = oauth
        .authorize(&spec.name, manager, &challenge)
        .await
        .map_err(auth_error)?;
    match attempt(spec, url, headers, bridge, manager).await {
        Ok(client) => Ok(client),
        Err(Refused::Failed(error)) => Err(error),
        Err(Refused::Challenge(_)) => Err(McpError::Auth(
            "the server refused the token it just granted".to_owned(),
        )),
    }
}

/// One handshake over an OAuth-aware HTTP client, within the start-up timeout.
async fn attempt(
    spec: &ServerSpec,
    url: &str,
    headers: &BTreeMap<String, String>,
    bridge: Bridge,
    manager: AuthorizationManager,
) -> Result<McpClient, Refused> {
    let config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(header_map(headers).map_err(Refused::Failed)?);
    let client = AuthClient::new(reqwest::Client::new(), manager);
    let transport = StreamableHttpClientTransport::with_client(client, config);
    let startup = serve_client_with_lifecycle(bridge, transport, lifecycle(era(spec)));
    match tokio::time::timeout(spec.startup_timeout, startup).await {
        Ok(Ok(service)) => McpClient::ready(spec, service, None).map_err(Refused::Failed),
        Ok(Err(error)) => match error.auth_challenge() {
            Some(challenge) => Err(Refused::Challenge(challenge.to_owned())),
            None => Err(Refused::Failed(convert::init_error(error, ""))),
        },
        Err(_) => Err(Refused::Failed(McpError::Timeout {
            after: spec.startup_timeout,
        })),
    }
}

/// An OAuth failure as the connection's error.
fn auth_error(error: crate::mcp::oauth::OAuthError) -> McpError {
    McpError::Auth(error.to_string())
}
