//! Running one step's tool calls: each is checked (a known tool, valid arguments) and run
//! through the MCP host's one call pipeline (`mcp/host/calls.rs`: approval, asking the user
//! through an event when the policy says so, then the call) — all concurrently. Every call ends
//! with a result, stored in one tool message: a denied, stopped or failed call gets a result
//! saying so, so the history stays valid.

use std::collections::HashMap;

use futures::future::join_all;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::Events;
use super::lane::{Lane, Written};
use super::setup::Setup;
use super::{Agent, error_result};
use crate::EngineError;
use crate::mcp::{CallFailed, CallRequest, Called, Caller};
use crate::provider::ToolCall;
use crate::store::{Message, MessageStatus, MessageUpdate, NewMessage, Role, Store};
use crate::vocab::ApprovalAnswer;
use crate::vocab::chat::DENIED;
use crate::vocab::chat::{CallView, ChatEvent};
use crate::vocab::content::ContentPart;
use crate::vocab::mcp::ToolResult;

/// How many times the same failing call may repeat in a turn before the loop is broken.
pub(crate) const BREAK_AFTER: u32 = 3;

/// A call the model asked for, resolved to its server and tool.
#[derive(Clone, Debug)]
pub(super) struct Planned {
    pub view: CallView,
    /// Why it cannot run, if it cannot (unknown tool, arguments that are not JSON).
    pub problem: Option<String>,
}

/// Resolves a model's call; `n` is its position in the answer (for an id when it has none).
pub(super) fn plan(setup: &Setup, call: ToolCall, n: usize) -> Planned {
    let id = non_empty_id(call.id, n);
    match setup.resolve(&call.name) {
        Some((server, info)) => Planned {
            view: CallView {
                id,
                server: server.to_owned(),
                tool: info.name.clone(),
                arguments: call.arguments,
            },
            problem: None,
        },
        None => {
            let known: Vec<&str> = setup.specs.iter().map(|s| s.name.as_str()).collect();
            let problem = if known.is_empty() {
                format!(
                    "There is no tool named {:?}: no tools are available.",
                    call.name
                )
            } else {
                format!(
                    "There is no tool named {:?}. Available tools: {}.",
                    call.name,
                    known.join(", ")
                )
            };
            Planned {
                view: CallView {
                    id,
                    server: String::new(),
                    tool: call.name,
                    arguments: call.arguments,
                },
                problem: Some(problem),
            }
        }
    }
}

/// A call whose arguments were not valid JSON: it will not run; the model is told why.
pub(super) fn plan_invalid(
    setup: &Setup,
    id: String,
    name: &str,
    raw: String,
    error: &str,
    n: usize,
) -> Planned {
    let call = ToolCall {
        id,
        name: name.to_owned(),
        arguments: Value::String(raw),
    };
    let mut planned = plan(setup, call, n);
    planned.problem = Some(format!(
        "The arguments are not valid JSON ({error}); send a JSON object matching the tool's schema."
    ));
    planned
}

fn non_empty_id(id: String, n: usize) -> String {
    if id.trim().is_empty() {
        fresh_id(n)
    } else {
        id
    }
}

/// A new id for the `n`th call of an answer, for a call sent without one or with one the
/// conversation already holds.
pub(super) fn fresh_id(n: usize) -> String {
    format!(
        "call_{n}_{}",
        &uuid::Uuid::now_v7().simple().to_string()[24..]
    )
}

/// What a turn's tool phase needs.
pub(super) struct Ctx<'a> {
    pub agent: &'a Agent,
    pub conversation: &'a str,
    pub events: &'a Events,
    pub cancel: &'a CancellationToken,
}

/// The stored tool message and each call's result.
pub(super) struct Done {
    pub message_id: String,
    pub results: Vec<(Planned, ToolResult)>,
    /// The tool message as the turn's branch carries it.
    pub message: Message,
}

/// Runs every call concurrently and stores their results in one tool message after
/// `assistant_id`. The message's row is written on `lane` while the calls run (a call that
/// becomes a task waits for it: its handle is stored under the row).
pub(super) async fn run_all(
    ctx: &Ctx<'_>,
    assistant_id: &str,
    calls: Vec<Planned>,
    lane: &mut Lane,
) -> Result<Done, EngineError> {
    let id = Store::new_message_id();
    let new = NewMessage {
        conversation_id: ctx.conversation.to_owned(),
        parent_id: Some(assistant_id.to_owned()),
        role: Role::Tool,
        content: Vec::new(),
        status: MessageStatus::Streaming,
        model: None,
    };
    lane.insert(&id, new.clone());
    let stored = lane.written();
    let runs = calls.iter().map(|c| run_one(ctx, &id, c, stored.clone()));
    let (results, contents): (Vec<ToolResult>, Vec<Value>) = join_all(runs)
        .instrument(super::phase::tool())
        .await
        .into_iter()
        .unzip();
    let parts = calls
        .iter()
        .zip(&results)
        .zip(contents)
        .map(|((c, r), content)| ContentPart::ToolResult {
            call_id: c.view.id.clone(),
            content,
            is_error: r.is_error,
        })
        .collect();
    let status = if ctx.cancel.is_cancelled() {
        MessageStatus::Cancelled
    } else {
        MessageStatus::Complete
    };
    let update = MessageUpdate {
        content: Some(parts),
        status: Some(status),
        ..Default::default()
    };
    let message = super::lane::carried(id.clone(), new, &update);
    lane.update(&id, update);
    Ok(Done {
        message_id: id,
        results: calls.into_iter().zip(results).collect(),
        message,
    })
}

