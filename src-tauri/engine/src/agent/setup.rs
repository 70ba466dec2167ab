//! What a turn needs before its first model call: the provider client (wrapped for the tool
//! mode), the model, the tools of the conversation's servers under provider-safe names, and
//! the sampling settings.

use tracing::Instrument;

use crate::EngineError;
use crate::provider::names::ToolNames;
use crate::provider::prompt_tools::{ModeSwitch, PromptOnlyModels, ToolMode};
use crate::provider::{Provider, ToolSpec};
use crate::store::{Conversation, ProviderRecord};
use crate::vocab::ProviderKind;
use crate::vocab::mcp::ToolInfo;

use super::Agent;
use super::{AgentError, ChatSettings};

/// The setting naming the provider (id or name) used when a conversation names none.
pub(crate) const DEFAULT_PROVIDER: &str = "chat.default_provider";

/// Everything fixed for the length of one turn.
pub(super) struct Setup {
    pub provider: Box<dyn Provider>,
    pub model: String,
    pub tools: Vec<(String, ToolInfo)>,
    pub names: ToolNames,
    pub specs: Vec<ToolSpec>,
    /// What was measured of `specs` (once for the whole turn; see [`super::budget`]).
    pub specs_measures: super::budget::ToolsMeasures,
    pub settings: ChatSettings,
    /// The context window to send, for formats that size it per request (Ollama's
    /// `num_ctx`; see [`sized_per_request`]).
    pub chosen_window: Option<u32>,
    /// The provider's id.
    pub provider_id: String,
    /// The system prompt sent: the project's instructions, then the conversation's own prompt.
    pub system: Option<String>,
    /// The models `Auto` mode knows need prompt-mode tools (loaded from the database, grown
    /// by the turn, written back after each model call).
    pub prompt_only: PromptOnlyModels,
    /// How many models `prompt_only` held when the turn began (what was loaded).
    pub prompt_only_loaded: usize,
}

impl Setup {
    /// The cost of the tools offered in this turn's requests.
    pub(crate) fn tools_cost(&self) -> super::budget::ToolsCost<'_> {
        super::budget::ToolsCost {
            specs: &self.specs,
            measures: &self.specs_measures,
        }
    }

    /// Resolves the provider, model and tools of `conv`.
    pub(crate) async fn of(agent: &Agent, conv: &Conversation) -> Result<Self, EngineError> {
        Self::build(agent, conv, true).await
    }

    /// [`Setup::of`] without tools, for a request that offers none (a title): it never lists a
    /// server's tools.
    pub(crate) async fn without_tools(
        agent: &Agent,
        conv: &Conversation,
    ) -> Result<Self, EngineError> {
        Self::build(agent, conv, false).await
    }

    async fn build(
        agent: &Agent,
        conv: &Conversation,
        with_tools: bool,
    ) -> Result<Self, EngineError> {
        let mut settings = ChatSettings::of(conv);
        let record = provider_of(agent, conv).await?;
        let model = match &conv.model {
            Some(m) => m.clone(),
            None => agent
                .providers()
                .default_model(&record)
                .await
                .ok_or_else(|| no_model(&record))?,
        };
        // The window, the client (its key), what auto mode learned, the tools and the project's
        // instructions do not depend on one another: asked for at once.
        let chosen_window = settings.context_window;
        let window = async {
            match chosen_window {
                Some(_) => None,
                None => agent.providers().context_window(&record, &model).await,
            }
        };
        let client = agent.providers().client_of(record.clone());
        let learned = super::probed_modes::prompt_only(agent.store(), &record, &model);
        let tools = async {
            if with_tools {
                tools_of(agent, &settings).await
            } else {
                Vec::new()
            }
        };
        let (window, client, learned, tools, system) = tokio::join!(
            window.instrument(tracing::trace_span!("turn.setup.window")),
            client.instrument(tracing::trace_span!("turn.setup.client")),
            learned.instrument(tracing::trace_span!("turn.setup.learned")),
            tools.instrument(tracing::trace_span!("turn.setup.tools")),
            system_of(agent, conv),
        );
        let (client, learned) = (client?, learned?);
        if chosen_window.is_none() {
            settings.context_window = window;
        }
        let chosen_window = sized_per_request(&record, chosen_window, &mut settings);
        let mode = settings
            .tool_mode
            .or_else(|| record.settings.tool_modes.get(&model).copied())
            .unwrap_or(ToolMode::Auto);
        let prompt_only_loaded = learned.len();
        let prompt_only = PromptOnlyModels::new(std::sync::Mutex::new(learned));
        let names = ToolNames::build(tools.iter().map(|(s, t)| (s.as_str(), t.name.as_str())));
        let specs = specs(&tools, &names);
        Ok(Self {
            provider: Box::new(ModeSwitch::with_prompt_only(
                client,
                mode,
                prompt_only.clone(),
            )),
            model,
            tools,
            names,
            specs,
            specs_measures: Default::default(),
            settings,
            chosen_window,
            provider_id: record.id,
            system,
            prompt_only,
            prompt_only_loaded,
        })
    }

    /// The tool a provider-safe name stands for.
    pub(crate) fn resolve(&self, safe: &str) -> Option<(&str, &ToolInfo)> {
        let (server, tool) = self.names.resolve(safe)?;
        self.tools
            .iter()
            .find(|(s, t)| s == server && t.name == tool)
            .map(|(s, t)| (s.as_str(), t))
    }
}

