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
    scan_with(Scanner::new(names, false), events)
}

/// Post-processes a native answer to a request that offered tools: a model that writes its
/// call as text instead (seed 000's qwen3 answering `{"action": "get_weather", …}` as its whole
/// content, Qwen and Hermes models leaking `<tool_call>{…}</tool_call>`) has it taken as the
/// call when it names an offered tool. Only a block that opens the answer, or a `<tool_call>`
/// tag anywhere, is looked at, so code and JSON later in an answer stream as they come. A name
/// may be given without its `server__` prefix when only one offered tool has that name.
pub fn scan_native_text(events: EventStream, offered: Vec<String>) -> EventStream {
    let aliases = bare_aliases(&offered);
    let mut names = offered;
    names.extend(aliases.keys().cloned());
    let scanned = scan_with(Scanner::new(names, true), events);
    Box::pin(scanned.map(move |item| match item {
        Ok(ProviderEvent::ToolCall { mut call }) => {
            if let Some(full) = aliases.get(&call.name) {
                call.name.clone_from(full);
            }
            Ok(ProviderEvent::ToolCall { call })
        }
        other => other,
    }))
}

/// The tool names without their `server__` prefix that stand for exactly one offered tool
/// (and are not themselves offered names), to their full names.
fn bare_aliases(offered: &[String]) -> std::collections::HashMap<String, String> {
    let mut counts: std::collections::HashMap<&str, Vec<&String>> = Default::default();
    for name in offered {
        if let Some((_, bare)) = name.split_once("__").filter(|(_, b)| !b.is_empty()) {
            counts.entry(bare).or_default().push(name);
        }
    }
    counts
        .into_iter()
        .filter(|(bare, full)| full.len() == 1 && !offered.iter().any(|o| o == bare))
        .map(|(bare, full)| (bare.to_owned(), full[0].clone()))
        .collect()
}

fn scan_with(mut scanner: Scanner, events: EventStream) -> EventStream {
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
    /// A native answer: only a block opening it, or a `<tool_call>` tag, may be a call.
    native: bool,
    /// Whether prose other than whitespace has been passed on.
    started: bool,
}

impl Scanner {
    fn new(names: Vec<String>, native: bool) -> Self {
        Self {
            names,
            held: String::new(),
            holding: false,
            may_close: false,
            checked: 0,
            native,
            started: false,
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
                self.started = true;
            } else {
                let (safe, holding) = if self.native {
                    native_prose_prefix(&self.held, self.started)
                } else {
                    prose_prefix(&self.held)
                };
                let drained: String = self.held.drain(..safe).collect();
                self.started |= !drained.trim().is_empty();
                prose.push_str(&drained);
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

/// [`prose_prefix`] for a native answer: a fence or JSON only where the answer starts (after
/// whitespace), a `<tool_call>` tag anywhere.
fn native_prose_prefix(text: &str, started: bool) -> (usize, bool) {
    for (i, c) in text.char_indices() {
        let at_start = !started && text[..i].trim().is_empty();
        if !at_start && c != '<' {
            continue;
        }
        match start_at(&text[i..]) {
            Start::NeedMore => return (i, false),
            Start::Tag => return (i, true),
            Start::Fence | Start::Json if at_start => return (i, true),
            Start::Fence | Start::Json | Start::No => {}
        }
    }
    (text.len(), false)
}
