//! The local MCP endpoint over streamable HTTP: the [`Gateway`] behind rmcp's streamable HTTP
//! service (both protocol eras: sessions for 2025-11-25, stateless for 2026-07-28), on
//! 127.0.0.1 and `[::1]` only, in front of which every request is checked — a `Host` that is not
//! the loopback and a web page's `Origin` are refused (DNS rebinding), the bearer token must belong to a client
//! the user made (`store::serve_clients`: only its SHA-256 is stored), and each client has a
//! rate limit. The client found travels with the request to the gateway, which applies its
//! allow-list and logs its calls.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::Gateway;
use crate::store::{ServeClient, Store};

/// The port the endpoint listens on unless the user picks another.
pub const DEFAULT_PORT: u16 = 9797;
/// The largest request body taken, bytes.
pub const MAX_BODY: usize = 4 << 20;
/// Requests a client may make per minute (bursts of this many, refilled evenly).
pub const REQUESTS_PER_MINUTE: u32 = 1200;
/// How often a client's "last used" time is written, at most.
const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// Why the endpoint could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The port is taken or not ours to bind.
    #[error("cannot listen on 127.0.0.1:{port}: {reason}")]
    Bind {
        /// The port asked for.
        port: u16,
        /// The system's reason.
        reason: String,
    },
}

/// Cancelled once the response to the request that carries it is gone: sent whole, or dropped
/// unsent because the client went away. A handshake-era client's session outlives its
/// connection, so this is how a call learns that the app that made it left.
#[derive(Clone, Debug)]
pub(crate) struct Hangup(pub(crate) CancellationToken);

/// A client whose token was checked, as the gateway finds it in a request's extensions.
#[derive(Clone, Debug)]
pub(crate) struct Authorized(pub(crate) ServeClient);

/// The running endpoint.
#[derive(Debug)]
pub struct Endpoint {
    addr: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl Endpoint {
    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL a client's config names.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stops listening and ends every session.
    pub async fn stop(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }

    /// Resolves when the endpoint has stopped (its token was cancelled).
    pub async fn stopped(self) {
        let _ = self.task.await;
    }
}

/// What every request is checked against.
struct Guard {
    store: Store,
    /// The `Origin`s allowed: the endpoint's own (a page it served itself), none other.
    origins: Vec<String>,
    limiter: DefaultKeyedRateLimiter<String>,
    touched: Mutex<std::collections::HashMap<String, Instant>>,
}

/// Serves `host`'s running servers at `/mcp` on `127.0.0.1:port` (0: any free port) until
/// `stop`, with `routes` (the OpenAI-compatible API, which `mcp` does not know) beside them
/// behind the same checks.
pub async fn serve_http(
    gateway: Gateway,
    port: u16,
    stop: CancellationToken,
    routes: axum::Router,
) -> Result<Endpoint, ServeError> {
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port))
        .await
        .map_err(|e| ServeError::Bind {
            port,
            reason: e.to_string(),
        })?;
    let addr = listener.local_addr().map_err(|e| ServeError::Bind {
        port,
        reason: e.to_string(),
    })?;
    // The same port on the IPv6 loopback, where the system has one.
    let v6 = match tokio::net::TcpListener::bind((Ipv6Addr::LOCALHOST, addr.port())).await {
        Ok(v6) => Some(v6),
        Err(error) => {
            tracing::info!(%error, "the local endpoint listens on 127.0.0.1 only");
            None
        }
    };
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(LOOPBACK_HOSTS)
        .with_max_request_body_bytes(MAX_BODY)
        .with_cancellation_token(stop.child_token());
    let store = gateway.store().clone();
    let service = StreamableHttpService::new(
        move || Ok(gateway.for_session()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let per_minute = NonZeroU32::new(REQUESTS_PER_MINUTE).unwrap_or(NonZeroU32::MIN);
    let guard = Arc::new(Guard {
        store,
        origins: vec![
            format!("http://127.0.0.1:{}", addr.port()),
            format!("http://localhost:{}", addr.port()),
            format!("http://[::1]:{}", addr.port()),
        ],
        limiter: RateLimiter::keyed(Quota::per_minute(per_minute)),
        touched: Mutex::default(),
    });
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .merge(routes)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn_with_state(guard, check));
    let stopping = stop.clone();
    let task = tokio::spawn(async move {
        let on_v6 = async {
            match v6 {
                Some(v6) => {
                    axum::serve(v6, app.clone())
                        .with_graceful_shutdown(stopping.clone().cancelled_owned())
                        .await
                }
                None => Ok(()),
            }
        };
        let on_v4 = axum::serve(listener, app.clone())
            .with_graceful_shutdown(stopping.clone().cancelled_owned());
        let (v4, v6) = tokio::join!(on_v4, on_v6);
        for error in [v4.err(), v6.err()].into_iter().flatten() {
            tracing::warn!(%error, "the local MCP endpoint stopped");
        }
    });
    tracing::info!(%addr, "the local MCP endpoint listens");
    Ok(Endpoint { addr, stop, task })
}

/// The host names a request may name in its `Host` (any port): the loopback's.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Whether a `Host` header names the loopback (a name a rebinding page uses does not).
fn loopback_host(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map_or(rest, |(name, _)| name),
        None => host.split_once(':').map_or(host, |(name, _)| name),
    };
    LOOPBACK_HOSTS.iter().any(|h| h.eq_ignore_ascii_case(name))
}

