//! One supervised connection ([`super::supervise`]'s inner part): connecting and the first
//! tool listing within the start-up timeout, then serving the ready connection — its log
//! messages, re-listing its tools when they change — until it is stopped or dies, and
//! releasing the client once in-flight calls let go of it.

use super::relay::ContentChange;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::handler::ServerHost;
use super::{Inner, METHOD_NOT_FOUND, RELEASE_WAIT, SupervisorEvent};
use crate::mcp::client::McpClient;
use crate::vocab::mcp::{McpError, ServerNotification, ToolInfo};
use crate::vocab::server::ServerConfig;

/// A connection that completed start-up.
pub(super) struct Connection {
    pub(super) client: Arc<McpClient>,
    notifications: mpsc::UnboundedReceiver<ServerNotification>,
    pub(super) tools: Vec<ToolInfo>,
}

/// How a ready connection ended.
pub(super) enum End {
    Stopped,
    Died,
}

/// Connects and lists the tools, all within the start-up timeout; stores the client, its
/// tools and its stderr buffer in the slot.
pub(super) async fn connect(inner: &Inner, config: &ServerConfig) -> Result<Connection, String> {
    let spec = config.spec();
    let attempt = async {
        let (tx, notifications) = mpsc::unbounded_channel();
        let host = ServerHost {
            server: config.name.clone(),
            notifications: tx,
            interactions: inner.interactions.clone(),
            roots: inner.roots.clone(),
            knowledge: inner.knowledge.clone(),
            calling_apps: inner.calling_apps.clone(),
        };
        let client = McpClient::connect_with_oauth(&spec, host, inner.oauth.as_ref()).await?;
        match list_tools(&client).await {
            Ok(tools) => Ok((client, notifications, tools)),
            Err(e) => {
                client.shutdown().await;
                Err(e)
            }
        }
    };
    let (client, notifications, (tools, until)) =
        tokio::time::timeout(spec.startup_timeout, attempt)
            .await
            .map_err(|_| McpError::Timeout {
                after: spec.startup_timeout,
            })
            .and_then(|r| r)
            .map_err(|e| e.to_string())?;
    let client = Arc::new(client);
    let mut slots = inner.lock();
    let slot = slots.entry(config.name.clone()).or_default();
    slot.client = Some(Arc::clone(&client));
    slot.tools = Arc::new(tools.clone());
    slot.tools_until = until;
    if let Some(stderr) = client.stderr() {
        slot.stderr = stderr;
    }
    Ok(Connection {
        client,
        notifications,
        tools,
    })
}

/// The server's tools (none when it does not implement `tools/list`), and until when they may
/// be reused (from the list's cache hint and the server's era).
pub(super) async fn list_tools(
    client: &McpClient,
) -> Result<(Vec<ToolInfo>, Option<Instant>), McpError> {
    let era = client.server_info().era;
    match client.list_tools_hinted().await {
        Err(McpError::ServerError { code, .. }) if code == METHOD_NOT_FOUND => {
            Ok((Vec::new(), None))
        }
        Err(e) => Err(e),
        Ok(listed) => Ok((listed.items, listed.hint.expiry(era, Instant::now()))),
    }
}

/// Runs a ready connection until it is stopped or dies: logs its messages, re-lists its tools
/// when they change. Closes the client either way.
pub(super) async fn serve(
    inner: &Inner,
    name: &str,
    conn: Connection,
    stop: &CancellationToken,
) -> End {
    let Connection {
        client,
        mut notifications,
        ..
    } = conn;
    let closed = client.closed();
    tokio::pin!(closed);
    let end = loop {
        tokio::select! {
            biased;
            () = stop.cancelled() => break End::Stopped,
            () = &mut closed => break End::Died,
            Some(n) = notifications.recv() => on_notification(inner, name, &client, n).await,
        }
    };
    drop(client);
    inner.interactions.cancel_server(name);
    if let Some(client) = inner.take_client(name) {
        release(client).await;
    }
    end
}

/// Handles one notification of a ready server.
async fn on_notification(inner: &Inner, name: &str, client: &McpClient, n: ServerNotification) {
    match n {
        ServerNotification::Log {
            level,
            logger,
            data,
        } => {
            let data = data
                .as_str()
                .map_or_else(|| data.to_string(), str::to_owned);
            let logger = logger.map(|l| format!(" {l}:")).unwrap_or_default();
            let line = format!("[{level:?}]{logger} {data}");
            if let Some(slot) = inner.lock().get(name) {
                slot.messages.push(line);
            }
        }
        ServerNotification::ToolsChanged => relist(inner, name, client).await,
        ServerNotification::ResourceUpdated { uri } => {
            let _ = (inner.content_changes).send((name.to_owned(), ContentChange::Updated(uri)));
        }
        ServerNotification::PromptsChanged => {
            let _ = (inner.content_changes).send((name.to_owned(), ContentChange::Prompts));
        }
        ServerNotification::ResourcesChanged => {
            let _ = (inner.content_changes).send((name.to_owned(), ContentChange::Resources));
        }
        _ => {}
    }
}

/// Lists the tools again after `tools/list_changed` and publishes [`SupervisorEvent::ToolsChanged`].
async fn relist(inner: &Inner, name: &str, client: &McpClient) {
    let (tools, until) = match list_tools(client).await {
        Ok(listed) => listed,
        Err(error) => {
            tracing::warn!(server = name, %error, "cannot list tools again");
            return;
        }
    };
    inner.store_tools(name, tools, until);
    let server = name.to_owned();
    let _ = inner.events.send(SupervisorEvent::ToolsChanged { server });
}

/// Shuts the client down once in-flight calls let go of it; after [`RELEASE_WAIT`] the last
/// holder's drop kills the process group instead.
async fn release(mut client: Arc<McpClient>) {
    let deadline = Instant::now() + RELEASE_WAIT;
    loop {
        match Arc::try_unwrap(client) {
            Ok(client) => return client.shutdown().await,
            Err(shared) if Instant::now() < deadline => {
                client = shared;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(_) => return,
        }
    }
}
