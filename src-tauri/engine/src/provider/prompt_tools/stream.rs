//! [`PromptTools`]: any provider in prompt mode. The request is rewritten with
//! [`to_prompt_request`]; the answer's text streams through until something that may start a
//! tool call appears (a fence, a `<tool_call>` tag, a JSON object) and is held from there. A
//! held block that closes without holding a call (a code sample, say) is let go at once;
//! otherwise the held text is split into prose and calls at the end.

use futures::future::BoxFuture;
use futures::{StreamExt, stream};

use super::extract::{Start, extract_tool_calls, settled_prose, start_at};
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
/// [`ProviderEvent::ToolCall`]s (also used by the built-in model, whose answers carry calls in
/// their text).
pub fn scan_events(events: EventStream, names: Vec<String>) -> EventStream {
    let mut scanner = Scanner::new(names);
    let items = events.map(Some).chain(stream::once(async { None }));
    Box::pin(items.flat_map(move |item| stream::iter(scanner.feed(item))))
}

type Item = Result<ProviderEvent, ProviderError>;

/// The characters that may close a held block.
const CLOSERS: [char; 5] = ['}', ']', '`', '~', '>'];

/// The state of one answer: text not yet passed on, and whether a call may have started.
struct Scanner {
    names: Vec<String>,
    /// Text not yet emitted: an undecided tail, or everything since a possible call start.
    held: String,
    /// Whether `held` starts where a call may start (so it is kept until it closes).
    holding: bool,
    /// Whether text that may close the held block came since it was last looked at.
    may_close: bool,
    /// The length of `held` when it was last looked at.
    checked: usize,
}

impl Scanner {
    fn new(names: Vec<String>) -> Self {
        Self {
            names,
            held: String::new(),
            holding: false,
            may_close: false,
            checked: 0,
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

    /// A text delta: emits what surely is prose, holds the rest. Held blocks that turn out to
    /// be closed and hold no calls (code samples, say) are let go as soon as they close.
    fn text(&mut self, delta: &str) -> Vec<Item> {
        self.may_close |= self.held.ends_with(['`', '~']) || delta.contains(CLOSERS);
        self.held.push_str(delta);
        let mut prose = String::new();
        loop {
            if self.holding {
                if !self.check_due() {
                    break;
                }
                (self.may_close, self.checked) = (false, self.held.len());
                let Some(end) = self.settled() else {
                    break;
                };
                prose.extend(self.held.drain(..end));
                (self.holding, self.may_close, self.checked) = (false, true, 0);
            } else {
                let (safe, holding) = prose_prefix(&self.held);
                prose.extend(self.held.drain(..safe));
                self.holding = holding;
                if !holding {
                    break;
                }
            }
        }
        text_event(prose).into_iter().map(Ok).collect()
    }

    /// Whether to look again if the held block has closed: something that may close it came,
    /// and the block grew by a quarter since the last look (so a long block costs linear time).
    fn check_due(&self) -> bool {
        self.may_close && self.held.len() - self.checked >= (self.checked / 4).max(1)
    }

    /// How much of the held block is settled prose, if it all is.
    fn settled(&self) -> Option<usize> {
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        settled_prose(&self.held, &names)
    }

    /// The end of the answer: held text split into prose and calls; whether calls were found.
    fn flush(&mut self) -> (Vec<Item>, bool) {
        (self.may_close, self.checked) = (false, 0);
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
        (self.holding, self.may_close, self.checked) = (false, false, 0);
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
