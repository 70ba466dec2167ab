//! Tasks passed through (the 2026-07-28 Tasks extension, SEP-2663): an app that declares the
//! extension and calls a tool its server runs as a task gets the task back, under an id of
//! Switchboard's; its `tasks/get`, `tasks/update` and `tasks/cancel` on that id go to the
//! server's task. The ids are new UUIDs kept per app ([`ServedTasks`]), so an app reaches only
//! the tasks of its own approved calls and never learns a server's own ids. A server's task
//! of the handshake era (its result fetched with `tasks/result`) is served the same way: its
//! result is fetched once it is done and carried inline, as the extension does.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::ErrorData;
use rmcp::model as rm;
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{Gateway, convert};
use crate::mcp::client::tasks::{TASK_TTL, TaskOutcome, TaskState};
use crate::vocab::mcp::ToolResult;
use crate::vocab::task::TaskStatus;

/// Tasks kept per endpoint; past it the oldest is forgotten (its id then unknown).
const KEPT: usize = 1024;

/// One task served to an app.
#[derive(Clone, Debug)]
struct Served {
    /// The id the app knows.
    id: String,
    /// The app (its client id, else its name).
    asker: String,
    /// The server running it, and its id there.
    server: String,
    upstream: String,
    /// When it was made (RFC 3339).
    created_at: String,
}

/// The tasks served to apps, shared by every session of an endpoint.
#[derive(Clone, Debug, Default)]
pub(super) struct ServedTasks(Arc<Mutex<VecDeque<Served>>>);

impl ServedTasks {
    fn lock(&self) -> MutexGuard<'_, VecDeque<Served>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps `upstream` of `server` as a task of `asker`'s, under a new id.
    fn serve(&self, asker: &str, server: &str, upstream: &str) -> Served {
        let served = Served {
            id: uuid::Uuid::new_v4().to_string(),
            asker: asker.to_owned(),
            server: server.to_owned(),
            upstream: upstream.to_owned(),
            created_at: now(),
        };
        let mut tasks = self.lock();
        if tasks.len() >= KEPT {
            tasks.pop_front();
        }
        tasks.push_back(served.clone());
        served
    }

    /// `asker`'s task `id`.
    fn find(&self, asker: &str, id: &str) -> Option<Served> {
        (self.lock().iter())
            .find(|t| t.id == id && t.asker == asker)
            .cloned()
    }
}

impl Gateway {
    /// Whether the requesting app declared the Tasks extension (its request's capabilities, or
    /// its handshake's).
    pub(super) fn follows_tasks(context: &RequestContext<RoleServer>) -> bool {
        (context.client_capabilities()).is_some_and(|c| c.supports_tasks())
    }

    /// Who asks, as tasks and issued states are kept: the client the user made, else the name
    /// the app gave.
    pub(super) fn asker(context: &RequestContext<RoleServer>) -> String {
        Self::authorized(context).map_or_else(|| Self::client_name(context), |c| c.id.clone())
    }

    /// The answer to a call its server made a task of: the task, under a new id of `asker`'s.
    pub(super) async fn task_created(
        &self,
        asker: &str,
        server: &str,
        state: TaskState,
    ) -> Result<rm::CallToolResponse, ErrorData> {
        let served = self.tasks.serve(asker, server, &state.task_id);
        let detailed = self.detailed(&served, state).await?;
        Ok(rm::CallToolResponse::Task(rm::CreateTaskResult::new(
            detailed.task,
        )))
    }

