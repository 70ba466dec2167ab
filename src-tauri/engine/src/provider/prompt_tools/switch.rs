//! [`ModeSwitch`]: native or prompt-mode tool calling per [`ToolMode`]. In `Auto` mode a
//! request goes native first; when the endpoint refuses tools before sending anything, it is
//! retried in prompt mode and the model is remembered as prompt-only. A native answer that
//! writes its call as text has it read as the call ([`scan_native_text`]).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use futures::{StreamExt, stream};

use super::{PromptTools, has_tool_history, scan_native_text};
use crate::provider::{ChatRequest, EventStream, ModelInfo, Provider, ProviderError};
use crate::vocab::ToolMode;

/// The model ids known to need prompt mode, shared with whoever persists them.
pub type PromptOnlyModels = Arc<Mutex<HashSet<String>>>;

/// A provider that sends tools natively or in prompt mode, per its [`ToolMode`]. Requests
/// without tools go native, except that a conversation with earlier tool calls is rewritten for
/// a model in prompt mode.
pub struct ModeSwitch<P> {
    prompt: PromptTools<P>,
    mode: ToolMode,
    prompt_only: PromptOnlyModels,
}

enum Route {
    Native,
    Prompt,
    NativeThenPrompt,
}

impl<P: Provider> ModeSwitch<P> {
    /// Wraps `inner` in `mode`, with no model remembered as prompt-only.
    pub fn new(inner: P, mode: ToolMode) -> Self {
        Self::with_prompt_only(inner, mode, PromptOnlyModels::default())
    }

    /// Wraps `inner` in `mode`, sharing the set of models already known to need prompt mode
    /// (it grows as `Auto` mode learns more).
    pub fn with_prompt_only(inner: P, mode: ToolMode, prompt_only: PromptOnlyModels) -> Self {
        Self {
            prompt: PromptTools::new(inner),
            mode,
            prompt_only,
        }
    }

    /// The wrapped provider.
    pub fn inner(&self) -> &P {
        self.prompt.inner()
    }

    /// The mode.
    pub fn mode(&self) -> ToolMode {
        self.mode
    }

    /// The models known to need prompt mode, sorted, for the caller to persist.
    pub fn prompt_only_models(&self) -> Vec<String> {
        let mut models: Vec<String> = self.models().iter().cloned().collect();
        models.sort();
        models
    }

    fn models(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.prompt_only
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn route(&self, req: &ChatRequest) -> Route {
        let tools = !req.tools.is_empty();
        let prompt = match self.mode {
            ToolMode::Native => false,
            ToolMode::Prompt => true,
            ToolMode::Auto => self.models().contains(&req.model),
        };
        match (tools, prompt) {
            (_, true) if tools || has_tool_history(req) => Route::Prompt,
            (true, false) if self.mode == ToolMode::Auto => Route::NativeThenPrompt,
            _ => Route::Native,
        }
    }

    /// Native first; prompt mode when the endpoint refuses tools before any event.
    async fn native_then_prompt(&self, req: ChatRequest) -> Result<EventStream, ProviderError> {
        let offered: Vec<String> = req.tools.iter().map(|t| t.name.clone()).collect();
        match self.native_first_event(req.clone()).await {
            Ok(events) => Ok(text_calls(events, offered)),
            Err(ProviderError::ToolsUnsupported { message }) => {
                tracing::info!(model = %req.model, %message, "no native tool calling; using prompt mode");
                self.models().insert(req.model.clone());
                self.prompt.stream(req).await
            }
            other => other,
        }
    }

    /// Starts a native stream and waits for its first event, so a refusal of tools that comes
    /// as the stream's first item can still be retried.
    async fn native_first_event(&self, req: ChatRequest) -> Result<EventStream, ProviderError> {
        let mut events = self.prompt.inner().stream(req).await?;
        match events.next().await {
            Some(Err(e @ ProviderError::ToolsUnsupported { .. })) => Err(e),
            Some(first) => Ok(Box::pin(stream::once(async { first }).chain(events))),
            None => Ok(events),
        }
    }
}

/// A native answer with calls written as text read as calls, when tools were offered.
fn text_calls(events: EventStream, offered: Vec<String>) -> EventStream {
    if offered.is_empty() {
        return events;
    }
    scan_native_text(events, offered)
}

impl<P: Provider> Provider for ModeSwitch<P> {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
        Box::pin(async move {
            let offered: Vec<String> = req.tools.iter().map(|t| t.name.clone()).collect();
            let native = match self.route(&req) {
                Route::Native => self.prompt.inner().stream(req).await,
                Route::Prompt => return self.prompt.stream(req).await,
                Route::NativeThenPrompt => return self.native_then_prompt(req).await,
            };
            Ok(text_calls(native?, offered))
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        self.prompt.inner().list_models()
    }
}
