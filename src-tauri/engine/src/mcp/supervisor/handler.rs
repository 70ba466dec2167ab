//! [`ServerHost`]: the host side of one supervised connection — where the server's
//! notifications, requests to the user and `roots/list` go (a request to the user made
//! during an app's call through the endpoint goes to that app when it can answer it).

use futures::future::BoxFuture;
use tokio::sync::mpsc;

use crate::mcp::builtin::KnowledgeSlot;
use crate::mcp::client::interact_types::{
    ElicitationReply, ElicitationRequest, SamplingRefused, SamplingRequest, SamplingResult,
};
use crate::mcp::client::relay::AppAsker;
use crate::mcp::client::roots::{RootInfo, Roots};
use crate::mcp::client::{HostCapabilities, HostHandler};
use crate::mcp::supervisor::calling_apps::CallingApps;
use crate::mcp::supervisor::interact::Interactions;
use crate::vocab::knowledge::KnowledgeSearch;
use crate::vocab::mcp::ServerNotification;

/// The host side of one server's connection: its notifications go to the supervising task,
/// its requests to the user (through [`Interactions`]) and the roots.
pub(super) struct ServerHost {
    pub(super) server: String,
    pub(super) notifications: mpsc::UnboundedSender<ServerNotification>,
    pub(super) interactions: Interactions,
    pub(super) roots: Roots,
    pub(super) knowledge: KnowledgeSlot,
    pub(super) calling_apps: CallingApps,
}

impl HostHandler for ServerHost {
    fn notify(&self, notification: ServerNotification) {
        let _ = self.notifications.send(notification);
    }

    fn capabilities(&self) -> HostCapabilities {
        HostCapabilities::ALL
    }

    fn roots(&self) -> Vec<RootInfo> {
        self.roots.list()
    }

    fn knowledge(&self) -> Option<std::sync::Arc<dyn KnowledgeSearch>> {
        self.knowledge.get().cloned()
    }

    fn calling_app(&self, method: &str) -> Option<std::sync::Arc<dyn AppAsker>> {
        self.calling_apps.the_one(&self.server, method)
    }

    fn sample(
        &self,
        request: SamplingRequest,
    ) -> BoxFuture<'static, Result<SamplingResult, SamplingRefused>> {
        let (interactions, server) = (self.interactions.clone(), self.server.clone());
        Box::pin(async move { interactions.sample(&server, request).await })
    }

    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'static, ElicitationReply> {
        let (interactions, server) = (self.interactions.clone(), self.server.clone());
        Box::pin(async move { interactions.elicit(&server, request).await })
    }
}