/// One call, from policy to result; reports the result (with the App it renders, if any)
/// and returns it with its stored JSON.
async fn run_one(
    ctx: &Ctx<'_>,
    message_id: &str,
    call: &Planned,
    stored: Written,
) -> (ToolResult, Value) {
    let (result, denied) = match &call.problem {
        Some(problem) => (error_result(problem.clone()), false),
        None => approved_then_run(ctx, message_id, &call.view, stored).await,
    };
    let (server, tool) = (&call.view.server, &call.view.tool);
    let content = crate::mcp::apps_result_json(ctx.agent.mcp(), server, tool, &result);
    let mut content = content
        .instrument(tracing::trace_span!("turn.tool.result"))
        .await;
    if let (true, Value::Object(map)) = (denied, &mut content) {
        map.insert(DENIED.to_owned(), Value::Bool(true));
    }
    let _ = ctx.events.send(ChatEvent::ToolResult {
        message_id: message_id.to_owned(),
        call_id: call.view.id.clone(),
        content: content.clone(),
        is_error: result.is_error,
    });
    (result, content)
}

/// A call's result, and whether it was refused (by the user's answer or the policy) rather
/// than run.
async fn approved_then_run(
    ctx: &Ctx<'_>,
    message_id: &str,
    call: &CallView,
    stored: Written,
) -> (ToolResult, bool) {
    let agent = ctx.agent;
    let token = ctx.cancel.child_token();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let forward = forward_progress(rx, call.id.clone(), ctx.events.clone());
    let (events, call_id) = (ctx.events.clone(), call.id.clone());
    let request = CallRequest {
        server: &call.server,
        tool: &call.tool,
        arguments: call.arguments.clone(),
        cancel: token.clone(),
        progress: Some(tx),
        follows_tasks: true,
        on_start: Some(Box::new(move || {
            let _ = events.send(ChatEvent::ToolStarted { call_id });
        })),
    };
    let caller = Caller::Model {
        conversation: ctx.conversation,
        ask: Box::pin(ask(ctx, call)),
    };
    let called = agent.mcp().run_call(request, caller).await;
    let _ = forward.await;
    let result = match called {
        Ok(Called::Done(r)) => r,
        Ok(Called::Task(state)) => {
            stored.await;
            let conv = ctx.conversation;
            super::tasks::follow(agent, conv, message_id, call, state, ctx.events, token).await
        }
        Ok(Called::Refused) => {
            let refused = "The user denied this tool call. Do not retry it; answer without it or ask the user.";
            return (error_result(refused), true);
        }
        Ok(Called::Unanswered) => error_result("The call was stopped before the user answered."),
        Err(CallFailed::Approval(e)) => error_result(e.to_string()),
        Err(CallFailed::Run(_)) if ctx.cancel.is_cancelled() => {
            error_result("The user stopped this tool call.")
        }
        Err(CallFailed::Run(e)) => error_result(format!("The tool call failed: {e}")),
    };
    (result, false)
}

/// Reports a call's progress until the call ends (its sink is dropped).
fn forward_progress(
    mut rx: tokio::sync::mpsc::UnboundedReceiver<crate::mcp::Progress>,
    call_id: String,
    events: Events,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            let _ = events.send(ChatEvent::ToolProgress {
                call_id: call_id.clone(),
                progress: p.progress,
                total: p.total,
                message: p.message,
            });
        }
    })
}

/// Asks the user (the host remembers the answer); `None` when the turn was stopped first.
async fn ask(ctx: &Ctx<'_>, call: &CallView) -> Option<ApprovalAnswer> {
    let approvals = ctx.agent.approvals();
    let (approval_id, rx) = approvals.ask();
    let _ = ctx.events.send(ChatEvent::ApprovalNeeded {
        approval_id: approval_id.clone(),
        call: call.clone(),
    });
    let answer = tokio::select! {
        a = rx => a.ok(),
        () = ctx.cancel.cancelled() => None,
    };
    approvals.forget(&approval_id);
    answer
}

/// Counts failing calls by tool and arguments; trips when one repeats too often.
#[derive(Debug, Default)]
pub(super) struct Breaker {
    failures: HashMap<String, u32>,
}

impl Breaker {
    /// Records a step's results; true when the same failing call has now failed
    /// [`BREAK_AFTER`] times.
    pub(crate) fn tripped(&mut self, results: &[(Planned, ToolResult)]) -> bool {
        let mut tripped = false;
        for (call, _) in results.iter().filter(|(_, r)| r.is_error) {
            let key = format!(
                "{}\u{0}{}\u{0}{}",
                call.view.server, call.view.tool, call.view.arguments
            );
            let n = self.failures.entry(key).or_insert(0);
            *n += 1;
            tripped |= *n >= BREAK_AFTER;
        }
        tripped
    }
}