    /// `tasks/get`: the server's task as it is now.
    pub(super) async fn served_task_get(
        &self,
        params: rm::GetTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<rm::GetTaskResult, ErrorData> {
        let served = self.served(&params.task_id, context)?;
        let tasks = self.host.tasks();
        let state = (tasks.status(&served.server, &served.upstream).await).map_err(failed)?;
        Ok(rm::GetTaskResult::new(self.detailed(&served, state).await?))
    }

    /// `tasks/update`: the app's answers to what its task asked, passed to the server.
    pub(super) async fn served_task_update(
        &self,
        params: rm::UpdateTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let served = self.served(&params.task_id, context)?;
        let supervisor = self.host.supervisor();
        let update =
            supervisor.task_update(&served.server, &served.upstream, params.input_responses);
        update.await.map_err(failed)
    }

    /// `tasks/cancel`: passed to the server.
    pub(super) async fn served_task_cancel(
        &self,
        params: rm::CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let served = self.served(&params.task_id, context)?;
        let tasks = self.host.tasks();
        let cancel = tasks.cancel(&served.server, &served.upstream);
        cancel.await.map(drop).map_err(failed)
    }

    /// The requesting app's task `id`, or the spec's error for an unknown task.
    fn served(&self, id: &str, context: &RequestContext<RoleServer>) -> Result<Served, ErrorData> {
        let asker = Self::asker(context);
        self.tasks.find(&asker, id).ok_or_else(|| {
            ErrorData::invalid_params(format!("no task {id:?} of this client"), None)
        })
    }

    /// `state` of `served` as the app sees it: its id, and the result or error inline once it
    /// is terminal (fetched for a handshake-era task, which does not carry it).
    async fn detailed(
        &self,
        served: &Served,
        state: TaskState,
    ) -> Result<rm::DetailedTask, ErrorData> {
        let mut task = rm::Task::new(
            &served.id,
            rm::TaskStatus::Working,
            &served.created_at,
            now(),
        )
        .with_ttl_ms(u64::try_from(TASK_TTL.as_millis()).unwrap_or(u64::MAX))
        .with_poll_interval_ms(u64::try_from(state.next_poll().as_millis()).unwrap_or(u64::MAX));
        task.status_message = state.message.clone();
        let payload = match state.status {
            TaskStatus::Working => rm::TaskPayload::Working,
            TaskStatus::Cancelled => rm::TaskPayload::Cancelled,
            TaskStatus::InputRequired => match &state.input_requests {
                Some(requests) => rm::TaskPayload::InputRequired {
                    input_requests: serde_json::from_value(requests.clone())
                        .map_err(|e| internal(format!("a task's inputRequests: {e}")))?,
                },
                // A handshake-era task asks through `tasks/result`, which answers for the app.
                None => rm::TaskPayload::Working,
            },
            TaskStatus::Completed | TaskStatus::Failed => self.outcome(served, &state).await?,
        };
        Ok(rm::DetailedTask::new(task, payload))
    }

    /// A terminal task's result or error.
    async fn outcome(
        &self,
        served: &Served,
        state: &TaskState,
    ) -> Result<rm::TaskPayload, ErrorData> {
        let result = match &state.outcome {
            Some(TaskOutcome::Error { code, message }) => {
                let error = json!({"code": code, "message": message});
                return Ok(rm::TaskPayload::Failed {
                    error: object(error)?,
                });
            }
            Some(TaskOutcome::Result(result)) => result.clone(),
            None => {
                let tasks = self.host.tasks();
                let fetch = tasks.result(&served.server, state, CancellationToken::new());
                fetch.await.map_err(failed)?
            }
        };
        Ok(rm::TaskPayload::Completed {
            result: object(wire(&result)?)?,
        })
    }
}

/// A tool result as the app reads it.
fn wire(result: &ToolResult) -> Result<Value, ErrorData> {
    serde_json::to_value(convert::result(result)).map_err(|e| internal(e.to_string()))
}

fn object(value: Value) -> Result<rm::JsonObject, ErrorData> {
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(internal("a task's outcome is not an object".into())),
    }
}

fn internal(message: String) -> ErrorData {
    ErrorData::internal_error(message, None)
}

/// A server's failure on a task request: its own JSON-RPC error when it sent one.
fn failed(error: crate::vocab::error::ToolError) -> ErrorData {
    let error = crate::EngineError::from(error);
    convert::server_error(&error).unwrap_or_else(|| internal(error.to_string()))
}

/// Now, RFC 3339.
fn now() -> String {
    jiff::Timestamp::now().to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_served_task_is_found_only_by_the_app_it_was_made_for() {
        let tasks = ServedTasks::default();
        let served = tasks.serve("cursor", "jobs", "upstream-1");
        assert_ne!(served.id, "upstream-1");
        assert_eq!(
            tasks.find("cursor", &served.id).unwrap().upstream,
            "upstream-1"
        );
        assert!(tasks.find("zed", &served.id).is_none());
        assert!(tasks.find("cursor", "upstream-1").is_none());
    }

    #[test]
    fn served_tasks_are_bounded_the_oldest_forgotten_first() {
        let tasks = ServedTasks::default();
        let first = tasks.serve("a", "s", "t0");
        for i in 1..=KEPT {
            tasks.serve("a", "s", &format!("t{i}"));
        }
        assert!(tasks.find("a", &first.id).is_none());
        assert_eq!(tasks.lock().len(), KEPT);
    }
}
