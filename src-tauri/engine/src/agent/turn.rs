//! The turn loop (DESIGN §3, house style 4): `run` → `step` (one model call, streamed and
//! checkpointed) → tool calls (in `calls`) → next step, until a final answer, the step limit,
//! a broken loop, an error or a stop. Every message is stored as it goes; the assistant's
//! text is checkpointed at least every second while it streams.

use std::time::{Duration, Instant};

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::Agent;
use super::budget;
use super::calls::{self, Breaker, Planned};
use super::history;
use super::learned_modes;
use super::phase;
use super::setup::Setup;
use super::{Events, MAX_STEPS};
use crate::EngineError;
use crate::provider::{ChatRequest, ProviderEvent, Usage};
use crate::store::{Conversation, MessageStatus, MessageUpdate, NewMessage, Role, TokenUsage};
use crate::vocab::chat::{CallView, ChatEvent, TurnEnd};
use crate::vocab::content::ContentPart;

/// How often streamed text is written to the database.
const CHECKPOINT: Duration = Duration::from_millis(1000);

/// How a turn ended and the last message of its branch (the caller reports `finished`).
pub(super) type Ended = (TurnEnd, String);

/// Runs the turn answering user message `user_id`, from its first model call to its end.
pub(super) async fn run(
    agent: &Agent,
    conv: &Conversation,
    user_id: &str,
    events: &Events,
    cancel: &CancellationToken,
) -> Result<Ended, EngineError> {
    let _ = events.send(ChatEvent::Started {
        conversation_id: conv.id.clone(),
        user_message_id: user_id.to_owned(),
    });
    let setup = Setup::of(agent, conv).instrument(phase::setup());
    let setup = match setup.await {
        Ok(s) => s,
        Err(e) => return Ok(fail(agent, conv, user_id, events, &e).await),
    };
    let max_steps = setup.settings.max_steps.unwrap_or(MAX_STEPS).max(1);
    let mut head = user_id.to_owned();
    let mut breaker = Breaker::default();
    for step in 1..=max_steps {
        let outcome = match model_call(agent, conv, &setup, &head, step, events, cancel).await {
            Ok(o) => o,
            Err(e) => return Ok(fail(agent, conv, &head, events, &e).await),
        };
        head = outcome.message_id.clone();
        if let Some(end) = outcome.end {
            return Ok((end, head));
        }
        if outcome.calls.is_empty() {
            let _ = events.send(ChatEvent::StepFinished { step });
            return Ok((TurnEnd::Done, head));
        }
        let ctx = calls::Ctx {
            agent,
            conversation: &conv.id,
            events,
            cancel,
        };
        let done = calls::run_all(&ctx, &head, outcome.calls).await?;
        head = done.message_id.clone();
        let _ = events.send(ChatEvent::StepFinished { step });
        if cancel.is_cancelled() {
            return Ok((TurnEnd::Cancelled, head));
        }
        if breaker.tripped(&done.results) {
            return Ok((TurnEnd::LoopBroken, head));
        }
    }
    Ok((TurnEnd::MaxSteps, head))
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

/// Builds the request from the stored branch ending at `head`.
async fn request(
    agent: &Agent,
    conv: &Conversation,
    setup: &Setup,
    head: &str,
) -> Result<ChatRequest, EngineError> {
    let read = async {
        let branch = agent.store().branch(head).await?;
        super::upload::hydrate(agent.store(), branch).await
    };
    let branch = read.instrument(phase::sqlite()).await?;
    let _build = phase::request().entered();
    let messages = history::to_chat(&branch, &setup.names);
    let window = setup
        .settings
        .context_window
        .unwrap_or(budget::DEFAULT_WINDOW);
    let reserve = setup
        .settings
        .max_output_tokens
        .unwrap_or(window / 8)
        .min(window / 2);
    let system = conv
        .system_prompt
        .as_deref()
        .filter(|s| !s.trim().is_empty());
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
    Ok(req)
}

/// One model call: stored as an assistant message under `head`, streamed to `events`.
async fn model_call(
    agent: &Agent,
    conv: &Conversation,
    setup: &Setup,
    head: &str,
    step: u32,
    events: &Events,
    cancel: &CancellationToken,
) -> Result<Outcome, EngineError> {
    let req = request(agent, conv, setup, head).await?;
    let msg = agent
        .store()
        .append_as_head(NewMessage {
            conversation_id: conv.id.clone(),
            parent_id: Some(head.to_owned()),
            role: Role::Assistant,
            content: Vec::new(),
            status: MessageStatus::Streaming,
            model: Some(setup.model.clone()),
        })
        .instrument(phase::sqlite())
        .await?;
    let _ = events.send(ChatEvent::MessageStarted {
        message_id: msg.id.clone(),
        model: setup.model.clone(),
        step,
    });
    let mut draft = Draft {
        id: msg.id,
        reasoning: String::new(),
        text: String::new(),
        calls: Vec::new(),
        usage: None,
        saved: Instant::now(),
    };
    let streamed = stream_into(agent, setup, req, &mut draft, events, cancel).await;
    let learned = learned_modes::remember(
        agent.store(),
        &setup.provider_id,
        &setup.prompt_only,
        setup.prompt_only_loaded,
    );
    if let Err(e) = learned.instrument(phase::sqlite()).await {
        tracing::warn!(error = %e, "could not remember the models that need prompt-mode tools");
    }
    let (status, error, end) = match streamed {
        Ok(()) if cancel.is_cancelled() => {
            (MessageStatus::Cancelled, None, Some(TurnEnd::Cancelled))
        }
        Ok(()) => (MessageStatus::Complete, None, None),
        Err(e) => {
            let _ = events.send(ChatEvent::Error {
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
    agent
        .store()
        .update_message(&draft.id, draft.update(Some(status), error))
        .instrument(phase::sqlite())
        .await?;
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
/// (Ok, with `cancel` set) or on an error.
async fn stream_into(
    agent: &Agent,
    setup: &Setup,
    req: ChatRequest,
    draft: &mut Draft,
    events: &Events,
    cancel: &CancellationToken,
) -> Result<(), EngineError> {
    let mut stream = tokio::select! {
        s = setup.provider.stream(req).instrument(phase::http()) => s?,
        () = cancel.cancelled() => return Ok(()),
    };
    let reading = phase::stream();
    loop {
        let next = tokio::select! {
            n = stream.next().instrument(reading.clone()) => n,
            () = cancel.cancelled() => return Ok(()),
        };
        let Some(event) = next else { return Ok(()) };
        absorb(setup, draft, event?, events);
        if draft.saved.elapsed() >= CHECKPOINT {
            agent
                .store()
                .update_message(&draft.id, draft.update(None, None))
                .instrument(phase::sqlite())
                .await?;
            draft.saved = Instant::now();
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

fn propose(draft: &mut Draft, planned: Planned, events: &Events) {
    let call: CallView = planned.view.clone();
    let _ = events.send(ChatEvent::ToolCallProposed {
        message_id: draft.id.clone(),
        call,
    });
    draft.calls.push(planned);
}
