//! The turn loop (DESIGN §3, house style 4): `run` → `step` (one model call, streamed and
//! checkpointed) → tool calls (in `calls`) → next step, until a final answer, the step limit,
//! a broken loop, an error or a stop. Every message is stored as it goes; the assistant's
//! text is checkpointed at least every second while it streams.

use std::future::Future;
use std::time::{Duration, Instant};

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::Agent;
use super::budget;
use super::calls::{self, Breaker, Planned};
use super::history;
use super::lane::{self, Lane};
use super::learned_modes;
use super::phase;
use super::setup::Setup;
use super::{Events, MAX_STEPS};
use crate::EngineError;
use crate::provider::{ChatRequest, ProviderEvent, Usage};
use crate::store::{
    Conversation, Message, MessageStatus, MessageUpdate, NewMessage, Role, Store, TokenUsage,
};
use crate::vocab::chat::{CallView, ChatEvent, TurnEnd};
use crate::vocab::content::ContentPart;

/// How often streamed text is written to the database.
const CHECKPOINT: Duration = Duration::from_millis(1000);

/// How a turn ended and the last message of its branch (the caller reports `finished`).
pub(super) type Ended = (TurnEnd, String);

/// Runs the turn answering the user message `user` stores (its id), from its first model
/// call to its end. The provider, model and tools are resolved while the message is stored.
pub(super) async fn run<U>(
    agent: &Agent,
    conv: &Conversation,
    user: U,
    events: &Events,
    cancel: &CancellationToken,
) -> Result<Ended, EngineError>
where
    U: Future<Output = Result<String, EngineError>>,
{
    let begun = async {
        let user_id = user.await?;
        let _ = events.send(ChatEvent::Started {
            conversation_id: conv.id.clone(),
            user_message_id: user_id.clone(),
        });
        let branch = read_branch(agent, &user_id)
            .instrument(phase::sqlite())
            .await;
        Ok::<_, EngineError>((user_id, branch))
    };
    let setup = Setup::of(agent, conv).instrument(phase::setup());
    let (begun, setup) = tokio::join!(begun, setup);
    let (user_id, branch) = begun?;
    let (setup, branch) = match (setup, branch) {
        (Ok(s), Ok(b)) => (s, b),
        (Err(e), _) | (_, Err(e)) => return Ok(fail(agent, conv, &user_id, events, &e).await),
    };
    let mut turn = Turn {
        agent,
        conv,
        setup: &setup,
        events,
        cancel,
        lane: Lane::new(agent.store()),
        branch,
    };
    let ended = turn.steps(user_id).await;
    let written = turn.lane.flush().instrument(phase::sqlite()).await;
    match (ended, written) {
        (Err(e), _) => Err(e),
        (Ok(_), Err(e)) => Err(e.into()),
        (Ok(ended), Ok(())) => Ok(ended),
    }
}

/// The stored branch ending at `head`, images in place.
async fn read_branch(agent: &Agent, head: &str) -> Result<Vec<Message>, EngineError> {
    let branch = agent.store().branch(head).await?;
    super::upload::hydrate(agent.store(), branch).await
}

/// A running turn: what it resolved, its writes, and its branch as it grows (read once, then
/// carried from step to step instead of read again).
struct Turn<'a> {
    agent: &'a Agent,
    conv: &'a Conversation,
    setup: &'a Setup,
    events: &'a Events,
    cancel: &'a CancellationToken,
    lane: Lane,
    branch: Vec<Message>,
}

impl Turn<'_> {
    /// The steps after `head` (the user message), until the turn ends.
    async fn steps(&mut self, mut head: String) -> Result<Ended, EngineError> {
        let max_steps = self.setup.settings.max_steps.unwrap_or(MAX_STEPS).max(1);
        let mut breaker = Breaker::default();
        for step in 1..=max_steps {
            let outcome = match self.model_call(&head, step).await {
                Ok(o) => o,
                Err(e) => return Ok(self.fail(&head, &e).await),
            };
            head = outcome.message_id.clone();
            if let Some(end) = outcome.end {
                return Ok((end, head));
            }
            if outcome.calls.is_empty() {
                let _ = self.events.send(ChatEvent::StepFinished { step });
                return Ok((TurnEnd::Done, head));
            }
            let ctx = calls::Ctx {
                agent: self.agent,
                conversation: &self.conv.id,
                events: self.events,
                cancel: self.cancel,
            };
            let done = calls::run_all(&ctx, &head, outcome.calls, &mut self.lane).await?;
            head = done.message_id.clone();
            self.branch.push(done.message);
            let _ = self.events.send(ChatEvent::StepFinished { step });
            if self.cancel.is_cancelled() {
                return Ok((TurnEnd::Cancelled, head));
            }
            if breaker.tripped(&done.results) {
                return Ok((TurnEnd::LoopBroken, head));
            }
        }
        Ok((TurnEnd::MaxSteps, head))
    }

    /// [`fail`], once the writes queued so far have landed.
    async fn fail(&mut self, head: &str, e: &EngineError) -> Ended {
        if let Err(w) = self.lane.flush().instrument(phase::sqlite()).await {
            tracing::warn!(error = %w, "a write of the failed turn was lost");
        }
        fail(self.agent, self.conv, head, self.events, e).await
    }
}

