//! The host's one tool-call pipeline, [`McpHost::run_call`]. Every caller runs a call through
//! it — the agent loop (the model's calls), "Try" in the server settings (the user's), and an
//! MCP App's own `tools/call`: resolve the tool on its running server (an App may call only
//! tools visible to Apps) → approval ([`super::approval`]: the policy, then the caller's way of
//! asking the user) → run it (arguments validated against the tool's schema, timed out,
//! truncated) → the result, or — for a caller that follows tasks itself — the task the server
//! made. The App a result renders is attached by [`super::result_json`] when it is stored.

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::McpHost;
use super::approval::{Asker, Grant, Verdict};
use crate::EngineError;
use crate::mcp::client::app_documents;
use crate::mcp::client::progress::ProgressSink;
use crate::mcp::client::relay::{Relay, Relayed};
use crate::mcp::client::tasks::{CallOutcome, TaskState};
use crate::vocab::ApprovalAnswer;
use crate::vocab::error::{AppError, ToolError};
use crate::vocab::mcp::ToolResult;

/// Who calls, and how the user's approval is had.
pub enum Caller<'a> {
    /// The user, from "Try": pressing it is the approval.
    User,
    /// The model in `conversation`: the policy decides; where it asks, `ask` gets the user's
    /// answer (`None` when none comes, e.g. the turn was stopped).
    Model {
        /// The conversation the call belongs to.
        conversation: &'a str,
        /// Asks the user; awaited only when the policy asks.
        ask: BoxFuture<'a, Option<ApprovalAnswer>>,
    },
    /// Another app reaching Switchboard's MCP endpoint (`mcp::serve`): the policy decides;
    /// where it asks, `ask` gets the client's user's answer (`None`: it cannot ask). Answers
    /// are remembered for that client only, never for the model's calls.
    Client {
        /// The client's name: the one the user gave it, else its handshake's.
        client: &'a str,
        /// The registered client's id, when the call carried its token ("always" is kept
        /// for it).
        id: Option<&'a str>,
        /// Asks the client's user; awaited only when the policy asks.
        ask: BoxFuture<'a, Option<ApprovalAnswer>>,
    },
    /// An MCP App in `conversation`, with the user's answer if it already asked. Its answers
    /// cover that App only ([`super::approval`]).
    App {
        /// The conversation the App is shown in.
        conversation: &'a str,
        /// The App's `ui://` resource (`None`: its answers are kept for no later call).
        app: Option<&'a str>,
        /// The user's answer to the approval card, if the App showed it.
        answer: Option<ApprovalAnswer>,
    },
}

/// One call to run.
pub struct CallRequest<'a> {
    /// The server's configured name.
    pub server: &'a str,
    /// The tool's name on that server.
    pub tool: &'a str,
    /// The arguments.
    pub arguments: Value,
    /// Stops the call.
    pub cancel: CancellationToken,
    /// Where the call's progress notifications go, if anywhere.
    pub progress: Option<ProgressSink>,
    /// Whether the caller follows a task itself (the agent loop, which reports its status):
    /// then a task comes back as [`Called::Task`]; otherwise the pipeline waits for its result.
    pub follows_tasks: bool,
    /// Told once the call is approved, just before it runs.
    pub on_start: Option<Box<dyn FnOnce() + Send + 'a>>,
}

/// How a call ended.
#[derive(Debug)]
pub enum Called {
    /// It ran and answered.
    Done(ToolResult),
    /// The server made a task, for the caller to follow (only with `follows_tasks`).
    Task(TaskState),
    /// The policy or the user refused it; it did not run.
    Refused,
    /// The policy asks and no answer came; it did not run.
    Unanswered,
}

/// Why a call could not be decided or run.
#[derive(Debug, thiserror::Error)]
pub enum CallFailed {
    /// Before it ran: the tool is unknown or hidden from the caller, or the policy could not
    /// be read.
    #[error(transparent)]
    Approval(EngineError),
    /// While it ran.
    #[error(transparent)]
    Run(EngineError),
}

impl From<CallFailed> for EngineError {
    fn from(e: CallFailed) -> Self {
        match e {
            CallFailed::Approval(e) | CallFailed::Run(e) => e,
        }
    }
}

