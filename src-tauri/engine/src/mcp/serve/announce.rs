//! `list_changed` for a handshake-era session (2025-11-25), over stdio and over streamable
//! HTTP alike: from the client's `notifications/initialized` until the session ends, tools'
//! after a server starts, stops or changes its tools (a server starting or stopping changes
//! the prompts and resources served too), prompts' or resources' after a server says its own
//! changed. A stateless-era app listens instead (`listen`).

use std::time::Duration;

use rmcp::service::RoleServer;
use tokio::sync::broadcast::error::RecvError;

use crate::mcp::supervisor::SupervisorEvent;
use crate::mcp::supervisor::relay::ContentChange;

use super::Gateway;

/// How often an idle announcer looks whether its session ended (it ends at its first failed
/// send otherwise).
const SESSION_CHECK: Duration = Duration::from_secs(30);
/// How long a notification may wait to be taken (an HTTP session whose app never opened its
/// stream may hold it): past it the announcer ends rather than waiting for ever.
const SEND_WAIT: Duration = Duration::from_secs(10);

/// A list whose change is announced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    Tools,
    Prompts,
    Resources,
}

/// A server starting or stopping changes every list served.
const ALL: &[List] = &[List::Tools, List::Prompts, List::Resources];

impl Gateway {
    /// Announces list changes to `peer` until its session ends (a task of its own).
    pub(super) fn announce_to(&self, peer: rmcp::Peer<RoleServer>) {
        let mut events = self.host.subscribe();
        let mut changes = self.host.supervisor().content_changes();
        tokio::spawn(async move {
            loop {
                let changed = tokio::select! {
                    event = events.recv() => match event {
                        Ok(SupervisorEvent::State { .. }) | Err(RecvError::Lagged(_)) => ALL,
                        Ok(SupervisorEvent::ToolsChanged { .. }) => &[List::Tools],
                        Ok(_) => continue,
                        Err(RecvError::Closed) => return,
                    },
                    change = changes.recv() => match change {
                        Ok((_, ContentChange::Prompts)) => &[List::Prompts],
                        Ok((_, ContentChange::Resources)) => &[List::Resources],
                        Ok((_, ContentChange::Updated(_))) => continue,
                        Err(RecvError::Lagged(_)) => ALL,
                        Err(RecvError::Closed) => return,
                    },
                    () = tokio::time::sleep(SESSION_CHECK) => {
                        if peer.is_transport_closed() {
                            return;
                        }
                        continue;
                    }
                };
                if !matches!(
                    tokio::time::timeout(SEND_WAIT, send(&peer, changed)).await,
                    Ok(true)
                ) {
                    return;
                }
            }
        });
    }
}

/// Sends the `list_changed` of each of `changed`; false once the session is gone.
async fn send(peer: &rmcp::Peer<RoleServer>, changed: &[List]) -> bool {
    for list in changed {
        let sent = match list {
            List::Tools => peer.notify_tool_list_changed().await,
            List::Prompts => peer.notify_prompt_list_changed().await,
            List::Resources => peer.notify_resource_list_changed().await,
        };
        if sent.is_err() {
            return false;
        }
    }
    true
}
