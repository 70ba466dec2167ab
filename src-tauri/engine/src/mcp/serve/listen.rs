//! `subscriptions/listen` for a stateless-era app (2026-07-28): rmcp acknowledges the stream
//! with the filter the app asked for (within what the endpoint declares) and hands it here;
//! until the app cancels it, the stream carries `list_changed` for tools (after any server
//! starts, stops or changes its tools), prompts and resources (after any server's change), and
//! `notifications/resources/updated` for the URIs the app named, subscribed to upstream for it
//! (counted with the handshake era's subscriptions, dropped when the stream ends).

use rmcp::ErrorData;
use rmcp::model as rm;
use rmcp::service::SubscriptionContext;
use tokio::sync::broadcast::error::RecvError;

use super::Gateway;
use super::content;
use crate::mcp::supervisor::SupervisorEvent;
use crate::mcp::supervisor::relay::ContentChange;

/// What to send on the stream.
enum Send {
    Tools,
    Prompts,
    Resources,
    Updated(String),
}

impl Gateway {
    /// Runs one listen stream until the app cancels it or goes away.
    pub(super) async fn listen_for(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut events = self.host.subscribe();
        let mut changes = self.host.supervisor().content_changes();
        let uris = context.accepted().resource_subscriptions.clone();
        let keys = self
            .subscribe_upstream(uris.unwrap_or_default(), &context)
            .await;
        loop {
            let send = tokio::select! {
                () = context.cancelled() => break,
                event = events.recv() => match event {
                    Ok(SupervisorEvent::State { .. } | SupervisorEvent::ToolsChanged { .. })
                    | Err(RecvError::Lagged(_)) => Send::Tools,
                    Ok(_) => continue,
                    Err(RecvError::Closed) => break,
                },
                change = changes.recv() => match change {
                    Ok((_, ContentChange::Prompts)) => Send::Prompts,
                    Ok((_, ContentChange::Resources)) => Send::Resources,
                    Ok((server, ContentChange::Updated(uri))) if keys.contains(&(server.clone(), uri.clone())) => {
                        Send::Updated(uri)
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => break,
                },
            };
            if !Self::send(&context, send).await {
                break;
            }
        }
        for key in keys {
            self.release(&key).await;
        }
        Ok(())
    }

    /// Sends one notification the app accepted; false once the stream is gone.
    async fn send(context: &SubscriptionContext, send: Send) -> bool {
        use rmcp::service::SubscriptionSendError as E;
        let sink = context.sink();
        let sent = match send {
            Send::Tools => sink.notify_tool_list_changed().await,
            Send::Prompts => sink.notify_prompt_list_changed().await,
            Send::Resources => sink.notify_resource_list_changed().await,
            Send::Updated(uri) => sink.notify_resource_updated(uri).await,
        };
        !matches!(sent, Err(E::SubscriptionClosed | E::Service(_)))
    }

    /// Subscribes upstream to each of `uris` (on the server that lists it, else the first that
    /// takes it); the subscriptions made.
    async fn subscribe_upstream(
        &self,
        uris: Vec<String>,
        context: &SubscriptionContext,
    ) -> Vec<(String, String)> {
        let mut keys = Vec::new();
        for uri in uris {
            let reach = self.reach(context.request_context());
            for server in content::servers_for(&self.host, &uri, reach).await {
                if self.hold(&server, &uri).await {
                    keys.push((server, uri.clone()));
                    break;
                }
            }
        }
        keys
    }
}

/// What the endpoint lets an app listen to: all it asks for (rmcp keeps only what the
/// endpoint's capabilities declare).
pub(super) fn accepted(requested: &rm::SubscriptionFilter) -> Option<rm::SubscriptionFilter> {
    Some(requested.clone())
}
