//! An assistant answering another app (the OpenAI-compatible API's `assistant/NAME` models):
//! the assistant's provider, model, prompt, settings and MCP tools as a conversation started
//! from it would have them ([`Setup`]), run in a loop of model calls and tool calls that is
//! stored nowhere. Each tool call goes through the host's one pipeline as the calling app's
//! (`Caller::Client`: the approval policy decides; a call it asks about is asked in the window
//! when one is open, else refused with a result that says where to allow it), is kept
//! in that app's call log, and is cancelled when the app goes away. Text, reasoning, usage and
//! the end stream out as provider events; the tool rounds stay inside.

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Agent;
use super::setup::Setup;
use crate::EngineError;
use crate::mcp::{CallRequest, Called, Caller};
use crate::provider::{
    ChatMessage, ChatRequest, EventStream, FinishReason, ProviderError, ProviderEvent, ToolCall,
};
use crate::store::{Assistant, Conversation, ServeClient};
use crate::vocab::Usage;

/// The app that asked, as the local server checked it.
#[derive(Clone, Debug)]
pub struct OutsideCaller {
    /// The client the user made (its name, allow-list and call log), when the request carried
    /// its token.
    pub client: Option<ServeClient>,
}

impl OutsideCaller {
    fn name(&self) -> &str {
        self.client
            .as_ref()
            .map_or("another app", |c| c.name.as_str())
    }

    fn may_call(&self, server: &str, tool: &str) -> bool {
        (self.client.as_ref()).is_none_or(|c| c.may_call(server, tool))
    }
}

impl Agent {
    /// `assistant` answering `request` (the app's messages, system prompt and sampling
    /// settings; the assistant's settings fill what the app left out) for `caller`: a stream
    /// that ends with `Finish` once the model answers without calling a tool, or after the
    /// assistant's most model calls.
    pub async fn answer_for_client(
        &self,
        assistant: &Assistant,
        mut request: ChatRequest,
        caller: OutsideCaller,
    ) -> Result<EventStream, EngineError> {
        let conversation = Conversation {
            id: format!("api-{}", uuid::Uuid::now_v7()),
            title: assistant.name.clone(),
            created_at: 0,
            updated_at: 0,
            pinned: false,
            archived: false,
            provider_id: assistant.provider_id.clone(),
            model: assistant.model.clone(),
            system_prompt: Some(assistant.system_prompt.clone()),
            settings: assistant.settings.clone(),
            head_id: None,
            project_id: None,
        };
        let setup = Setup::of(self, &conversation).await?;
        let prompt = assistant.system_prompt.trim();
        request.system = match (prompt.is_empty(), request.system.take()) {
            (true, app) => app,
            (false, None) => Some(prompt.to_owned()),
            (false, Some(app)) => Some(format!("{prompt}\n\n{app}")),
        };
        request.model = setup.model.clone();
        request.tools = setup
            .specs
            .iter()
            .filter(|spec| {
                setup
                    .names
                    .resolve(&spec.name)
                    .is_some_and(|(server, tool)| caller.may_call(server, tool))
            })
            .cloned()
            .collect();
        let s = &setup.settings;
        let params = &mut request.params;
        params.temperature = params.temperature.or(s.temperature);
        params.top_p = params.top_p.or(s.top_p);
        params.max_tokens = params.max_tokens.or(s.max_output_tokens);
        request.thinking = request.thinking.take().or_else(|| s.thinking.clone());
        request.context_window = setup.chosen_window;
        let steps = s.max_steps.unwrap_or(super::MAX_STEPS).max(1);
        let (tx, rx) = mpsc::unbounded_channel();
        let agent = self.clone();
        tokio::spawn(async move {
            let run = Run {
                agent: &agent,
                setup: &setup,
                caller: &caller,
                tx: &tx,
            };
            if let Err(error) = run.rounds(request, steps).await {
                let _ = tx.send(Err(error));
            }
        });
        Ok(Box::pin(futures::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|item| (item, rx))
        })))
    }
}

type Sender = mpsc::UnboundedSender<Result<ProviderEvent, ProviderError>>;

/// One answer's loop.
struct Run<'a> {
    agent: &'a Agent,
    setup: &'a Setup,
    caller: &'a OutsideCaller,
    tx: &'a Sender,
}

/// What one model call gave.
#[derive(Default)]
struct Round {
    text: String,
    calls: Vec<ToolCall>,
    /// Calls whose arguments were not JSON: their id, name and what was wrong.
    broken: Vec<(String, String, String)>,
    finish: Option<FinishReason>,
}

