//! Tool calls a server runs as **tasks**, the supervisor's part: which client and tool,
//! the plain call that turns out to need a task, and following a task (`task_*`). The wire
//! shapes of both eras and the task types are the client's (`client/tasks.rs`).

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::Supervisor;
use super::tools::truncate;
use crate::mcp::client::progress::ProgressSink;
use crate::mcp::client::tasks::{
    CANCEL_SETTLE, CallOutcome, MIN_POLL, TASK_TTL, TaskOutcome, TaskState, failed, needs_task,
};
use crate::vocab::error::ToolError;
use crate::vocab::mcp::{McpError, ToolResult};

impl Supervisor {
    /// Calls `tool` of `server` like [`Supervisor::call_with_progress`], but a tool the
    /// server runs as a task answers with its [`TaskState`] instead of waiting: a 2026-07-28
    /// server answers the call with a task itself (the Tasks extension, which we advertise);
    /// in the handshake era, a plain call first and — when the server says the tool must run
    /// as a task — a task-augmented one.
    pub async fn call_outcome(
        &self,
        server: &str,
        tool: &str,
        args: Value,
        cancel: CancellationToken,
        progress: Option<ProgressSink>,
    ) -> Result<CallOutcome, ToolError> {
        let (client, args, timeout) = self.prepare(server, tool, args).await?;
        let call = client.call_tool_outcome(tool, args.clone(), timeout, cancel.clone(), progress);
        let answer = match call.await {
            Ok(CallOutcome::Task(state)) => return Ok(CallOutcome::Task(state)),
            Ok(CallOutcome::Done(result)) => Ok(result),
            Err(e) => Err(e),
        };
        if !needs_task(&answer) {
            return Ok(CallOutcome::Done(truncate(answer?, &self.limits())));
        }
        if cancel.is_cancelled() {
            return Err(ToolError::Mcp(McpError::Cancelled));
        }
        Ok(client.call_tool_as_task(tool, args, TASK_TTL).await?)
    }

    /// Answers the `inputRequests` of `state`, an `input_required` task of the 2026-07-28
    /// extension on `server`, through the interaction broker, with `tasks/update`.
    pub async fn task_input(
        &self,
        server: &str,
        state: &TaskState,
        cancel: &CancellationToken,
    ) -> Result<(), ToolError> {
        let Some(requests) = &state.input_requests else {
            return Ok(());
        };
        let client = self.ready_client(server)?;
        Ok(client
            .answer_task_input(&state.task_id, requests, cancel)
            .await?)
    }

    /// Passes an app's answers (`responses`) to what task `task_id` on `server` asks
    /// (`tasks/update`), as they are.
    pub async fn task_update(
        &self,
        server: &str,
        task_id: &str,
        responses: rmcp::model::InputResponses,
    ) -> Result<(), ToolError> {
        let client = self.ready_client(server)?;
        Ok(client.update_task(task_id, responses).await?)
    }

    /// The current state of task `task_id` on `server` (`tasks/get`).
    pub async fn task_status(&self, server: &str, task_id: &str) -> Result<TaskState, ToolError> {
        Ok(self.ready_client(server)?.get_task(task_id).await?)
    }

    /// The result of terminal (or input-required) task `task_id` on `server`: the inline one
    /// of `state` when the server sent it, else `tasks/result` (which waits for the task to
    /// end, answering the server's in-task requests on the way). Truncated to the limits.
    pub async fn task_result(
        &self,
        server: &str,
        state: &TaskState,
        cancel: CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        let result = match &state.outcome {
            Some(TaskOutcome::Result(r)) => r.clone(),
            Some(TaskOutcome::Error { code, message }) => failed(*code, message),
            None => {
                let client = self.ready_client(server)?;
                client.task_result(&state.task_id, cancel).await?
            }
        };
        Ok(truncate(result, &self.limits()))
    }

    /// Asks `server` to cancel task `task_id` (`tasks/cancel`); the task's state after it.
    /// Cancellation is cooperative in the 2026-07-28 extension (the server acknowledges, the
    /// task settles a moment later), so the state is polled for up to [`CANCEL_SETTLE`] until
    /// it is terminal.
    pub async fn task_cancel(&self, server: &str, task_id: &str) -> Result<TaskState, ToolError> {
        let client = self.ready_client(server)?;
        client.cancel_task(task_id).await?;
        let deadline = tokio::time::Instant::now() + CANCEL_SETTLE;
        loop {
            let state = client.get_task(task_id).await?;
            if state.status.is_terminal() || tokio::time::Instant::now() >= deadline {
                return Ok(state);
            }
            tokio::time::sleep(MIN_POLL).await;
        }
    }
}
