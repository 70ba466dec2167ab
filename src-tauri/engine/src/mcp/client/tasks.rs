//! Tool calls a server runs as **tasks**: the call returns a task handle at once, the host
//! polls the task's status, fetches its result when it is done, and may cancel it.
//!
//! Two wire shapes exist and both end up in the types here:
//! - the handshake era (2025-11-25, SEP-1686): a tool declares `execution.taskSupport`; the
//!   host adds `task: { ttl }` to `tools/call`, gets `{ task: {...} }` back, polls `tasks/get`,
//!   fetches the result with `tasks/result` (which also carries the server's in-task requests,
//!   e.g. elicitation while `input_required`), and cancels with `tasks/cancel`;
//! - the Tasks extension of 2026-07-28 (SEP-2663, `io.modelcontextprotocol/tasks`): the server
//!   answers `tools/call` with `resultType: "task"` (only to a client that declares the
//!   extension, which we do), `tasks/get` carries the final result (or error) inline once the
//!   task is terminal, an `input_required` task lists its `inputRequests`, answered with
//!   `tasks/update`, and `tasks/cancel` is cooperative.
//!
//! rmcp 3.11 models only the second; the client reads both from JSON into the types here
//! (`task_requests.rs` sends the requests). The supervisor's part (which client, which tool)
//! is `supervisor/task_calls.rs`.

use std::time::Duration;

use serde_json::Value;

use crate::vocab::mcp::{McpError, ResultPart, ToolResult};
use crate::vocab::task::TaskStatus;

/// How often a task is polled when the server suggests nothing.
pub(crate) const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// The fastest we poll, whatever the server suggests.
pub(crate) const MIN_POLL: Duration = Duration::from_millis(100);
/// The slowest we poll, whatever the server suggests.
pub(crate) const MAX_POLL: Duration = Duration::from_secs(30);
/// How long a cancel waits for the task to settle (cancellation is cooperative).
pub(crate) const CANCEL_SETTLE: Duration = Duration::from_secs(2);
/// How long we ask a server to keep a task's result (handshake era `ttl`).
pub(crate) const TASK_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// What the server said about a task.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskState {
    /// The server's id for it.
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// The server's status message (shown as the task's progress).
    pub message: Option<String>,
    /// How often the server would like to be polled.
    pub poll_interval: Option<Duration>,
    /// The final outcome, when the server sent it inline (the 2026-07-28 extension).
    pub outcome: Option<TaskOutcome>,
    /// What an `input_required` task of the 2026-07-28 extension asks for (its
    /// `inputRequests` object, answered with `tasks/update`); `None` in the handshake era,
    /// whose tasks ask through `tasks/result`.
    pub input_requests: Option<Value>,
}

impl TaskState {
    /// The time to wait before the next poll, within [`MIN_POLL`]..[`MAX_POLL`].
    pub fn next_poll(&self) -> Duration {
        self.poll_interval
            .unwrap_or(DEFAULT_POLL)
            .clamp(MIN_POLL, MAX_POLL)
    }
}

/// A terminal task's outcome, when the server included it.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskOutcome {
    /// The tool's result.
    Result(ToolResult),
    /// The JSON-RPC error that failed the task.
    Error {
        /// Its code.
        code: i64,
        /// Its message.
        message: String,
    },
}

/// How a tool call answered.
#[derive(Clone, Debug, PartialEq)]
pub enum CallOutcome {
    /// With its result.
    Done(ToolResult),
    /// With a task to poll.
    Task(TaskState),
}

/// Reads a task object (handshake-era `Task`, a 2026-07-28 `DetailedTask`, or either wrapped
/// in `{ "task": … }`); `result` turns an inline result object into ours.
pub(crate) fn parse_task(
    value: &Value,
    result: impl Fn(&Value) -> Option<ToolResult>,
) -> Result<TaskState, McpError> {
    let task = value.get("task").filter(|t| t.is_object()).unwrap_or(value);
    let bad = |what: &str| McpError::Protocol(format!("a task without {what}: {}", short(value)));
    let task_id = task.get("taskId").and_then(Value::as_str);
    let task_id = task_id.ok_or_else(|| bad("a taskId"))?.to_owned();
    let status = task.get("status").and_then(Value::as_str);
    let status = status
        .and_then(TaskStatus::parse)
        .ok_or_else(|| bad("a known status"))?;
    let poll = ["pollIntervalMs", "pollInterval"]
        .iter()
        .find_map(|k| task.get(*k).and_then(Value::as_u64))
        .map(Duration::from_millis);
    Ok(TaskState {
        task_id,
        status,
        message: task
            .get("statusMessage")
            .and_then(Value::as_str)
            .map(str::to_owned),
        poll_interval: poll,
        outcome: outcome(task, result),
        input_requests: task.get("inputRequests").filter(|r| r.is_object()).cloned(),
    })
}

