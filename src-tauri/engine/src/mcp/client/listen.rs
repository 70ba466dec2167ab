//! List changes from a stateless (2026-07-28) server: with no session to carry
//! `notifications/*/list_changed`, the client opens one `subscriptions/listen` stream per
//! connection for the lists the server says may change (`listChanged` in its capabilities).
//! rmcp drops its cached list when such a notification arrives; here it becomes the same
//! [`ServerNotification`] the handshake era's notification does (so the supervisor lists the
//! tools again and publishes `ToolsChanged`).
//!
//! The stream lives as long as the connection: the task is aborted when the client is
//! dropped and ends when the transport closes. A stream the server ends (or that fails to
//! open) is opened again after the supervisor's restart pauses ([`Backoff`], jittered), never in
//! a busy loop; after a
//! reopening the lists are invalidated once, since changes may have been missed meanwhile.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::Peer;
use rmcp::model as rm;
use rmcp::service::RoleClient;
use tokio::task::JoinHandle;

use super::HostHandler;
use super::METHOD_NOT_FOUND;
use super::backoff::Backoff;
use crate::vocab::mcp::ServerNotification;

/// A stream that lived this long starts the pauses over.
const STABLE_AFTER: Duration = Duration::from_secs(30);

/// The listening task of one connection; aborted when dropped.
#[derive(Debug)]
pub(super) struct Listener(JoinHandle<()>);

impl Drop for Listener {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The lists a server's capabilities say may change, as a subscription filter; `None` when
/// none may.
pub(super) fn filter(caps: &rm::ServerCapabilities) -> Option<rm::SubscriptionFilter> {
    let tools = caps.tools.as_ref().and_then(|c| c.list_changed) == Some(true);
    let prompts = caps.prompts.as_ref().and_then(|c| c.list_changed) == Some(true);
    let resources = caps.resources.as_ref().and_then(|c| c.list_changed) == Some(true);
    if !(tools || prompts || resources) {
        return None;
    }
    let mut filter = rm::SubscriptionFilter::new();
    filter.tools_list_changed = tools.then_some(true);
    filter.prompts_list_changed = prompts.then_some(true);
    filter.resources_list_changed = resources.then_some(true);
    Some(filter)
}

/// Starts listening on `peer` for the changes in `filter`, reporting them to `host`.
pub(super) fn start(
    peer: Peer<RoleClient>,
    filter: rm::SubscriptionFilter,
    host: Arc<dyn HostHandler>,
) -> Listener {
    Listener(tokio::spawn(listen(peer, filter, host)))
}

/// Opens the stream, forwards its notifications, and opens it again when it ends, until the
/// transport closes.
async fn listen(
    peer: Peer<RoleClient>,
    filter: rm::SubscriptionFilter,
    host: Arc<dyn HostHandler>,
) {
    let mut failures = 0u32;
    let mut reopened = false;
    while !peer.is_transport_closed() {
        let opened = Instant::now();
        match peer.listen(filter.clone()).await {
            Ok(mut subscription) => {
                if reopened {
                    resync(&filter, host.as_ref());
                }
                loop {
                    match subscription.next().await {
                        Ok(Some(notification)) => forward(notification, host.as_ref()),
                        Ok(None) => break,
                        Err(error) => {
                            tracing::debug!(%error, "subscriptions/listen stream failed");
                            break;
                        }
                    }
                }
            }
            Err(rmcp::ServiceError::McpError(error)) if error.code.0 == METHOD_NOT_FOUND => {
                tracing::debug!("the server does not implement subscriptions/listen");
                return;
            }
            Err(error) => tracing::debug!(%error, "cannot open subscriptions/listen"),
        }
        if opened.elapsed() >= STABLE_AFTER {
            failures = 0;
        }
        reopened = true;
        tokio::time::sleep(Backoff::default().jittered(failures.saturating_add(1))).await;
        failures = failures.saturating_add(1);
    }
}

/// One notification of the stream, in our terms.
fn forward(notification: rm::ServerNotification, host: &dyn HostHandler) {
    let ours = match notification {
        rm::ServerNotification::ToolListChangedNotification(_) => ServerNotification::ToolsChanged,
        rm::ServerNotification::PromptListChangedNotification(_) => {
            ServerNotification::PromptsChanged
        }
        rm::ServerNotification::ResourceListChangedNotification(_) => {
            ServerNotification::ResourcesChanged
        }
        _ => return,
    };
    host.notify(ours);
}

/// After a reopened stream: every listened list may have changed meanwhile.
fn resync(filter: &rm::SubscriptionFilter, host: &dyn HostHandler) {
    if filter.tools_list_changed == Some(true) {
        host.notify(ServerNotification::ToolsChanged);
    }
    if filter.prompts_list_changed == Some(true) {
        host.notify(ServerNotification::PromptsChanged);
    }
    if filter.resources_list_changed == Some(true) {
        host.notify(ServerNotification::ResourcesChanged);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_lists_a_server_says_may_change_are_listened_to() {
        let caps = rm::ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_prompts()
            .build();
        let filter = filter(&caps).unwrap();
        assert_eq!(filter.tools_list_changed, Some(true));
        assert_eq!(filter.prompts_list_changed, None);
        assert_eq!(filter.resources_list_changed, None);
        let quiet = rm::ServerCapabilities::builder().enable_tools().build();
        assert_eq!(super::filter(&quiet), None);
    }
}
