//! Starting and stopping configured servers by name, a running server's tools, and the
//! user's own tool call ("Try"). Thin: the work is in the supervisor (`mcp/supervisor/`) and
//! the call pipeline ([`super::calls`]).

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::McpHost;
use super::calls::{CallRequest, Called, Caller};
use crate::EngineError;
use crate::mcp::supervisor::ServerState;
use crate::vocab::error::ToolError;
use crate::vocab::mcp::{ToolInfo, ToolResult};

impl McpHost {
    /// Starts every enabled, auto-start configured server concurrently; returns each one's
    /// state once all are Ready or Failed.
    pub async fn start_servers(&self) -> Result<Vec<(String, ServerState)>, EngineError> {
        let mut configs = Vec::new();
        for record in self.store().list_servers().await? {
            let config = record.config.clone();
            if !(config.enabled && config.auto_start) {
                continue;
            }
            match self.server_secrets().runnable(record).await {
                Ok(runnable) => configs.push(runnable),
                Err(error) => self.supervisor().fail(&config.name, error.to_string()),
            }
        }
        let starts: Vec<_> = {
            let _begun = self.lifecycle.lock().await;
            let supervisor = self.supervisor();
            (configs.into_iter())
                .map(|c| {
                    let name = c.name.clone();
                    let outcome = supervisor.launch(c);
                    async move { (name, outcome.await) }
                })
                .collect()
        };
        Ok(futures::future::join_all(starts).await)
    }

    /// Starts the configured server `name` (its name or id), even when disabled or not
    /// auto-started, and waits until it is Ready; fails with the reason otherwise. A server
    /// already starting is waited for.
    pub async fn start_server(&self, name: &str) -> Result<(), EngineError> {
        let record = self.store().find_server(name).await?;
        let server = record.config.name.clone();
        let config = self.server_secrets().runnable(record).await?;
        let outcome = {
            let _begun = self.lifecycle.lock().await;
            self.supervisor().launch(config)
        };
        match outcome.await {
            ServerState::Ready { .. } => Ok(()),
            ServerState::Failed { reason } => Err(ToolError::StartFailed { server, reason }.into()),
            other => Err(ToolError::NotReady {
                server,
                state: format!("{other:?}"),
            }
            .into()),
        }
    }

    /// Pauses every server — each running one stops — or, when they are paused, resumes them:
    /// the enabled, auto-start ones start again. Returns whether servers are now paused.
    pub async fn toggle_pause(&self) -> Result<bool, EngineError> {
        let paused = {
            let mut paused = self.lifecycle.lock().await;
            *paused = !*paused;
            if *paused {
                self.supervisor().shutdown_all().await;
            }
            *paused
        };
        if !paused {
            self.start_servers().await?;
        }
        Ok(paused)
    }

    /// Stops server `name` (its configured name) and waits until its process is gone.
    pub async fn stop_server(&self, name: &str) -> bool {
        let _stopping = self.lifecycle.lock().await;
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

    /// Calls `tool` of running server `server` for the user ("Try"), through the pipeline
    /// ([`super::calls`]): the user's press is the approval; validated, timed out, truncated.
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolResult, EngineError> {
        let request = CallRequest {
            server,
            tool,
            arguments: args,
            cancel,
            progress: None,
            follows_tasks: false,
            on_start: None,
        };
        match self.run_call(request, Caller::User).await? {
            Called::Done(result) => Ok(result),
            other => unreachable_for_the_user(other),
        }
    }
}

/// A user's call is never refused or left unanswered (no policy applies) and its task is
/// awaited; should that change, the call is reported as refused rather than panicking.
fn unreachable_for_the_user(called: Called) -> Result<ToolResult, EngineError> {
    tracing::error!(?called, "a user's tool call ended without a result");
    Err(
        crate::vocab::error::ToolError::Mcp(crate::vocab::mcp::McpError::Protocol(
            "the call ended without a result".to_owned(),
        ))
        .into(),
    )
}