impl McpHost {
    /// Runs one call through resolve → approval → run (see the module's header).
    pub async fn run_call(
        &self,
        request: CallRequest<'_>,
        caller: Caller<'_>,
    ) -> Result<Called, CallFailed> {
        let (server, tool) = (request.server, request.tool);
        // Spans for the turn benchmark's phases (see `agent::phase`).
        let verdict = self
            .verdict_for(server, tool, caller)
            .instrument(tracing::trace_span!("turn.tool.approve"))
            .await
            .map_err(CallFailed::Approval)?;
        match verdict {
            Verdict::Run => {}
            Verdict::Refused => return Ok(Called::Refused),
            Verdict::Unanswered => return Ok(Called::Unanswered),
        }
        self.run_approved(request)
            .instrument(tracing::trace_span!("turn.tool.call"))
            .await
            .map_err(|e| CallFailed::Run(e.into()))
    }

    /// Runs one call of an app that answers the server's input requests itself (a
    /// stateless-era client of the endpoint): approval as in [`McpHost::run_call`], then one
    /// round trip with `relay` passed on; an `input_required` answer comes back as it is.
    pub async fn run_relayed(
        &self,
        request: CallRequest<'_>,
        relay: &Relay,
        caller: Caller<'_>,
    ) -> Result<Relayed<Called>, CallFailed> {
        let (server, tool) = (request.server, request.tool);
        let verdict =
            (self.verdict_for(server, tool, caller).await).map_err(CallFailed::Approval)?;
        match verdict {
            Verdict::Run => {}
            Verdict::Refused => return Ok(Relayed::Done(Called::Refused)),
            Verdict::Unanswered => return Ok(Relayed::Done(Called::Unanswered)),
        }
        if let Some(start) = request.on_start {
            start();
        }
        let run = self.supervisor().call_relayed(
            server,
            tool,
            request.arguments,
            relay,
            request.cancel,
            request.progress,
        );
        Ok(match run.await.map_err(|e| CallFailed::Run(e.into()))? {
            Relayed::Done(CallOutcome::Done(result)) => Relayed::Done(Called::Done(result)),
            Relayed::Done(CallOutcome::Task(state)) => Relayed::Done(Called::Task(state)),
            Relayed::Input(asked) => Relayed::Input(asked),
        })
    }

    /// The caller's verdict: resolve (an App's tool must be visible to Apps), then approval.
    async fn verdict_for(
        &self,
        server: &str,
        tool: &str,
        caller: Caller<'_>,
    ) -> Result<Verdict, EngineError> {
        match caller {
            Caller::User => Ok(Verdict::Run),
            Caller::Model { conversation, ask } => {
                self.approve(conversation, server, tool, Asker::Model, ask)
                    .await
            }
            Caller::Client { client, id, ask } => {
                let key = format!("client:{client}");
                let asker = Asker::Client {
                    id: id.map(str::to_owned),
                };
                self.approve(&key, server, tool, asker, ask).await
            }
            Caller::App {
                conversation,
                app,
                answer,
            } => {
                let info = self.tool_info(server, tool)?;
                if !app_documents::visible_to_apps(info.ui.as_ref()) {
                    tracing::warn!(%server, %tool, "an App called a tool hidden from Apps; refused");
                    let (server, tool) = (server.to_owned(), tool.to_owned());
                    return Err(AppError::HiddenFromApps { server, tool }.into());
                }
                // The App's own grant, when it said which App it is.
                let grant = match app {
                    Some(app) => Some(Grant {
                        server: self.store().find_server(server).await?.id,
                        app: app.to_owned(),
                        tool: tool.to_owned(),
                    }),
                    None => None,
                };
                let answer = std::future::ready(answer);
                self.approve(conversation, server, tool, Asker::App(grant), answer)
                    .await
            }
        }
    }

    /// Runs an approved call: the finished result, or its task for a caller that follows it.
    async fn run_approved(&self, request: CallRequest<'_>) -> Result<Called, ToolError> {
        if let Some(start) = request.on_start {
            start();
        }
        let (server, tool) = (request.server, request.tool);
        let supervisor = self.supervisor();
        if !request.follows_tasks {
            let run = supervisor.call_with_progress(
                server,
                tool,
                request.arguments,
                request.cancel,
                request.progress,
            );
            return Ok(Called::Done(run.await?));
        }
        let run = supervisor.call_outcome(
            server,
            tool,
            request.arguments,
            request.cancel,
            request.progress,
        );
        Ok(match run.await? {
            CallOutcome::Done(result) => Called::Done(result),
            CallOutcome::Task(state) => Called::Task(state),
        })
    }
}
