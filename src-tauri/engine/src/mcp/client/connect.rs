//! Connecting an [`McpClient`]: spawning a stdio server or opening an HTTP, SSE or in-process
//! transport, and rmcp's start-up in the protocol era the server speaks ([`lifecycle`]): the
//! stateless 2026-07-28 revision first (`server/discover`), the `initialize` handshake when the
//! server does not speak it, and a second, handshake-only attempt when it answered the probe
//! with a result of another kind.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{RoleClient, RunningService, serve_client_with_lifecycle};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{IntoTransport, StreamableHttpClientTransport, Transport as RmcpTransport};

use super::{
    Bridge, HostHandler, MAX_STDIO_MESSAGE_BYTES, McpClient, STDERR_TAIL_LINES, auth, capped,
    convert, header_map, lifecycle, listen, redirect, stdio,
};
use crate::mcp::client::oauth::OAuth;
use crate::mcp::client::process::{Launch, ServerProcess, StderrLog};
use crate::mcp::client::progress::{ProgressRoutes, Tapped};
use crate::mcp::client::sse::SseTransport;
use crate::vocab::mcp::{McpError, ProtocolEra};
use crate::vocab::server::{ServerSpec, Transport};

impl McpClient {
    /// Connects to `spec`'s server and completes the handshake within its start-up timeout.
    /// Notifications go to `host` from then on.
    pub async fn connect(spec: &ServerSpec, host: impl HostHandler) -> Result<Self, McpError> {
        Self::connect_with_oauth(spec, host, None).await
    }

    /// Like [`Self::connect`]; a streamable HTTP server that answers 401 is authorized
    /// through `oauth` (tokens from and to the keychain), when given.
    pub async fn connect_with_oauth(
        spec: &ServerSpec,
        host: impl HostHandler,
        oauth: Option<&OAuth>,
    ) -> Result<Self, McpError> {
        let bridge = Bridge {
            host: Arc::new(host),
            progress: ProgressRoutes::default(),
            logs: tokio::sync::broadcast::channel(super::LOG_CAPACITY).0,
            handshake_only: false,
        };
        match Self::connect_bridge(spec, bridge.clone(), oauth).await {
            Err(McpError::NotDiscover(answer)) => {
                tracing::info!(
                    server = spec.name,
                    answer,
                    "not a discover answer: handshake era"
                );
                let bridge = Bridge {
                    handshake_only: true,
                    ..bridge
                };
                Self::connect_bridge(spec, bridge, oauth).await
            }
            other => other,
        }
    }

    /// Connects with `bridge`'s start-up mode.
    async fn connect_bridge(
        spec: &ServerSpec,
        bridge: Bridge,
        oauth: Option<&OAuth>,
    ) -> Result<Self, McpError> {
        match &spec.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let launch = Launch {
                    command,
                    args,
                    env,
                    cwd: cwd.as_deref(),
                    inherit_env: &spec.inherit_env,
                };
                connect_stdio(spec, launch, bridge).await
            }
            Transport::Http { url, headers } => match oauth {
                Some(oauth) => auth::connect(spec, url, headers, bridge, oauth).await,
                None => connect_http(spec, url, headers, bridge).await,
            },
            Transport::Sse { url, headers } => {
                let headers = header_map(headers)?.into_iter().collect();
                let transport = SseTransport::open(url, headers, spec.startup_timeout).await?;
                connect_transport(spec, transport, bridge).await
            }
            Transport::Builtin { .. } => {
                let roots = || bridge.host.roots().into_iter().map(|r| r.path).collect();
                let server =
                    crate::mcp::builtin::BuiltinServer::from_transport(&spec.transport, roots)?;
                let (client_end, server_end) = tokio::io::duplex(crate::mcp::builtin::PIPE_BYTES);
                crate::mcp::builtin::serve(&server, server_end, bridge.host.knowledge())?;
                connect_transport(spec, client_end, bridge).await
            }
        }
    }
}

