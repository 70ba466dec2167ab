//! Streamable HTTP connections that authorize with OAuth whenever the server asks. Requests go
//! out with the stored token (or none); a request answered 401 (no or expired token) or 403
//! `insufficient_scope` (step-up: the operation needs more scopes) runs the OAuth flow of
//! [`crate::mcp::client::oauth`] with the server's challenge and is sent again, at most
//! [`MAX_AUTHORIZATIONS`] times per request, so a server that never accepts cannot loop us.
//! Servers may demand authorization at `initialize` or only for later requests. Redirects stay
//! on the server's origin ([`redirect::same_origin`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::service::serve_client_with_lifecycle;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{AuthClient, AuthError};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::Sse;
use tokio::sync::Mutex;

use super::{Bridge, McpClient, convert, header_map, lifecycle, redirect};
use crate::mcp::client::oauth::OAuth;
use crate::vocab::mcp::McpError;
use crate::vocab::server::OAuthClient;
use crate::vocab::server::ServerSpec;

/// How many times one request may send the user through authorization.
const MAX_AUTHORIZATIONS: u32 = 3;

/// Connects to `url`, authorizing through `oauth` whenever the server answers with a challenge.
pub(super) async fn connect(
    spec: &ServerSpec,
    url: &str,
    headers: &BTreeMap<String, String>,
    bridge: Bridge,
    oauth: &OAuth,
) -> Result<McpClient, McpError> {
    let manager = oauth.manager(&spec.credentials, url, spec.allow_private);
    let manager = manager.await.map_err(auth_error)?;
    let (http, refused) = redirect::client(reqwest::Client::builder())?;
    let client = Reauthorizing {
        inner: AuthClient::new(http, manager),
        flow: Arc::new(Flow {
            oauth: oauth.clone(),
            server: spec.name.clone(),
            key: spec.credentials.clone(),
            url: url.to_owned(),
            client: spec.oauth.clone(),
            allow_private: spec.allow_private,
            running: Mutex::new(()),
        }),
    };
    let config =
        StreamableHttpClientTransportConfig::with_uri(url).custom_headers(header_map(headers)?);
    let transport = StreamableHttpClientTransport::with_client(client, config);
    let transport = super::connect::tapped(transport, &bridge);
    let mode = lifecycle(bridge.handshake_only);
    let startup = serve_client_with_lifecycle(bridge, transport, mode);
    match tokio::time::timeout(spec.startup_timeout, startup).await {
        Ok(Ok(service)) => McpClient::ready(spec, service, None),
        Ok(Err(error)) => Err(refused.explain(convert::init_error(error, ""))),
        Err(_) => Err(McpError::Timeout {
            after: spec.startup_timeout,
        }),
    }
}

/// What re-authorization needs: the OAuth settings and which server this is.
struct Flow {
    oauth: OAuth,
    server: String,
    /// What its tokens are kept under (see `ServerSpec::credentials`).
    key: String,
    url: String,
    /// Who we are to the authorization server.
    client: OAuthClient,
    /// The user allowed this server private addresses (its OAuth endpoints may be local).
    allow_private: bool,
    /// One authorization at a time per connection.
    running: Mutex<()>,
}

/// rmcp's OAuth-aware HTTP client, plus re-authorization on a challenge.
#[derive(Clone)]
struct Reauthorizing {
    inner: AuthClient<reqwest::Client>,
    flow: Arc<Flow>,
}

impl Reauthorizing {
    /// Runs the OAuth flow for `challenge` and puts the fresh tokens into the client.
    async fn authorize(&self, challenge: &str) -> Result<(), AuthError> {
        let _one = self.flow.running.lock().await;
        let Flow {
            oauth,
            server,
            key,
            url,
            client,
            allow_private,
            ..
        } = self.flow.as_ref();
        tracing::info!(server, "the server asks for OAuth authorization");
        let fresh = async {
            let manager = oauth.manager(key, url, *allow_private).await?;
            oauth
                .authorize(server, key, url, manager, challenge, client)
                .await
        };
        let manager = fresh
            .await
            .map_err(|e| AuthError::AuthorizationFailed(e.to_string()))?;
        *self.inner.auth_manager.lock().await = manager;
        Ok(())
    }
}

/// The challenge of an error that asks for (more) authorization.
fn challenge_of<E>(error: &StreamableHttpError<E>) -> Option<String>
where
    E: std::error::Error + Send + Sync + 'static,
{
    error.auth_challenge().map(str::to_owned)
}

impl StreamableHttpClient for Reauthorizing {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let limits = StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let mut authorizations = 0;
        loop {
            let answer = self
                .inner
                .post_message_with_response_limits(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    auth_header.clone(),
                    custom_headers.clone(),
                    limits,
                )
                .await;
            let challenge = match &answer {
                Err(error) if authorizations < MAX_AUTHORIZATIONS => challenge_of(error),
                _ => None,
            };
            let Some(challenge) = challenge else {
                return answer;
            };
            authorizations += 1;
            self.authorize(&challenge).await?;
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

/// An OAuth failure as the connection's error.
fn auth_error(error: crate::mcp::client::oauth::OAuthError) -> McpError {
    McpError::Auth(error.to_string())
}
