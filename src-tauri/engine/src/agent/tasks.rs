//! Waiting for tool calls a server runs as tasks (`mcp/client/tasks.rs`). A call that became
//! a task is followed here: its handle is stored (so it survives a restart), it is polled at
//! the server's pace while other calls go on, each status is reported as a `tool_task` event,
//! and its result is fetched when it ends. Stopping the turn, or the user's cancel button
//! ([`Agent::cancel_task`]), cancels it on the server. On start, [`Agent::resume_tasks`]
//! asks the servers about the tasks a previous run left open and completes their results.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio_util::sync::CancellationToken;

use super::Agent;
use super::Events;
use super::error_result;
use crate::EngineError;
use crate::mcp::TaskState;
use crate::store::TaskRecord;
use crate::vocab::chat::{CallView, ChatEvent};
use crate::vocab::content::ContentPart;
use crate::vocab::mcp::ToolResult;
use crate::vocab::task::TaskStatus;

/// How many polls in a row may fail (the server restarting, say) before we give up waiting.
const POLL_FAILURES: u32 = 60;

/// The tasks being waited for in this process, by call id, with what cancels each.
#[derive(Clone, Debug, Default)]
pub struct RunningTasks {
    tokens: Arc<Mutex<HashMap<String, CancellationToken>>>,
}

/// Removes a task from [`RunningTasks`] when its wait ends.
struct Waiting {
    tasks: RunningTasks,
    call_id: String,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.tasks.lock().remove(&self.call_id);
    }
}

impl RunningTasks {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.tokens.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn register(&self, call_id: &str, token: CancellationToken) -> Waiting {
        self.lock().insert(call_id.to_owned(), token);
        Waiting {
            tasks: self.clone(),
            call_id: call_id.to_owned(),
        }
    }

    /// Cancels the wait for call `call_id`; false when none runs here.
    fn cancel(&self, call_id: &str) -> bool {
        self.lock()
            .get(call_id)
            .map(CancellationToken::cancel)
            .is_some()
    }
}

/// Where a followed task reports to.
struct Follow<'a> {
    agent: &'a Agent,
    record: TaskRecord,
    events: Option<&'a Events>,
    /// The status and message last reported (polls that change nothing report nothing).
    last: Option<(TaskStatus, Option<String>)>,
}

impl Follow<'_> {
    /// Stores and reports `state`, when it differs from the last one reported.
    async fn report(&mut self, state: &TaskState) {
        let now = Some((state.status, state.message.clone()));
        if self.last == now {
            return;
        }
        self.last = now;
        let message = state.message.as_deref();
        let stored = self
            .agent
            .store()
            .set_task_status(&state.task_id, state.status, message);
        if let Err(e) = stored.await {
            tracing::warn!(error = %e, "could not store a task's status");
        }
        self.record.status = state.status;
        if let Some(events) = self.events {
            let _ = events.send(ChatEvent::ToolTask {
                call_id: self.record.call_id.clone(),
                task_id: state.task_id.clone(),
                status: state.status,
                message: state.message.clone(),
            });
        }
    }
}

/// Follows the task call `call` became, from its first `state` to its result. The handle is
/// stored under tool message `message_id` first.
pub(super) async fn follow(
    agent: &Agent,
    conversation: &str,
    message_id: &str,
    call: &CallView,
    state: TaskState,
    events: &Events,
    cancel: CancellationToken,
) -> ToolResult {
    let record = TaskRecord {
        message_id: message_id.to_owned(),
        call_id: call.id.clone(),
        conversation_id: conversation.to_owned(),
        server: call.server.clone(),
        tool: call.tool.clone(),
        task_id: state.task_id.clone(),
        status: state.status,
        status_message: state.message.clone(),
    };
    if let Err(e) = agent.store().insert_task(&record).await {
        tracing::warn!(error = %e, "could not store a task's handle; it will not survive a restart");
    }
    let _waiting = agent.state.tasks.register(&call.id, cancel.clone());
    let mut follow = Follow {
        agent,
        record,
        events: Some(events),
        last: None,
    };
    wait(&mut follow, state, &cancel)
        .await
        .unwrap_or_else(|r| r)
}

/// Polls until the task ends; its result (`Err` holds the result of a task that did not
/// end normally: cancelled, or the server could not be asked). A 2026-07-28 task waiting for
/// input has its `inputRequests` answered (the user's form, the approved model, the roots)
/// with `tasks/update`, then is polled again at once.
async fn wait(
    follow: &mut Follow<'_>,
    mut state: TaskState,
    cancel: &CancellationToken,
) -> Result<ToolResult, ToolResult> {
    let (agent, server) = (follow.agent, follow.record.server.clone());
    let mut failures = 0;
    loop {
        follow.report(&state).await;
        match state.status {
            TaskStatus::InputRequired if state.input_requests.is_some() => {
                answer(follow, &state, cancel).await?;
            }
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::InputRequired => {
                return fetch(follow, &state, cancel).await;
            }
            TaskStatus::Cancelled => return Err(error_result("The task was cancelled.")),
            TaskStatus::Working => {
                tokio::select! {
                    () = tokio::time::sleep(state.next_poll()) => {}
                    () = cancel.cancelled() => return Err(cancel_on_server(follow, &state).await),
                }
            }
        }
        match agent.mcp().tasks().status(&server, &state.task_id).await {
            Ok(next) => (state, failures) = (next, 0),
            Err(e) if failures + 1 >= POLL_FAILURES => {
                return Err(error_result(format!("The task could not be followed: {e}")));
            }
            Err(_) => failures += 1,
        }
    }
}

