//! Tasks on the wire ([`crate::mcp::client::tasks`]): the task-augmented `tools/call`, `tasks/get`,
//! `tasks/result` and `tasks/cancel`, for both protocol eras, and the 2026-07-28 extension's
//! `tasks/update` (the answers to an `input_required` task's `inputRequests`, fulfilled
//! through the same host handler as multi round-trip requests). rmcp 3.11 types only the
//! 2026-07-28 extension's shapes, so answers are read back from their JSON: a handshake-era
//! answer lands in whichever of rmcp's result types accepts it (often `CustomResult`), and
//! its JSON keeps the fields we read.

use std::time::Duration;

use rmcp::model as rm;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::{McpClient, convert, mrtr};
use crate::mcp::client::tasks::{CallOutcome, TaskOutcome, TaskState, failed, parse_task};
use crate::vocab::mcp::{McpError, ToolResult};
use crate::vocab::task::TaskStatus;

impl McpClient {
    /// Calls tool `name` as a task (`task: { ttl }`, handshake era); the server answers with
    /// the new task, or — when it ran the call at once — with its result.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        args: Map<String, Value>,
        ttl: Duration,
    ) -> Result<CallOutcome, McpError> {
        let ttl = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let params = json!({"name": name, "arguments": args, "task": {"ttl": ttl}});
        let answer = self.custom("tools/call", params).await?;
        if answer.get("task").is_some() || answer.get("resultType") == Some(&json!("task")) {
            return parse_task(&answer, tool_result).map(CallOutcome::Task);
        }
        match tool_result(&answer) {
            Some(result) => Ok(CallOutcome::Done(result)),
            None => Err(unexpected("tools/call", &answer)),
        }
    }

    /// The task's current state (`tasks/get`).
    pub async fn get_task(&self, task_id: &str) -> Result<TaskState, McpError> {
        let request = rm::GetTaskRequest::new(rm::GetTaskParams::new(task_id));
        let answer = self
            .send(rm::ClientRequest::GetTaskRequest(request))
            .await?;
        parse_task(&answer, tool_result)
    }

    /// The task's result (`tasks/result`, handshake era): the server answers once the task is
    /// terminal, sending its in-task requests (elicitation, sampling) meanwhile, so this waits
    /// without a timeout until then or until `cancel` fires.
    pub async fn task_result(
        &self,
        task_id: &str,
        cancel: CancellationToken,
    ) -> Result<ToolResult, McpError> {
        let request = rm::CustomRequest::new("tasks/result", Some(json!({"taskId": task_id})));
        let send = self
            .service
            .send_request(rm::ClientRequest::CustomRequest(request));
        let answer = tokio::select! {
            answer = send => answer.map_err(convert::service_error)?,
            () = cancel.cancelled() => return Err(McpError::Cancelled),
        };
        let answer = serde_json::to_value(&answer).unwrap_or_default();
        tool_result(&answer).ok_or_else(|| unexpected("tasks/result", &answer))
    }

    /// Asks the server to cancel the task (`tasks/cancel`).
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), McpError> {
        let request = rm::CancelTaskRequest::new(rm::CancelTaskParams::new(task_id));
        self.send(rm::ClientRequest::CancelTaskRequest(request))
            .await
            .map(drop)
    }

    /// Answers the `inputRequests` of an `input_required` task (2026-07-28): each through the
    /// host handler (the user's form, the approved model, the roots), all of them sent back
    /// in one `tasks/update`. The user's answering time is not bounded here (the broker has
    /// its own timeout); the update is. Stops when `cancel` fires.
    pub async fn answer_task_input(
        &self,
        task_id: &str,
        requests: &Value,
        cancel: &CancellationToken,
    ) -> Result<(), McpError> {
        let requests: rm::InputRequests = serde_json::from_value(requests.clone())
            .map_err(|e| McpError::Protocol(format!("a task's inputRequests: {e}")))?;
        let rounds = self.rounds("tasks/update", task_id, cancel);
        let keys: Vec<String> = requests.keys().cloned().collect();
        rounds.log(format!("the task needs input: {}", keys.join(", ")));
        let responses = tokio::select! {
            answered = mrtr::fulfil(rounds.host, requests) => answered?,
            () = cancel.cancelled() => return Err(McpError::Cancelled),
        };
        let params = rm::UpdateTaskParams::new(task_id, responses);
        self.bounded(self.service.update_task(params)).await
    }

    /// Sends `responses` for task `task_id` as they are (`tasks/update`): an app's own answers
    /// passed through the endpoint.
    pub async fn update_task(
        &self,
        task_id: &str,
        responses: rm::InputResponses,
    ) -> Result<(), McpError> {
        let params = rm::UpdateTaskParams::new(task_id, responses);
        self.bounded(self.service.update_task(params)).await
    }

    /// Follows a task to its end (for callers that do not follow tasks themselves): polls
    /// at the server's pace, answers its input requests, and returns its result; when
    /// `cancel` fires, the task is cancelled on the server.
    pub async fn await_task(
        &self,
        mut state: TaskState,
        cancel: &CancellationToken,
    ) -> Result<ToolResult, McpError> {
        loop {
            match (
                state.status,
                state.outcome.take(),
                state.input_requests.take(),
            ) {
                (_, Some(TaskOutcome::Result(result)), _) => return Ok(result),
                (_, Some(TaskOutcome::Error { code, message }), _) => {
                    return Ok(failed(code, &message));
                }
                (TaskStatus::Cancelled, ..) => return Err(McpError::Cancelled),
                (TaskStatus::InputRequired, None, Some(requests)) => {
                    self.answer_task_input(&state.task_id, &requests, cancel)
                        .await?;
                }
                (TaskStatus::InputRequired | TaskStatus::Completed | TaskStatus::Failed, ..) => {
                    return self.task_result(&state.task_id, cancel.clone()).await;
                }
                (TaskStatus::Working, ..) => {
                    tokio::select! {
                        () = tokio::time::sleep(state.next_poll()) => {}
                        () = cancel.cancelled() => {
                            let _ = self.cancel_task(&state.task_id).await;
                            return Err(McpError::Cancelled);
                        }
                    }
                }
            }
            state = self.get_task(&state.task_id).await?;
        }
    }

    /// Sends a custom request under the request timeout; its answer as JSON.
    async fn custom(&self, method: &str, params: Value) -> Result<Value, McpError> {
        let request = rm::CustomRequest::new(method, Some(params));
        self.send(rm::ClientRequest::CustomRequest(request)).await
    }

    /// Sends `request` under the request timeout; its answer as JSON.
    async fn send(&self, request: rm::ClientRequest) -> Result<Value, McpError> {
        let answer = self.bounded(self.service.send_request(request)).await?;
        Ok(serde_json::to_value(&answer).unwrap_or_default())
    }
}