impl Run<'_> {
    async fn rounds(&self, mut request: ChatRequest, steps: u32) -> Result<(), ProviderError> {
        let mut usage = Usage::default();
        let mut said = false;
        for _ in 0..steps {
            let Some(round) = self.round(&request, &mut usage, said).await? else {
                return Ok(()); // the app went away
            };
            said |= !round.text.is_empty();
            if round.calls.is_empty() && round.broken.is_empty() {
                let _ = self.tx.send(Ok(ProviderEvent::Usage { usage }));
                let reason = round.finish.unwrap_or(FinishReason::Stop);
                let _ = self.tx.send(Ok(ProviderEvent::Finish { reason }));
                return Ok(());
            }
            let mut asked = round.calls.clone();
            asked.extend(round.broken.iter().map(|(id, name, _)| ToolCall {
                id: id.clone(),
                name: name.clone(),
                arguments: serde_json::json!({}),
            }));
            request.messages.push(ChatMessage::Assistant {
                text: round.text,
                tool_calls: asked,
            });
            for (id, name, error) in round.broken {
                request.messages.push(ChatMessage::Tool {
                    call_id: id,
                    name,
                    content: format!("The arguments were not valid JSON ({error}); call the tool again with a JSON object."),
                    is_error: true,
                });
            }
            for call in round.calls {
                let Some((content, is_error)) = self.call(&call).await else {
                    return Ok(()); // the app went away mid-call: the call was cancelled
                };
                request.messages.push(ChatMessage::Tool {
                    call_id: call.id,
                    name: call.name,
                    content,
                    is_error,
                });
            }
        }
        let _ = self.tx.send(Ok(ProviderEvent::Usage { usage }));
        let _ = self.tx.send(Ok(ProviderEvent::Finish {
            reason: FinishReason::Other(format!("the assistant's limit of {steps} model calls")),
        }));
        Ok(())
    }

    /// One model call, its text and reasoning passed on as they come (after a blank line when
    /// an earlier round `said` something); `None` when the app went away (dropping the stream
    /// stops the provider's request).
    async fn round(
        &self,
        request: &ChatRequest,
        usage: &mut Usage,
        said: bool,
    ) -> Result<Option<Round>, ProviderError> {
        let mut stream = self.setup.provider.stream(request.clone()).await?;
        let mut round = Round::default();
        while let Some(event) = stream.next().await {
            match event? {
                ProviderEvent::TextDelta { text } => {
                    let shown = if said && round.text.is_empty() && !text.is_empty() {
                        format!("\n\n{text}")
                    } else {
                        text.clone()
                    };
                    round.text.push_str(&text);
                    if self
                        .tx
                        .send(Ok(ProviderEvent::TextDelta { text: shown }))
                        .is_err()
                    {
                        return Ok(None);
                    }
                }
                ProviderEvent::ReasoningDelta { text } => {
                    if self
                        .tx
                        .send(Ok(ProviderEvent::ReasoningDelta { text }))
                        .is_err()
                    {
                        return Ok(None);
                    }
                }
                ProviderEvent::ToolCall { call } => round.calls.push(call),
                ProviderEvent::ToolCallInvalid {
                    id, name, error, ..
                } => round.broken.push((id, name, error)),
                ProviderEvent::Usage { usage: u } => {
                    usage.input_tokens += u.input_tokens;
                    usage.output_tokens += u.output_tokens;
                }
                ProviderEvent::Finish { reason } => round.finish = Some(reason),
            }
        }
        Ok((!self.tx.is_closed()).then_some(round))
    }

    /// Asks the user in the window, when one is open, about a call the policy asks about.
    fn ask_in_window(
        &self,
        server: &str,
        tool: &str,
        arguments: &serde_json::Value,
    ) -> impl Future<Output = Option<crate::vocab::ApprovalAnswer>> + Send + 'static {
        let interactions = self.agent.mcp().interactions().clone();
        let call = crate::mcp::ClientCall {
            client: self.caller.name().to_owned(),
            can_always: self.caller.client.is_some(),
            server: server.to_owned(),
            tool: tool.to_owned(),
            arguments: arguments.clone(),
        };
        async move { interactions.ask_client_call(call).await }
    }

    /// Runs one call as the app's: the result for the model and whether it failed; `None`
    /// when the app went away first (the call is cancelled).
    async fn call(&self, call: &ToolCall) -> Option<(String, bool)> {
        let Some((server, tool)) = self.setup.names.resolve(&call.name) else {
            return Some((format!("There is no tool named {}.", call.name), true));
        };
        if !self.caller.may_call(server, tool) {
            return Some((format!("There is no tool named {}.", call.name), true));
        }
        let client = self.caller.name();
        let cancel = CancellationToken::new();
        let started = std::time::Instant::now();
        tracing::info!(%client, %server, %tool, "an assistant calls a tool for another app");
        let run = self.agent.mcp().run_call(
            CallRequest {
                server,
                tool,
                arguments: call.arguments.clone(),
                cancel: cancel.clone(),
                progress: None,
                follows_tasks: false,
                on_start: None,
            },
            Caller::Client {
                client,
                id: self.caller.client.as_ref().map(|c| c.id.as_str()),
                ask: Box::pin(self.ask_in_window(server, tool, &call.arguments)),
            },
        );
        let called = tokio::select! {
            called = run => called,
            () = self.tx.closed() => {
                cancel.cancel();
                return None;
            }
        };
        if let Some(c) = &self.caller.client {
            crate::mcp::record_serve_call(self.agent.store(), c, server, tool, &called, started);
        }
        Some(match called {
            Ok(Called::Done(result)) => {
                let value = serde_json::to_value(&result).unwrap_or_default();
                (crate::vocab::mcp::result_text(&value), result.is_error)
            }
            Ok(Called::Refused) => (crate::mcp::refused_text(server, tool), true),
            Ok(Called::Unanswered) => (crate::mcp::unanswered_text(client, server, tool), true),
            Ok(Called::Task(_)) => (
                "The tool answered with a task, which is not followed here.".into(),
                true,
            ),
            Err(error) => (error.to_string(), true),
        })
    }
}
