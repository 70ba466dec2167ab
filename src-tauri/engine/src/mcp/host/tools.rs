//! What the agent and the shell read of running servers through the host, so nothing
//! outside `mcp/` reaches the supervisor: the tools a model is offered (App-only tools left
//! out), the servers' events and pending requests to the user, one server's state, shutting
//! everything down, and following a call that became a task ([`TaskCalls`]).

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::McpHost;
use crate::mcp::client::app_documents::visible_to_model;
use crate::mcp::client::tasks::TaskState;
use crate::mcp::supervisor::interact::Interactions;
use crate::mcp::supervisor::{ServerState, Supervisor, SupervisorEvent};
use crate::vocab::error::ToolError;
use crate::vocab::mcp::{ToolInfo, ToolResult};

/// One running server's tools as a model is offered them.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerTools {
    /// The server's name.
    pub server: String,
    /// Its state.
    pub state: ServerState,
    /// Its tools a model may call (none unless it is ready).
    pub tools: Vec<ToolInfo>,
}

impl McpHost {
    /// The tools a model is offered from `servers` (every supervised server when `None`), in
    /// order, each with its server: a server still starting (just added or switched on) is
    /// waited for, up to the [`super::turn_start::SERVER_WAIT`] setting; a list whose cache
    /// hint ran out is listed again first (all such servers concurrently), the others are
    /// reused with no request; App-only tools are left out.
    pub async fn model_tools(&self, servers: Option<&[String]>) -> Vec<(String, ToolInfo)> {
        let all: Vec<String>;
        let servers = match servers {
            Some(list) => list,
            None => {
                all = self
                    .supervisor
                    .states()
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect();
                &all
            }
        };
        self.wait_while_starting(servers).await;
        let mut tools = self.supervisor.current_tools_for(servers).await;
        tools.retain(|(_, t)| visible_to_model(t.ui.as_ref()));
        tools
    }

    /// Waits until none of `servers` is starting, or the server wait has passed.
    async fn wait_while_starting(&self, servers: &[String]) {
        let starting = || {
            (servers.iter())
                .any(|name| matches!(self.supervisor.state(name), Some(ServerState::Starting)))
        };
        if !starting() {
            return;
        }
        let deadline = tokio::time::Instant::now() + self.server_wait().await;
        let mut events = self.supervisor.subscribe();
        while starting() {
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Err(_) | Ok(Err(broadcast::error::RecvError::Closed)) => return,
                Ok(_) => {}
            }
        }
    }

    /// Every supervised server with its state and the tools a model is offered from it, from
    /// the lists already held (no request).
    pub fn servers_with_tools(&self) -> Vec<ServerTools> {
        let states = self.supervisor.states();
        (states.into_iter())
            .map(|(server, state)| {
                let mut tools: Vec<ToolInfo> = (self.supervisor)
                    .tools_for(std::slice::from_ref(&server))
                    .into_iter()
                    .map(|(_, t)| t)
                    .collect();
                tools.retain(|t| visible_to_model(t.ui.as_ref()));
                ServerTools {
                    server,
                    state,
                    tools,
                }
            })
            .collect()
    }

    /// Server state changes, tool-list changes and log lines, as they happen.
    pub fn subscribe(&self) -> broadcast::Receiver<SupervisorEvent> {
        self.supervisor.subscribe()
    }

    /// The servers' requests waiting for the user (elicitation, sampling).
    pub fn interactions(&self) -> &Interactions {
        self.supervisor.interactions()
    }

    /// Server `name`'s state, when it is supervised.
    pub fn server_state(&self, name: &str) -> Option<ServerState> {
        self.supervisor.state(name)
    }

    /// Stops every server, in parallel (at exit).
    pub async fn shutdown(&self) {
        self.supervisor.shutdown_all().await;
    }

    /// Following calls that became tasks on their servers.
    pub fn tasks(&self) -> TaskCalls<'_> {
        TaskCalls {
            supervisor: &self.supervisor,
        }
    }
}

/// Following a tool call a server runs as a task: its status, the input it asks for, its
/// result, cancelling it.
#[derive(Clone, Copy, Debug)]
pub struct TaskCalls<'a> {
    supervisor: &'a Supervisor,
}

impl TaskCalls<'_> {
    /// The current state of task `task_id` on `server`.
    pub async fn status(&self, server: &str, task_id: &str) -> Result<TaskState, ToolError> {
        self.supervisor.task_status(server, task_id).await
    }

    /// Answers what an `input_required` task asks for, through the user.
    pub async fn input(
        &self,
        server: &str,
        state: &TaskState,
        cancel: &CancellationToken,
    ) -> Result<(), ToolError> {
        self.supervisor.task_input(server, state, cancel).await
    }

    /// The result of a terminal (or input-required) task, truncated to the limits.
    pub async fn result(
        &self,
        server: &str,
        state: &TaskState,
        cancel: CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        self.supervisor.task_result(server, state, cancel).await
    }

    /// Asks `server` to cancel task `task_id`; the task's state after it.
    pub async fn cancel(&self, server: &str, task_id: &str) -> Result<TaskState, ToolError> {
        self.supervisor.task_cancel(server, task_id).await
    }
}