/// Spawns the server and runs the handshake over its stdio.
async fn connect_stdio(
    spec: &ServerSpec,
    launch: Launch<'_>,
    bridge: Bridge,
) -> Result<McpClient, McpError> {
    let (process, stdout, stdin) =
        ServerProcess::spawn(launch)
            .await
            .map_err(|e| McpError::Spawn {
                command: launch.command.to_owned(),
                reason: e.reason,
            })?;
    let stdout = capped::CappedLines::new(stdout, MAX_STDIO_MESSAGE_BYTES);
    // rmcp's own cap stays above ours (a newline more), so it never drops a line silently.
    let transport = stdio::StdioTransport::new(stdout, stdin, MAX_STDIO_MESSAGE_BYTES + 1);
    let transport = tapped(transport, &bridge);
    let mode = lifecycle(bridge.handshake_only);
    let startup = serve_client_with_lifecycle(bridge, transport, mode);
    match tokio::time::timeout(spec.startup_timeout, startup).await {
        Ok(Ok(service)) => McpClient::ready(spec, service, Some(process)),
        Ok(Err(error)) => {
            let log = process.stderr();
            process.shutdown(Duration::from_millis(200)).await;
            Err(convert::init_error(error, &stderr_tail(&log)))
        }
        Err(_) => {
            process.shutdown(Duration::ZERO).await;
            Err(McpError::Timeout {
                after: spec.startup_timeout,
            })
        }
    }
}

/// Opens a streamable HTTP session and runs the handshake.
async fn connect_http(
    spec: &ServerSpec,
    url: &str,
    headers: &BTreeMap<String, String>,
    bridge: Bridge,
) -> Result<McpClient, McpError> {
    let config =
        StreamableHttpClientTransportConfig::with_uri(url).custom_headers(header_map(headers)?);
    let (http, refused) = redirect::client(reqwest::Client::builder())?;
    let transport = StreamableHttpClientTransport::with_client(http, config);
    let connected = connect_transport(spec, transport, bridge).await;
    connected.map_err(|e| refused.explain(e))
}

/// Runs the handshake over a transport that needs no process (HTTP, SSE, in-process).
async fn connect_transport<T, E, A>(
    spec: &ServerSpec,
    transport: T,
    bridge: Bridge,
) -> Result<McpClient, McpError>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let transport = tapped(transport, &bridge);
    let mode = lifecycle(bridge.handshake_only);
    let startup = serve_client_with_lifecycle(bridge, transport, mode);
    match tokio::time::timeout(spec.startup_timeout, startup).await {
        Ok(Ok(service)) => McpClient::ready(spec, service, None),
        Ok(Err(error)) => Err(convert::init_error(error, "")),
        Err(_) => Err(McpError::Timeout {
            after: spec.startup_timeout,
        }),
    }
}

/// `transport` with its progress notifications routed as they are read (see [`Tapped`]).
pub(super) fn tapped<T, E, A>(
    transport: T,
    bridge: &Bridge,
) -> Tapped<impl RmcpTransport<RoleClient, Error = E> + 'static>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let routes = bridge.progress.clone();
    let (host, logs) = (Arc::clone(&bridge.host), bridge.logs.clone());
    Tapped::new(transport.into_transport(), routes, host, logs)
}

impl McpClient {
    /// Wraps a service whose handshake completed.
    pub(super) fn ready(
        spec: &ServerSpec,
        service: RunningService<RoleClient, Bridge>,
        process: Option<ServerProcess>,
    ) -> Result<Self, McpError> {
        let Some(peer_info) = service.peer_info() else {
            return Err(McpError::Handshake(
                "the server sent no initialize result".to_owned(),
            ));
        };
        let roots_advertised = service.service().host.capabilities().roots;
        let info = convert::server_info(&peer_info);
        let changes = (info.era == ProtocolEra::Stateless)
            .then(|| listen::filter(&peer_info.capabilities))
            .flatten();
        let host = Arc::clone(&service.service().host);
        let listener = changes.map(|filter| listen::start(service.peer().clone(), filter, host));
        Ok(Self {
            info,
            service,
            process,
            request_timeout: spec.call_timeout,
            roots_advertised,
            _listener: listener,
        })
    }
}

/// The last few stderr lines, one per line.
fn stderr_tail(log: &StderrLog) -> String {
    let lines = log.lines();
    let start = lines.len().saturating_sub(STDERR_TAIL_LINES);
    lines[start..].join("\n")
}