/// Why `record` has no model to answer with: the built-in provider lacks a model file, any
/// other listed none and names no default.
pub(crate) fn no_model(record: &ProviderRecord) -> AgentError {
    let provider = record.name.clone();
    match record.kind {
        ProviderKind::Local => AgentError::NoLocalModel { provider },
        _ => AgentError::NoModel { provider },
    }
}

/// The window to send with each request. Ollama serves a model with the `num_ctx` a request
/// gives, else with its own small default (which silently cuts a longer prompt), so it always
/// gets one: the conversation's, else the model's capped at the default window (a model's
/// 128k would take memory the user never asked for); the history is fitted to the same.
fn sized_per_request(
    record: &ProviderRecord,
    chosen: Option<u32>,
    settings: &mut ChatSettings,
) -> Option<u32> {
    if record.kind != crate::vocab::ProviderKind::Ollama || chosen.is_some() {
        return chosen;
    }
    let default = super::budget::DEFAULT_WINDOW;
    let window = settings.context_window.map_or(default, |w| w.min(default));
    settings.context_window = Some(window);
    Some(window)
}

/// The conversation's provider, the default one, or the only one.
pub(super) async fn provider_of(
    agent: &Agent,
    conv: &Conversation,
) -> Result<ProviderRecord, EngineError> {
    if let Some(id) = &conv.provider_id {
        return Ok(agent.store().find_provider(id).await?);
    }
    if let Some(serde_json::Value::String(name)) = agent.store().setting(DEFAULT_PROVIDER).await? {
        return Ok(agent.store().find_provider(&name).await?);
    }
    let all = agent.store().list_providers().await?;
    all.into_iter()
        .next()
        .ok_or_else(|| AgentError::NoProvider.into())
}

/// The tools of the conversation's servers (all running servers when it names none), less
/// those switched off one by one; lists
/// whose cache hint ran out are listed again, the others reused with no request.
async fn tools_of(agent: &Agent, settings: &ChatSettings) -> Vec<(String, ToolInfo)> {
    let mut tools = agent.mcp().model_tools(settings.servers.as_deref()).await;
    tools.retain(|(server, t)| settings.tool_enabled(server, &t.name));
    tools
}

/// The tool definitions sent to the model.
fn specs(tools: &[(String, ToolInfo)], names: &ToolNames) -> Vec<ToolSpec> {
    tools
        .iter()
        .filter_map(|(server, t)| {
            let name = names.safe_name(server, &t.name)?.to_owned();
            Some(ToolSpec {
                name,
                description: t.description.clone().unwrap_or_default(),
                parameters: serde_json::Value::Object(t.input_schema.clone()),
            })
        })
        .collect()
}

/// The system prompt of `conv`: its project's instructions (when it is in a project that has
/// some), then its own system prompt; none when both are empty. A project that cannot be read
/// leaves its instructions out (logged) rather than failing the turn.
async fn system_of(agent: &Agent, conv: &Conversation) -> Option<String> {
    let own = conv
        .system_prompt
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let project = match &conv.project_id {
        None => None,
        Some(id) => match agent.store().find_project(id).await {
            Ok(p) => Some(p.instructions),
            Err(e) => {
                tracing::warn!(error = %e, "the conversation's project could not be read");
                None
            }
        },
    };
    let project = project.filter(|p| !p.trim().is_empty());
    match (project, own) {
        (None, None) => None,
        (Some(p), None) => Some(p),
        (None, Some(o)) => Some(o.to_owned()),
        (Some(p), Some(o)) => Some(format!("{p}\n\n{o}")),
    }
}
