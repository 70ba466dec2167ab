//! [`PromptTools`]: any provider in prompt mode. The request is rewritten with
//! [`to_prompt_request`]; the answer's text streams through until something that may start a
//! tool call appears, is held from there, and at the end is split into prose and calls.

use futures::future::BoxFuture;
use futures::{StreamExt, stream};

use super::extract::{Start, extract_tool_calls, start_at};
use super::to_prompt_request;
use crate::provider::{
    ChatRequest, EventStream, FinishReason, ModelInfo, Provider, ProviderError, ProviderEvent,
};

/// A provider in prompt mode: tools described in the system prompt, calls read from the text.
#[derive(Clone, Debug)]
pub struct PromptTools<P> {
    inner: P,
}

impl<P> PromptTools<P> {
    /// Wraps `inner`.
    pub fn new(inner: P) -> Self {
        Self { inner }
    }

    /// The wrapped provider.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    /// Unwraps the provider.
    pub fn into_inner(self) -> P {
        self.inner
    }
}

impl<P: Provider> Provider for PromptTools<P> {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
        Box::pin(async move {
            let names: Vec<String> = req.tools.iter().map(|t| t.name.clone()).collect();
            let events = self.inner.stream(to_prompt_request(&req)).await?;
            if names.is_empty() {
                return Ok(events);
            }
            Ok(scan_events(events, names))
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        self.inner.list_models()
    }
}

/// Post-processes a prompt-mode answer: calls to `names` found in its text become
/// [`ProviderEvent::ToolCall`]s.
fn scan_events(events: EventStream, names: Vec<String>) -> EventStream {
    let mut scanner = Scanner::new(names);
    let items = events.map(Some).chain(stream::once(async { None }));
    Box::pin(items.flat_map(move |item| stream::iter(scanner.feed(item))))
}

type Item = Result<ProviderEvent, ProviderError>;

/// The state of one answer: text not yet passed on, and whether a call may have started.
struct Scanner {
    names: Vec<String>,
    /// Text not yet emitted: an undecided tail, or everything since a possible call start.
    held: String,
    /// Whether `held` starts where a call may start (so it is kept to the end).
    holding: bool,
}

impl Scanner {
    fn new(names: Vec<String>) -> Self {
        Self {
            names,
            held: String::new(),
            holding: false,
        }
    }

    /// What to emit for one inner event (`None`: the inner stream ended).
    fn feed(&mut self, item: Option<Item>) -> Vec<Item> {
        match item {
            Some(Ok(ProviderEvent::TextDelta { text })) => self.text(&text),
            Some(Ok(ProviderEvent::Finish { reason })) => {
                let (mut out, found) = self.flush();
                let reason = if found {
                    FinishReason::ToolCalls
                } else {
                    reason
                };
                out.push(Ok(ProviderEvent::Finish { reason }));
                out
            }
            Some(Ok(other)) => vec![Ok(other)],
            Some(Err(e)) => {
                let mut out = self.flush_raw();
                out.push(Err(e));
                out
            }
            None => self.flush().0,
        }
    }

    /// A text delta: emits what surely is prose, holds the rest.
    fn text(&mut self, delta: &str) -> Vec<Item> {
        self.held.push_str(delta);
        if self.holding {
            return Vec::new();
        }
        let (safe, holding) = prose_prefix(&self.held);
        self.holding = holding;
        let rest = self.held.split_off(safe);
        let prose = std::mem::replace(&mut self.held, rest);
        text_event(prose).into_iter().map(Ok).collect()
    }

    /// The end of the answer: held text split into prose and calls; whether calls were found.
    fn flush(&mut self) -> (Vec<Item>, bool) {
        let held = std::mem::take(&mut self.held);
        if !std::mem::take(&mut self.holding) {
            return (text_event(held).into_iter().map(Ok).collect(), false);
        }
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let found = extract_tool_calls(&held, &names);
        let any = !found.calls.is_empty();
        let calls = found
            .calls
            .into_iter()
            .map(|call| ProviderEvent::ToolCall { call });
        let out = text_event(found.text)
            .into_iter()
            .chain(calls)
            .map(Ok)
            .collect();
        (out, any)
    }

    /// An error ends the answer: held text is passed on as it is.
    fn flush_raw(&mut self) -> Vec<Item> {
        self.holding = false;
        text_event(std::mem::take(&mut self.held))
            .into_iter()
            .map(Ok)
            .collect()
    }
}

fn text_event(text: String) -> Option<ProviderEvent> {
    (!text.is_empty()).then_some(ProviderEvent::TextDelta { text })
}

/// How much of `text` is surely prose, and whether a call may start right after it (else what
/// follows is an undecided tail).
fn prose_prefix(text: &str) -> (usize, bool) {
    for (i, _) in text.char_indices() {
        match start_at(&text[i..]) {
            Start::No => {}
            Start::NeedMore => return (i, false),
            Start::Fence | Start::Tag | Start::Json => return (i, true),
        }
    }
    (text.len(), false)
}