fn outcome(task: &Value, result: impl Fn(&Value) -> Option<ToolResult>) -> Option<TaskOutcome> {
    if let Some(r) = task.get("result").and_then(&result) {
        return Some(TaskOutcome::Result(r));
    }
    let error = task.get("error")?;
    Some(TaskOutcome::Error {
        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("the task failed")
            .to_owned(),
    })
}

/// The first 200 characters of `value`'s JSON.
fn short(value: &Value) -> String {
    value.to_string().chars().take(200).collect()
}

/// Whether a plain call's answer says the tool must be run as a task (handshake era: the
/// server's `-32601`, which the TypeScript SDK sends back as an error result instead).
pub(crate) fn needs_task(answer: &Result<ToolResult, McpError>) -> bool {
    const SIGN: &str = "requires task augmentation";
    match answer {
        Err(McpError::ServerError { code, message, .. }) => {
            *code == super::METHOD_NOT_FOUND && message.contains("task")
        }
        Ok(r) if r.is_error => r.content.iter().any(|p| match p {
            ResultPart::Text { text } => text.contains(SIGN),
            _ => false,
        }),
        _ => false,
    }
}

/// The result of a task that failed with a JSON-RPC error.
pub(crate) fn failed(code: i64, message: &str) -> ToolResult {
    ToolResult {
        content: vec![ResultPart::Text {
            text: format!("The task failed (error {code}): {message}"),
        }],
        structured: None,
        is_error: true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn no_result(_: &Value) -> Option<ToolResult> {
        None
    }

    #[test]
    fn a_handshake_era_create_task_result_is_read_from_its_task_member() {
        let wire = json!({"task": {"taskId": "t1", "status": "working", "statusMessage": "Gathering",
            "createdAt": "2026-01-01T00:00:00Z", "ttl": 300000, "pollInterval": 1000}});
        let state = parse_task(&wire, no_result).unwrap();
        assert_eq!(
            state,
            TaskState {
                task_id: "t1".into(),
                status: TaskStatus::Working,
                message: Some("Gathering".into()),
                poll_interval: Some(Duration::from_millis(1000)),
                outcome: None,
                input_requests: None,
            }
        );
    }

    #[test]
    fn a_2026_detailed_task_carries_its_error_inline() {
        let wire = json!({"resultType": "complete", "taskId": "t2", "status": "failed",
            "pollIntervalMs": 50, "error": {"code": -32603, "message": "boom"}});
        let state = parse_task(&wire, no_result).unwrap();
        assert_eq!(state.status, TaskStatus::Failed);
        assert_eq!(state.next_poll(), MIN_POLL);
        assert_eq!(
            state.outcome,
            Some(TaskOutcome::Error {
                code: -32603,
                message: "boom".into()
            })
        );
    }

    #[test]
    fn a_task_with_an_unknown_status_is_a_protocol_error() {
        let wire = json!({"taskId": "t3", "status": "sleeping"});
        let err = parse_task(&wire, no_result).unwrap_err();
        assert!(matches!(err, McpError::Protocol(m) if m.contains("known status")));
    }

    #[test]
    fn the_sdks_task_required_error_result_asks_for_a_task() {
        let text = "MCP error -32601: Tool x requires task augmentation (taskSupport: 'required')";
        let answer = Ok(ToolResult {
            content: vec![ResultPart::Text { text: text.into() }],
            structured: None,
            is_error: true,
        });
        assert!(needs_task(&answer));
        let plain = Ok(failed(1, "requires nothing"));
        assert!(!needs_task(&plain));
    }
}