/// Checks one request: its `Host` and `Origin`, its token and its client's rate.
async fn check(State(guard): State<Arc<Guard>>, mut request: Request, next: Next) -> Response {
    let shape = Shape::of(request.uri().path());
    let refusal = |status, message: &str| refusal(shape, status, message);
    if !loopback_host(request.headers()) {
        return refusal(
            StatusCode::FORBIDDEN,
            "the Host is not this computer's loopback (a DNS-rebinding page is refused)",
        );
    }
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|o| guard.origins.iter().any(|a| a == o));
        if !allowed {
            return refusal(
                StatusCode::FORBIDDEN,
                "requests from web pages are refused: the Origin is not this endpoint's own",
            );
        }
    }
    let Some(token) = bearer(request.headers()) else {
        return refusal(
            StatusCode::UNAUTHORIZED,
            "a bearer token is needed: make a client in Switchboard (Settings → Local server, or `switchboard clients add NAME`) and send Authorization: Bearer TOKEN",
        );
    };
    let client = match guard.store.serve_client_by_token(token).await {
        Ok(Some(client)) => client,
        Ok(None) => {
            return refusal(
                StatusCode::UNAUTHORIZED,
                "the bearer token is unknown or was revoked",
            );
        }
        Err(error) => {
            tracing::warn!(%error, "cannot check a client's token");
            return refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "Switchboard cannot read its clients just now",
            );
        }
    };
    if guard.limiter.check_key(&client.id).is_err() {
        let mut response = refusal(
            StatusCode::TOO_MANY_REQUESTS,
            &format!(
                "{} makes more than {REQUESTS_PER_MINUTE} requests a minute",
                client.name
            ),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return response;
    }
    touch(&guard, &client.id).await;
    request.extensions_mut().insert(Authorized(client));
    let hangup = CancellationToken::new();
    request.extensions_mut().insert(Hangup(hangup.clone()));
    let response = next.run(request).await;
    let gone = hangup.drop_guard();
    response.map(|body| {
        let stream = futures::StreamExt::map(body.into_data_stream(), move |chunk| {
            let _kept = &gone;
            chunk
        });
        axum::body::Body::from_stream(stream)
    })
}

/// Notes the client's use, at most once per [`TOUCH_EVERY`].
async fn touch(guard: &Guard, id: &str) {
    let due = {
        let Ok(mut touched) = guard.touched.lock() else {
            return;
        };
        let now = Instant::now();
        let due = touched
            .get(id)
            .is_none_or(|at| now.duration_since(*at) >= TOUCH_EVERY);
        if due {
            touched.insert(id.to_owned(), now);
        }
        due
    };
    if due && let Err(error) = guard.store.touch_serve_client(id).await {
        tracing::debug!(%error, "cannot note a client's use");
    }
}

/// The token of an `Authorization: Bearer …` header.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The error shape a route's clients read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// A JSON-RPC error (id null), which MCP clients show as it is.
    JsonRpc,
    /// OpenAI's `{"error": {"message", "type", …}}`, which OpenAI clients raise.
    OpenAi,
}

impl Shape {
    fn of(path: &str) -> Self {
        if path == "/v1" || path.starts_with("/v1/") {
            Self::OpenAi
        } else {
            Self::JsonRpc
        }
    }
}

/// An HTTP error in the shape the route's clients read.
fn refusal(shape: Shape, status: StatusCode, message: &str) -> Response {
    let body = match shape {
        Shape::JsonRpc => json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32001, "message": message},
        }),
        Shape::OpenAi => {
            let kind = match status {
                StatusCode::UNAUTHORIZED => "authentication_error",
                StatusCode::FORBIDDEN => "permission_error",
                StatusCode::TOO_MANY_REQUESTS => "rate_limit_error",
                _ => "server_error",
            };
            json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
        }
    };
    let mut response = (status, axum::Json(body)).into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"switchboard\""),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_openai_routes_are_refused_in_openais_shape_and_the_rest_in_json_rpcs() {
        assert_eq!(Shape::of("/v1/chat/completions"), Shape::OpenAi);
        assert_eq!(Shape::of("/mcp"), Shape::JsonRpc);
        assert_eq!(Shape::of("/v10"), Shape::JsonRpc);
        let shaped = |shape| {
            let response = refusal(shape, StatusCode::UNAUTHORIZED, "no");
            assert!(response.headers().contains_key(header::WWW_AUTHENTICATE));
            response.status()
        };
        assert_eq!(shaped(Shape::OpenAi), StatusCode::UNAUTHORIZED);
        assert_eq!(shaped(Shape::JsonRpc), StatusCode::UNAUTHORIZED);
    }

    #[test]
    fn only_a_loopback_host_is_taken_with_any_port() {
        let host = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_static(value));
            loopback_host(&headers)
        };
        for good in [
            "127.0.0.1:9797",
            "localhost",
            "LOCALHOST:1",
            "[::1]:9797",
            "[::1]",
        ] {
            assert!(host(good), "{good}");
        }
        for bad in [
            "evil.example:9797",
            "127.0.0.1.evil.example",
            "[::2]:9797",
            "0.0.0.0:9797",
        ] {
            assert!(!host(bad), "{bad}");
        }
        assert!(!loopback_host(&HeaderMap::new()));
    }

    #[test]
    fn a_bearer_token_is_read_from_its_header_in_any_case() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer sb_x "),
        );
        assert_eq!(bearer(&headers), Some("sb_x"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }
}