/// Reports an error that ended the turn before or between model calls.
async fn fail(
    agent: &Agent,
    conv: &Conversation,
    head: &str,
    events: &Events,
    e: &EngineError,
) -> Ended {
    tracing::warn!(conversation = %conv.id, error = %e, "turn failed");
    let _ = agent.store().set_head(&conv.id, head).await;
    let _ = events.send(ChatEvent::Error {
        kind: e.kind(),
        message: e.to_string(),
    });
    (TurnEnd::Error, head.to_owned())
}

/// What one model call produced.
struct Outcome {
    message_id: String,
    calls: Vec<Planned>,
    end: Option<TurnEnd>,
}

/// The assistant message being written, and when it was last saved.
struct Draft {
    id: String,
    reasoning: String,
    text: String,
    calls: Vec<Planned>,
    /// The call ids the conversation's branch already holds: a provider that numbers its calls
    /// per answer (prompt mode's `call_0`, Ollama's and Gemini's content hashes) repeats them
    /// across turns, and a card, a result and the history are matched by id.
    taken: std::collections::HashSet<String>,
    usage: Option<Usage>,
    saved: Instant,
}

impl Draft {
    fn parts(&self) -> Vec<ContentPart> {
        let mut parts = Vec::new();
        if !self.reasoning.is_empty() {
            parts.push(ContentPart::Reasoning {
                text: self.reasoning.clone(),
            });
        }
        if !self.text.is_empty() {
            parts.push(ContentPart::text(self.text.clone()));
        }
        parts.extend(self.calls.iter().map(|c| ContentPart::ToolCall {
            id: c.view.id.clone(),
            server: c.view.server.clone(),
            tool: c.view.tool.clone(),
            arguments: c.view.arguments.clone(),
        }));
        parts
    }

    fn update(&self, status: Option<MessageStatus>, error: Option<String>) -> MessageUpdate {
        MessageUpdate {
            content: Some(self.parts()),
            status,
            usage: self.usage.map(|u| TokenUsage {
                input_tokens: i64::try_from(u.input_tokens).unwrap_or(i64::MAX),
                output_tokens: i64::try_from(u.output_tokens).unwrap_or(i64::MAX),
            }),
            error,
        }
    }
}

/// Builds the request from the branch as it stands.
fn request(setup: &Setup, branch: &[Message]) -> ChatRequest {
    let _build = phase::request().entered();
    let messages = history::to_chat(branch, &setup.names);
    let window = setup
        .settings
        .context_window
        .unwrap_or(budget::DEFAULT_WINDOW);
    let reserve = setup
        .settings
        .max_output_tokens
        .unwrap_or(window / 8)
        .min(window / 2);
    let system = setup.system.as_deref();
    let fitted = budget::fit(system, &setup.tools_cost(), messages, window, reserve);
    if fitted.dropped > 0 {
        tracing::info!(
            dropped = fitted.dropped,
            estimate = fitted.estimate,
            "trimmed history"
        );
    }
    let mut req = ChatRequest {
        model: setup.model.clone(),
        system: system.map(str::to_owned),
        messages: fitted.messages,
        tools: setup.specs.clone(),
        ..Default::default()
    };
    req.params.max_tokens = setup.settings.max_output_tokens;
    req.params.temperature = setup.settings.temperature;
    req.params.top_p = setup.settings.top_p;
    req.thinking = setup.settings.thinking.clone();
    req.context_window = setup.chosen_window;
    req
}

