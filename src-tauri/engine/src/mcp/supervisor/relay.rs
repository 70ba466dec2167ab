//! Requests an app makes through the endpoint and answers itself (`client::relay`), the
//! supervisor's part: which client, the tool's arguments checked as for any call, the result
//! truncated to the limits; `completion/complete` passed on to a server; and resource
//! subscriptions made for an app, with the servers' updates.

use std::collections::BTreeMap;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::Supervisor;
use super::tools::truncate;
use crate::mcp::client::progress::ProgressSink;
use crate::mcp::client::relay::{Relay, Relayed};
use crate::mcp::client::tasks::CallOutcome;
use crate::vocab::error::ToolError;
use crate::vocab::mcp::{Prompt, ResourceContent};

/// A change of a server's prompts or resources, which apps through the endpoint may hear of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContentChange {
    /// Its prompt list changed.
    Prompts,
    /// Its resource list changed.
    Resources,
    /// A resource subscribed to changed (its URI).
    Updated(String),
}

impl Supervisor {
    /// Calls `tool` of `server` for an app that answers the server's input requests itself:
    /// one round trip, the app's answers and state passed on ([`Relay`]), an `input_required`
    /// answer handed back; a task comes back as its first state.
    pub async fn call_relayed(
        &self,
        server: &str,
        tool: &str,
        args: Value,
        relay: &Relay,
        cancel: CancellationToken,
        progress: Option<ProgressSink>,
    ) -> Result<Relayed<CallOutcome>, ToolError> {
        let (client, args, timeout) = self.prepare(server, tool, args).await?;
        let call = client.call_tool_relayed(tool, args, relay, timeout, cancel, progress);
        Ok(match call.await? {
            Relayed::Done(CallOutcome::Done(result)) => {
                Relayed::Done(CallOutcome::Done(truncate(result, &self.limits())))
            }
            other => other,
        })
    }

    /// Expands prompt `prompt` of `server` for an app, as [`Supervisor::call_relayed`].
    pub async fn prompt_relayed(
        &self,
        server: &str,
        prompt: &str,
        args: BTreeMap<String, String>,
        relay: &Relay,
    ) -> Result<Relayed<Prompt>, ToolError> {
        let client = self.ready_client(server)?;
        Ok(client.get_prompt_relayed(prompt, args, relay).await?)
    }

    /// Reads `uri` from `server` for an app, as [`Supervisor::call_relayed`].
    pub async fn read_relayed(
        &self,
        server: &str,
        uri: &str,
        relay: &Relay,
    ) -> Result<Relayed<Vec<ResourceContent>>, ToolError> {
        let client = self.ready_client(server)?;
        Ok(client.read_resource_relayed(uri, relay).await?)
    }

    /// `completion/complete` (`params` as wire JSON) passed on to `server`.
    pub async fn complete(&self, server: &str, params: Value) -> Result<Value, ToolError> {
        Ok(self.ready_client(server)?.complete(params).await?)
    }

    /// Subscribes to `uri` on `server` (its updates come on [`Supervisor::resource_updates`]).
    pub async fn subscribe_resource(&self, server: &str, uri: &str) -> Result<(), ToolError> {
        Ok(self.ready_client(server)?.subscribe_resource(uri).await?)
    }

    /// Unsubscribes from `uri` on `server`.
    pub async fn unsubscribe_resource(&self, server: &str, uri: &str) -> Result<(), ToolError> {
        Ok(self.ready_client(server)?.unsubscribe_resource(uri).await?)
    }

    /// Every server's prompt and resource changes from now on, with the server's name.
    pub fn content_changes(&self) -> tokio::sync::broadcast::Receiver<(String, ContentChange)> {
        self.inner.content_changes.subscribe()
    }
}
