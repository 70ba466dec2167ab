//! [`LocalProvider`]: the built-in model as a [`Provider`]. A request is rendered with the
//! model's own chat template on the runtime's thread (tools natively when the template knows
//! them, else in prompt mode), generated there, and streamed back as the same
//! [`ProviderEvent`]s every other provider sends: text, reasoning, tool calls, usage, finish.

use futures::future::BoxFuture;
use futures::{StreamExt, stream};
use tokio::sync::mpsc;

use super::LocalError;
use serde_json::Value;

use super::grammar::{Form, call_grammar, calls_refused, forced_tools};
use super::hold::spent_calls;
use super::job::{
    CountTokens, Finish, Hold, Job, ModelFacts, Piece, Prompt, Report, Sampling, StopFlag,
    StopOnDrop,
};
use super::models::ModelsDir;
use super::output::Shaper;
use super::runtime::LocalRuntime;
use super::template::{self, CHATML, TemplateInput, supports_tools};
use crate::provider::prompt_tools::{AnswerAsk, scan_tool_calls, to_prompt_request_asking};
use crate::provider::{
    ChatMessage, ChatRequest, EventStream, FinishReason, ModelInfo, Provider, ProviderError,
    ProviderEvent, ToolSpec, Usage,
};

/// The most tokens an answer gets when the request (the chat's settings) sets no limit: about
/// 750 words, a long answer for a model on this computer; a chat can raise it.
const DEFAULT_MAX_TOKENS: u32 = 1024;

/// The temperature when the request (the chat's settings) sets none.
const DEFAULT_TEMPERATURE: f32 = 0.7;

/// The same for the answer to this turn's tool results, which reports what the tools found:
/// small models drift from the result at [`DEFAULT_TEMPERATURE`]. SmolLM2-135M, 15 questions
/// a time or weather server answered, the answers that quoted the result in plain words: 3
/// and 5 of 15 at 0.7, 8 at 0.2, 9 greedy.
const RESULTS_TEMPERATURE: f32 = 0.2;
const _: () = assert!(RESULTS_TEMPERATURE < DEFAULT_TEMPERATURE);

/// The built-in provider: models from a folder, run by one [`LocalRuntime`].
#[derive(Clone, Debug)]
pub struct LocalProvider {
    runtime: LocalRuntime,
    models: ModelsDir,
}

impl LocalProvider {
    /// Serves the models of `models` on `runtime`.
    pub fn new(runtime: LocalRuntime, models: ModelsDir) -> Self {
        Self { runtime, models }
    }

    /// The runtime.
    pub fn runtime(&self) -> &LocalRuntime {
        &self.runtime
    }

    /// Starts a generation; its pieces arrive on the returned channel.
    fn start(
        &self,
        req: ChatRequest,
    ) -> Result<(mpsc::UnboundedReceiver<Result<Piece, LocalError>>, StopFlag), LocalError> {
        let model = self.models.resolve(&req.model)?;
        let sampling = sampling(&req);
        let stop = StopFlag::default();
        let (tx, rx) = mpsc::unbounded_channel();
        let job = Job {
            model,
            render: Box::new(move |facts, count| fitted_prompt(&req, facts, count)),
            sampling,
            stop: stop.clone(),
        };
        self.runtime.submit(job, tx)?;
        Ok((rx, stop))
    }
}

/// The request's sampling; a random seed when it gives none, and a lower temperature when it
/// gives none for an answer to tool results ([`RESULTS_TEMPERATURE`]).
fn sampling(req: &ChatRequest) -> Sampling {
    let p = &req.params;
    Sampling {
        temperature: p.temperature.map_or_else(
            || {
                let answering_results =
                    matches!(req.messages.last(), Some(ChatMessage::Tool { .. }));
                if answering_results {
                    RESULTS_TEMPERATURE
                } else {
                    DEFAULT_TEMPERATURE
                }
            },
            |t| t as f32,
        ),
        top_p: p.top_p.map_or(0.95, |t| t as f32),
        seed: p.seed.map_or_else(|| fastrand::u32(..), |s| s as u32),
        max_tokens: p.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        stop: p.stop.clone(),
    }
}

/// [`prompt`] fitted into the model's context by its own tokenizer: while the rendered prompt
/// and the answer's token limit exceed the context, the oldest exchange (a user message and
/// what answered it) is left out and the prompt rendered again. The agent's budget trimmed
/// the history by an estimate (another tokenizer); this is the exact count. The newest
/// exchange always stays: when it alone does not fit, the runtime says the prompt is too long.
pub(crate) fn fitted_prompt(
    req: &ChatRequest,
    facts: &ModelFacts,
    count: CountTokens<'_>,
) -> Result<Prompt, LocalError> {
    let n_ctx = facts.n_ctx as usize;
    let answer = (req.params.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS) as usize).min(n_ctx / 2);
    let limit = n_ctx.saturating_sub(answer);
    let mut req = std::borrow::Cow::Borrowed(req);
    loop {
        let rendered = prompt(&req, facts)?;
        let mut groups = ChatMessage::exchanges(req.messages.clone());
        if count(&rendered.text) <= limit || groups.len() <= 1 {
            return Ok(rendered);
        }
        groups.remove(0);
        let trimmed = ChatRequest {
            messages: groups.into_iter().flatten().collect(),
            ..req.into_owned()
        };
        tracing::info!(
            kept = trimmed.messages.len(),
            n_ctx,
            "left the oldest exchange out to fit the model's context"
        );
        req = std::borrow::Cow::Owned(trimmed);
    }
}