impl Turn<'_> {
    /// One model call: stored as an assistant message under `head` (the row is inserted while
    /// the request goes out, and finished behind the turn), streamed to the events.
    async fn model_call(&mut self, head: &str, step: u32) -> Result<Outcome, EngineError> {
        let req = request(self.setup, &self.branch);
        let id = Store::new_message_id();
        let new = NewMessage {
            conversation_id: self.conv.id.clone(),
            parent_id: Some(head.to_owned()),
            role: Role::Assistant,
            content: Vec::new(),
            status: MessageStatus::Streaming,
            model: Some(self.setup.model.clone()),
        };
        self.lane.insert(&id, new.clone());
        let _ = self.events.send(ChatEvent::MessageStarted {
            message_id: id.clone(),
            model: self.setup.model.clone(),
            step,
        });
        let mut draft = Draft {
            id,
            reasoning: String::new(),
            text: String::new(),
            calls: Vec::new(),
            taken: call_ids(&self.branch),
            usage: None,
            saved: Instant::now(),
        };
        let streamed = self.stream_into(req, &mut draft).await;
        let setup = self.setup;
        if learned_modes::grew(&setup.prompt_only, setup.prompt_only_loaded) {
            let learned = learned_modes::remember(
                self.agent.store(),
                &setup.provider_id,
                &setup.prompt_only,
                setup.prompt_only_loaded,
            );
            if let Err(e) = learned.instrument(phase::sqlite()).await {
                tracing::warn!(error = %e, "could not remember the models that need prompt-mode tools");
            }
        }
        let (status, error, end) = match streamed {
            Ok(()) if self.cancel.is_cancelled() => {
                (MessageStatus::Cancelled, None, Some(TurnEnd::Cancelled))
            }
            Ok(()) => (MessageStatus::Complete, None, None),
            Err(e) => {
                let _ = self.events.send(ChatEvent::Error {
                    kind: e.kind(),
                    message: e.to_string(),
                });
                (
                    MessageStatus::Error,
                    Some(e.to_string()),
                    Some(TurnEnd::Error),
                )
            }
        };
        let update = draft.update(Some(status), error);
        self.branch
            .push(lane::carried(draft.id.clone(), new, &update));
        self.lane.update(&draft.id, update);
        // A stopped or failed message keeps its calls in storage (history repairs them), but
        // none of them runs.
        let calls = if end.is_some() {
            Vec::new()
        } else {
            std::mem::take(&mut draft.calls)
        };
        Ok(Outcome {
            message_id: draft.id,
            calls,
            end,
        })
    }

    /// Streams the model's answer into `draft`, checkpointing; returns at the end, on a stop
    /// (Ok, with `cancel` set) or on an error. The answer is read only once the lane has
    /// written the message's row (inserted meanwhile).
    async fn stream_into(
        &mut self,
        req: ChatRequest,
        draft: &mut Draft,
    ) -> Result<(), EngineError> {
        let (setup, cancel) = (self.setup, self.cancel);
        let written = self.lane.written();
        let sent = setup.provider.stream(req).instrument(phase::http());
        let (written, sent) = tokio::select! {
            both = async { tokio::join!(written, sent) } => both,
            () = cancel.cancelled() => return Ok(()),
        };
        if !written {
            self.lane.flush().await?;
        }
        let mut stream = sent?;
        let reading = phase::stream();
        loop {
            let next = tokio::select! {
                n = stream.next().instrument(reading.clone()) => n,
                () = cancel.cancelled() => return Ok(()),
            };
            let Some(event) = next else { return Ok(()) };
            absorb(setup, draft, event?, self.events);
            if draft.saved.elapsed() >= CHECKPOINT {
                self.lane.update(&draft.id, draft.update(None, None));
                draft.saved = Instant::now();
            }
        }
    }
}

/// Adds one provider event to the draft and reports it.
fn absorb(setup: &Setup, draft: &mut Draft, event: ProviderEvent, events: &Events) {
    let message_id = draft.id.clone();
    match event {
        ProviderEvent::TextDelta { text } => {
            draft.text.push_str(&text);
            let _ = events.send(ChatEvent::TextDelta { message_id, text });
        }
        ProviderEvent::ReasoningDelta { text } => {
            draft.reasoning.push_str(&text);
            let _ = events.send(ChatEvent::ReasoningDelta { message_id, text });
        }
        ProviderEvent::ToolCall { call } => {
            let planned = calls::plan(setup, call, draft.calls.len());
            propose(draft, planned, events);
        }
        ProviderEvent::ToolCallInvalid {
            id,
            name,
            raw,
            error,
        } => {
            let planned = calls::plan_invalid(setup, id, &name, raw, &error, draft.calls.len());
            propose(draft, planned, events);
        }
        ProviderEvent::Usage { usage } => {
            draft.usage = Some(usage);
            let _ = events.send(ChatEvent::Usage { message_id, usage });
        }
        ProviderEvent::Finish { .. } => {}
    }
}

fn propose(draft: &mut Draft, mut planned: Planned, events: &Events) {
    if !draft.taken.insert(planned.view.id.clone()) {
        planned.view.id = calls::fresh_id(draft.calls.len());
        draft.taken.insert(planned.view.id.clone());
    }
    let call: CallView = planned.view.clone();
    let _ = events.send(ChatEvent::ToolCallProposed {
        message_id: draft.id.clone(),
        call,
    });
    draft.calls.push(planned);
}

/// The ids of the tool calls in `branch`.
fn call_ids(branch: &[Message]) -> std::collections::HashSet<String> {
    branch
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            ContentPart::ToolCall { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect()
}