/// Answers the input requests of a 2026-07-28 task; a task whose questions could not be
/// answered (a refused sampling request, say) is cancelled on its server, since it would
/// otherwise wait for an answer that never comes.
async fn answer(
    follow: &mut Follow<'_>,
    state: &TaskState,
    cancel: &CancellationToken,
) -> Result<(), ToolResult> {
    let tasks = follow.agent.mcp().tasks();
    let server = follow.record.server.clone();
    match tasks.input(&server, state, cancel).await {
        Ok(()) => Ok(()),
        Err(_) if cancel.is_cancelled() => Err(cancel_on_server(follow, state).await),
        Err(e) => {
            let _ = cancel_on_server(follow, state).await;
            Err(error_result(format!(
                "The task's questions could not be answered: {e}"
            )))
        }
    }
}

/// The result of a task that ended (or waits for input: `tasks/result` carries the server's
/// questions and returns when the task is done).
async fn fetch(
    follow: &mut Follow<'_>,
    state: &TaskState,
    cancel: &CancellationToken,
) -> Result<ToolResult, ToolResult> {
    let tasks = follow.agent.mcp().tasks();
    let server = follow.record.server.clone();
    match tasks.result(&server, state, cancel.clone()).await {
        Ok(result) => {
            if state.status == TaskStatus::InputRequired {
                let mut done = state.clone();
                done.status = TaskStatus::Completed;
                follow.report(&done).await;
            }
            Ok(result)
        }
        Err(_) if cancel.is_cancelled() => Err(cancel_on_server(follow, state).await),
        Err(e) if state.status == TaskStatus::Failed => {
            let why = state.message.clone().unwrap_or_else(|| e.to_string());
            Err(error_result(format!("The task failed: {why}")))
        }
        Err(e) => Err(error_result(format!(
            "The task's result could not be fetched: {e}"
        ))),
    }
}

/// Sends `tasks/cancel` and reports what the server says the task is now.
async fn cancel_on_server(follow: &mut Follow<'_>, state: &TaskState) -> ToolResult {
    let tasks = follow.agent.mcp().tasks();
    match tasks.cancel(&follow.record.server, &state.task_id).await {
        Ok(after) => follow.report(&after).await,
        Err(e) => tracing::warn!(error = %e, "could not cancel a task on its server"),
    }
    error_result("The user cancelled this task.")
}

impl Agent {
    /// Cancels the task of tool call `call_id`: the running wait is told to cancel it on its
    /// server; a task no wait follows here (a stored one) is cancelled on its server directly.
    pub async fn cancel_task(&self, call_id: &str) -> Result<(), EngineError> {
        if self.state.tasks.cancel(call_id) {
            return Ok(());
        }
        let Some(record) = self.store().task_of_call(call_id).await? else {
            return Err(crate::store::StoreError::NotFound {
                entity: "task",
                id: call_id.to_owned(),
            }
            .into());
        };
        let after = self
            .mcp()
            .tasks()
            .cancel(&record.server, &record.task_id)
            .await?;
        let message = after.message.as_deref();
        Ok(self
            .store()
            .set_task_status(&after.task_id, after.status, message)
            .await?)
    }

    /// Follows, in the background, every task a previous run left open: asks its server for
    /// its status (waiting for the server to be ready), and when it ends puts its result into
    /// the tool message of its call. Returns the spawned waits.
    pub async fn resume_tasks(&self) -> Result<Vec<tokio::task::JoinHandle<()>>, EngineError> {
        let open = self.store().open_tasks().await?;
        Ok(open
            .into_iter()
            .map(|record| tokio::spawn(resume(self.clone(), record)))
            .collect())
    }
}

/// Follows one stored task to its end and stores its result (not when its server could not
/// be reached: then the next start tries again).
async fn resume(agent: Agent, record: TaskRecord) {
    let cancel = CancellationToken::new();
    let _waiting = agent.state.tasks.register(&record.call_id, cancel.clone());
    let state = TaskState {
        task_id: record.task_id.clone(),
        status: TaskStatus::Working,
        message: record.status_message.clone(),
        poll_interval: None,
        outcome: None,
        input_requests: None,
    };
    let (message_id, call_id) = (record.message_id.clone(), record.call_id.clone());
    let mut follow = Follow {
        agent: &agent,
        record,
        events: None,
        last: None,
    };
    let result = wait(&mut follow, state, &cancel)
        .await
        .unwrap_or_else(|r| r);
    if !follow.record.status.is_terminal() {
        // The server could not be asked: the handle stays open for the next start.
        return;
    }
    // Stored as a live call stores it: with the App it renders, if its tool has one.
    let (server, tool) = (&follow.record.server, &follow.record.tool);
    let part = ContentPart::ToolResult {
        call_id,
        content: crate::mcp::apps_result_json(agent.mcp(), server, tool, &result).await,
        is_error: result.is_error,
    };
    if let Err(e) = agent.store().complete_tool_result(&message_id, part).await {
        tracing::warn!(error = %e, "could not store a resumed task's result");
    }
}
