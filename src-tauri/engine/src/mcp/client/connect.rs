//! Connecting an [`McpClient`]: spawning a stdio server or opening an HTTP, SSE or in-process
//! transport, and rmcp's start-up in the protocol era the server speaks ([`lifecycle`]): the
//! stateless 2026-07-28 revision first (`server/discover`), the `initialize` handshake when the
//! server does not speak it, and a second, handshake-only attempt when it answered the probe
//! with a result of another kind.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::service::{ClientLifecycleMode, RoleClient, RunningService, serve_client_with_lifecycle};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{IntoTransport, StreamableHttpClientTransport};

use super::{
    Bridge, HANDSHAKE_VERSION, HostHandler, MAX_STDIO_MESSAGE_BYTES, McpClient, STATELESS_VERSION,
    STDERR_TAIL_LINES, auth, capped, convert, listen, stdio,
};
use crate::mcp::client::oauth::OAuth;
use crate::mcp::client::process::{Launch, ServerProcess, StderrLog};
use crate::mcp::client::sse::SseTransport;
use crate::mcp::progress::ProgressRoutes;
use crate::vocab::mcp::{McpError, ProtocolEra};
use crate::vocab::server::{ServerSpec, Transport};

/// rmcp's start-up mode: the stateless era first (`server/discover` with 2026-07-28), and the
/// `initialize` handshake (offering [`HANDSHAKE_VERSION`]; the server may answer with an older
/// revision, down to 2024-11-05) when the server answers the probe with a JSON-RPC error, as
/// handshake-era servers do (`-32601`, method not found, from server-everything and FastMCP).
/// A server that ignores the probe altogether costs rmcp's fallback wait (10 s) once per
/// start, within the start-up timeout; see `docs/mcp-eras.md`.
/// With `handshake_only`, straight to `initialize`: the second attempt after a server answered
/// the probe with a result of another kind (`{}` from servers that answer every method).
pub(super) fn lifecycle(handshake_only: bool) -> ClientLifecycleMode {
    if handshake_only {
        return ClientLifecycleMode::Initialize;
    }
    ClientLifecycleMode::Auto {
        preferred_versions: vec![STATELESS_VERSION],
        legacy_version: Some(HANDSHAKE_VERSION),
    }
}

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
            Transport::Builtin {
                server,
                allow_private,
                folders,
            } => {
                let roots = || bridge.host.roots().into_iter().map(|r| r.path).collect();
                let server = crate::mcp::builtin::BuiltinServer::from_transport(
                    server,
                    *allow_private,
                    folders,
                    roots,
                )?;
                let (client_end, server_end) = tokio::io::duplex(crate::mcp::builtin::PIPE_BYTES);
                crate::mcp::builtin::serve(&server, server_end)?;
                connect_transport(spec, client_end, bridge).await
            }
        }
    }

    /// Connects over an in-process transport (a built-in server's end of a duplex pipe).
    pub(crate) async fn connect_in_process<T, E, A>(
        spec: &ServerSpec,
        transport: T,
        host: impl HostHandler,
    ) -> Result<Self, McpError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let bridge = Bridge {
            host: Arc::new(host),
            progress: ProgressRoutes::default(),
            handshake_only: false,
        };
        connect_transport(spec, transport, bridge).await
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
    let transport = StreamableHttpClientTransport::from_config(config);
    connect_transport(spec, transport, bridge).await
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

/// The spec's headers as HTTP headers. Errors name the header, never its (secret) value.
pub(super) fn header_map(
    headers: &BTreeMap<String, String>,
) -> Result<HashMap<HeaderName, HeaderValue>, McpError> {
    headers
        .iter()
        .map(|(name, value)| {
            let invalid = || McpError::Connect(format!("invalid HTTP header `{name}`"));
            let name = HeaderName::try_from(name.as_str()).map_err(|_| invalid())?;
            let mut value = HeaderValue::try_from(value.as_str()).map_err(|_| invalid())?;
            value.set_sensitive(true);
            Ok((name, value))
        })
        .collect()
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
