//! The engine's MCP host operations: starting and stopping configured servers by name,
//! calling tools, deciding approval and changing policies. Thin: the work is in
//! [`super::supervisor`], [`super::tools`] and [`super::policy`].

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::policy::{AUTO_ALLOW_READ_ONLY, Decision};
use super::supervisor::ServerState;
use super::tools::ToolError;
use crate::vocab::Approval;
use crate::vocab::mcp::{ToolInfo, ToolResult};
use crate::{Engine, EngineError};

impl Engine {
    /// Starts every enabled, auto-start configured server concurrently; returns each one's
    /// state once all are Ready or Failed.
    pub async fn start_servers(&self) -> Result<Vec<(String, ServerState)>, EngineError> {
        let configs: Vec<_> = self.store().list_servers().await?;
        let configs: Vec<_> = configs.into_iter().map(|r| r.config).collect();
        Ok(self.supervisor().start_all(&configs).await)
    }

    /// Starts the configured server `name` (its name or id), even when disabled or not
    /// auto-started, and waits until it is Ready; fails with the reason otherwise.
    pub async fn start_server(&self, name: &str) -> Result<(), EngineError> {
        let record = self.store().find_server(name).await?;
        let server = record.config.name.clone();
        match self.supervisor().start(record.config).await {
            ServerState::Ready { .. } => Ok(()),
            ServerState::Failed { reason } => Err(ToolError::StartFailed { server, reason }.into()),
            other => Err(ToolError::NotReady {
                server,
                state: format!("{other:?}"),
            }
            .into()),
        }
    }

    /// Stops server `name` (its configured name) and waits until its process is gone.
    pub async fn stop_server(&self, name: &str) -> bool {
        self.supervisor().stop(name).await
    }

    /// The cached tools of running server `name`.
    pub fn server_tools(&self, name: &str) -> Result<Vec<ToolInfo>, EngineError> {
        let tools = self.supervisor().tools_for(&[name.to_owned()]);
        if tools.is_empty() && self.supervisor().state(name).is_none() {
            let server = name.to_owned();
            return Err(ToolError::UnknownServer { server }.into());
        }
        Ok(tools.into_iter().map(|(_, t)| t).collect())
    }

    /// Calls `tool` of running server `server` (validated, timed out, truncated).
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolResult, EngineError> {
        Ok(self.supervisor().call(server, tool, args, cancel).await?)
    }

    /// Whether a call of `tool` of running server `server` in `conversation` may run.
    pub async fn decide(
        &self,
        server: &str,
        tool: &str,
        conversation: &str,
    ) -> Result<Decision, EngineError> {
        let tools = self.supervisor().tools_for(&[server.to_owned()]);
        let Some((_, info)) = tools.into_iter().find(|(_, t)| t.name == tool) else {
            let (server, tool) = (server.to_owned(), tool.to_owned());
            return Err(ToolError::UnknownTool { server, tool }.into());
        };
        let store = self.store();
        let policies = self.policies();
        let decision = policies.decide(store, server, tool, &info.annotations, conversation);
        Ok(decision.await?)
    }

    /// Sets (or with `None` clears) the user's policy for `tool` of server `server`.
    pub async fn set_tool_policy(
        &self,
        server: &str,
        tool: &str,
        policy: Option<Approval>,
    ) -> Result<(), EngineError> {
        let record = self.store().find_server(server).await?;
        Ok(self
            .store()
            .set_tool_policy(&record.id, tool, policy)
            .await?)
    }

    /// The tool policies the user set for server `server` (name or id), by tool name.
    pub async fn tool_policies(
        &self,
        server: &str,
    ) -> Result<std::collections::BTreeMap<String, Approval>, EngineError> {
        let record = self.store().find_server(server).await?;
        Ok(self.store().tool_policies(&record.id).await?)
    }

    /// Turns the auto-allowing of read-only tools on or off.
    pub async fn set_auto_allow_read_only(&self, on: bool) -> Result<(), EngineError> {
        let value = Value::Bool(on);
        Ok(self
            .store()
            .set_setting(AUTO_ALLOW_READ_ONLY, &value)
            .await?)
    }
}