/// The first state of a task the server created for a `tools/call` (2026-07-28).
pub(super) fn created(created: &rm::CreateTaskResult) -> Result<TaskState, McpError> {
    let wire = serde_json::to_value(created)
        .map_err(|e| McpError::Protocol(format!("cannot read a created task: {e}")))?;
    parse_task(&wire, tool_result)
}

/// A `CallToolResult` object as ours.
fn tool_result(value: &Value) -> Option<ToolResult> {
    let result: rm::CallToolResult = serde_json::from_value(value.clone()).ok()?;
    Some(convert::tool_result(result))
}

/// An answer of the wrong shape.
fn unexpected(method: &str, answer: &Value) -> McpError {
    let shown: String = answer.to_string().chars().take(200).collect();
    McpError::Protocol(format!("unexpected answer to {method}: {shown}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::tool_result;
    use crate::mcp::client::tasks::{TaskOutcome, parse_task};
    use crate::vocab::mcp::{ResultPart, ToolResult};
    use crate::vocab::task::TaskStatus;

    #[test]
    fn a_2026_completed_task_carries_its_tool_result_inline() {
        let wire = json!({"resultType": "complete", "taskId": "t9", "status": "completed",
            "createdAt": "2026-07-28T00:00:00Z", "lastUpdatedAt": "2026-07-28T00:00:01Z",
            "ttlMs": null, "result": {"content": [{"type": "text", "text": "42"}], "isError": false}});
        let state = parse_task(&wire, tool_result).unwrap();
        assert_eq!(state.status, TaskStatus::Completed);
        let expected = ToolResult {
            content: vec![ResultPart::Text { text: "42".into() }],
            structured: None,
            is_error: false,
        };
        assert_eq!(state.outcome, Some(TaskOutcome::Result(expected)));
    }

    #[test]
    fn a_2026_created_task_is_read_with_the_servers_poll_interval() {
        let wire = json!({"resultType": "task", "taskId": "t7", "status": "working",
            "createdAt": "2026-07-28T00:00:00Z", "lastUpdatedAt": "2026-07-28T00:00:00Z",
            "ttlMs": 60000, "pollIntervalMs": 250, "statusMessage": "queued"});
        let created: rmcp::model::CreateTaskResult = serde_json::from_value(wire).unwrap();
        let state = super::created(&created).unwrap();
        assert_eq!(state.task_id, "t7");
        assert_eq!(state.status, TaskStatus::Working);
        assert_eq!(state.message.as_deref(), Some("queued"));
        assert_eq!(state.next_poll(), std::time::Duration::from_millis(250));
        assert_eq!((state.outcome, state.input_requests), (None, None));
    }

    #[test]
    fn a_2026_input_required_task_carries_its_input_requests_for_tasks_update() {
        let asked = json!({"name": {"method": "elicitation/create", "params": {"mode": "form",
            "message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}});
        let wire = json!({"resultType": "complete", "taskId": "t8", "status": "input_required",
            "createdAt": "2026-07-28T00:00:00Z", "lastUpdatedAt": "2026-07-28T00:00:00Z",
            "ttlMs": null, "inputRequests": asked});
        let state = parse_task(&wire, tool_result).unwrap();
        assert_eq!(state.status, TaskStatus::InputRequired);
        assert_eq!(state.input_requests, Some(asked.clone()));
        let typed: rmcp::model::InputRequests = serde_json::from_value(asked).unwrap();
        assert_eq!(typed.keys().collect::<Vec<_>>(), vec!["name"]);
    }

    #[test]
    fn a_handshake_era_result_without_a_task_is_a_plain_result() {
        let wire = json!({"content": [{"type": "text", "text": "at once"}]});
        assert_eq!(tool_result(&wire).map(|r| r.content.len()), Some(1));
        assert_eq!(tool_result(&json!({"task": {"taskId": "x"}})), None);
    }
}