/// The prompt for `req` with the model's template, the tools the answer may call and how its
/// calls are held ([`hold`]).
///
/// A model whose template does not know tools gets them in prompt mode. Whenever tools are
/// offered the model chooses between answering and calling; a call it begins is held to the
/// offered tools (unless the request's `switchboard_hold_calls` is `false`), and
/// `tool_choice` can force one from the first token.
pub(crate) fn prompt(req: &ChatRequest, facts: &ModelFacts) -> Result<Prompt, LocalError> {
    let template = facts.chat_template.as_deref().unwrap_or(CHATML);
    let native = supports_tools(template);
    let prompt_mode = !native && (!req.tools.is_empty() || has_tool_history(req));
    let shaped = if prompt_mode {
        // Small models read a result better when the question comes again after it and plain
        // words are asked for.
        to_prompt_request_asking(req, AnswerAsk::PlainWords)
    } else {
        req.clone()
    };
    let offered = if native { req.tools.as_slice() } else { &[] };
    let input = TemplateInput {
        messages: template::messages(&shaped),
        tools: (native && !offered.is_empty()).then(|| template::tools(offered)),
        add_generation_prompt: true,
        enable_thinking: req.thinking.as_ref().map(|t| t.enabled),
        bos_token: facts.bos_token.clone(),
        eos_token: facts.eos_token.clone(),
    };
    let text = template::render(template, &input)?;
    Ok(Prompt {
        text,
        hold: hold(req, Form::taught_by(template, native), prompt_mode)?,
        tools: req.tools.iter().map(|t| t.name.clone()).collect(),
    })
}

/// How the answer's calls are held: to the tools `tool_choice` forces, from the first token
/// in the template's form; else, when tools are offered and holding is on, to all of them
/// from where a call begins (in prompt mode, after this turn's results, not from the first
/// token: [`Hold::answer_first`]).
fn hold(req: &ChatRequest, form: Form, prompt_mode: bool) -> Result<Option<Hold>, LocalError> {
    let spent = spent_calls(req);
    let answer_first = prompt_mode && !spent.is_empty();
    let hold = |tools: &[&ToolSpec], forced: Option<Form>| -> Result<_, LocalError> {
        Ok(Some(Hold {
            answer_first: answer_first && forced.is_none(),
            grammar: call_grammar(tools)?,
            forced,
            names: req.tools.iter().map(|t| t.name.clone()).collect(),
            spent: spent.clone(),
            call_ratio: req
                .extra
                .get("switchboard_call_ratio")
                .and_then(Value::as_f64)
                .map(|r| r as f32),
        }))
    };
    let forced = forced_tools(req);
    if !forced.is_empty() {
        return hold(&forced, Some(form));
    }
    let off = req.extra.get("switchboard_hold_calls") == Some(&Value::Bool(false));
    if req.tools.is_empty() || calls_refused(req) || off {
        return Ok(None);
    }
    hold(&req.tools.iter().collect::<Vec<_>>(), None)
}

/// Whether the conversation holds tool calls or results.
fn has_tool_history(req: &ChatRequest) -> bool {
    req.messages.iter().any(|m| match m {
        ChatMessage::Assistant { tool_calls, .. } => !tool_calls.is_empty(),
        ChatMessage::Tool { .. } => true,
        ChatMessage::User { .. } => false,
    })
}

impl Provider for LocalProvider {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
        Box::pin(async move {
            let (mut rx, stop) = self.start(req)?;
            let guard = StopOnDrop(stop);
            let (thinking, tools) = match rx.recv().await {
                Some(Ok(Piece::Started { thinking, tools })) => (thinking, tools),
                Some(Err(e)) => return Err(e.into()),
                Some(Ok(_)) | None => return Err(LocalError::Stopped.into()),
            };
            let events = events(rx, Shaper::new(thinking), guard);
            Ok(if tools.is_empty() {
                events
            } else {
                scan_tool_calls(events, tools)
            })
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async move {
            let models = self.models.list()?;
            Ok(models
                .into_iter()
                .map(|m| ModelInfo {
                    id: m.name,
                    name: None,
                })
                .collect())
        })
    }
}

/// The pieces after the start as provider events; dropping the stream stops the generation.
fn events(
    rx: mpsc::UnboundedReceiver<Result<Piece, LocalError>>,
    shaper: Shaper,
    guard: StopOnDrop,
) -> EventStream {
    let state = (rx, shaper, guard, false);
    let items = stream::unfold(state, |(mut rx, mut shaper, guard, done)| async move {
        if done {
            return None;
        }
        let (batch, done) = match rx.recv().await {
            Some(Ok(Piece::Started { .. })) => (Vec::new(), false),
            Some(Ok(Piece::Text(text))) => {
                (shaper.push(&text).into_iter().map(Ok).collect(), false)
            }
            Some(Ok(Piece::Done(report))) => {
                let mut out: Vec<_> = shaper.finish().into_iter().map(Ok).collect();
                out.extend(end_events(&report).into_iter().map(Ok));
                (out, true)
            }
            Some(Err(e)) => (vec![Err(ProviderError::from(e))], true),
            None => (vec![Err(ProviderError::from(LocalError::Stopped))], true),
        };
        Some((stream::iter(batch), (rx, shaper, guard, done)))
    });
    Box::pin(items.flatten())
}

/// Usage and finish for a report.
fn end_events(report: &Report) -> Vec<ProviderEvent> {
    let reason = match report.finish {
        Finish::Length | Finish::Repeating => FinishReason::Length,
        Finish::Eos | Finish::StopText | Finish::Stopped => FinishReason::Stop,
    };
    vec![
        ProviderEvent::Usage {
            usage: Usage {
                input_tokens: report.prompt_tokens as u64,
                output_tokens: report.generated as u64,
            },
        },
        ProviderEvent::Finish { reason },
    ]
}

#[cfg(test)]
#[path = "provider_tests.rs"]
mod tests;
