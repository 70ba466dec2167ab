//! The engine's operations on running servers beyond tools (states, logs, resources, prompts,
//! restart) and on the client capabilities: answering the servers' requests to the user,
//! the roots, and the model that answers sampling requests ([`Sampler`], set by the engine).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::McpHost;
use crate::EngineError;
use crate::mcp::client::McpClient;
use crate::mcp::client::roots::{self, ROOTS_SETTING, RootInfo};
use crate::mcp::supervisor::interact::InteractionAnswer;
use crate::mcp::supervisor::interact::Sampler;
use crate::mcp::supervisor::{ServerLogs, ServerState};
use crate::vocab::error::InteractionError;
use crate::vocab::error::ToolError;
use crate::vocab::mcp::{
    McpError, Prompt, PromptInfo, ResourceContent, ResourceInfo, ResourceTemplateInfo,
};

/// The setting overriding how long a server's request waits for the user, in seconds.
pub const INTERACTION_TIMEOUT_SETTING: &str = "mcp.interaction_timeout_secs";

/// One supervised server and its state.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct ServerStatus {
    /// The server's name.
    pub name: String,
    /// Its state.
    pub state: ServerState,
}

impl McpHost {
    /// Reads the MCP host's settings into the running host: the roots, the interaction
    /// timeout and the sampling `maxTokens` cap. Called when the engine opens.
    pub async fn load_settings(&self) -> Result<(), EngineError> {
        let folders = roots::from_setting(self.store().setting(ROOTS_SETTING).await?.as_ref());
        self.supervisor().roots().set(folders);
        let timeout = self.store().setting(INTERACTION_TIMEOUT_SETTING).await?;
        if let Some(secs) = timeout.as_ref().and_then(Value::as_u64).filter(|s| *s > 0) {
            let timeout = Duration::from_secs(secs);
            self.supervisor().interactions().set_timeout(timeout);
        }
        let max_tokens = self
            .store()
            .setting(crate::mcp::supervisor::sampling_limits::MAX_TOKENS_SETTING)
            .await?;
        if let Some(n) = max_tokens
            .as_ref()
            .and_then(Value::as_u64)
            .filter(|n| *n > 0)
        {
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            self.supervisor()
                .interactions()
                .sampling_limits()
                .set_max_tokens(n);
        }
        if let Err(error) = self.server_secrets().move_server_secrets().await {
            tracing::warn!(%error, "cannot move MCP server values to the keychain yet");
        }
        Ok(())
    }

    /// Answers the server request `id` (sampling: approve or deny; elicitation: accept with
    /// content, decline or cancel). An approved sampling request runs on the sampling model.
    /// Returns the URL to open in the system browser when a URL request was accepted.
    pub fn answer_interaction(
        &self,
        id: &str,
        answer: InteractionAnswer,
    ) -> Result<Option<String>, EngineError> {
        // Who answers sampling: the agent, once the engine has set it; else nobody.
        let sampler: Arc<dyn Sampler> = match self.sampler.get() {
            Some(s) => s.clone(),
            None => Arc::new(super::NoSampler),
        };
        Ok(self
            .supervisor()
            .interactions()
            .answer(id, answer, &*sampler)?)
    }

    /// The folders advertised to servers as roots.
    pub fn roots(&self) -> Vec<RootInfo> {
        self.supervisor().roots().list()
    }

    /// Replaces the roots (each an existing absolute folder), stores them, and tells every
    /// running server (`notifications/roots/list_changed`).
    pub async fn set_roots(&self, folders: Vec<PathBuf>) -> Result<Vec<RootInfo>, EngineError> {
        let folders =
            roots::check(&folders).map_err(|problems| InteractionError::BadSetting { problems })?;
        let value = roots::to_setting(&folders);
        self.store().set_setting(ROOTS_SETTING, &value).await?;
        self.supervisor().set_roots(folders).await;
        Ok(self.roots())
    }

    /// Every supervised server and its state, by name.
    pub fn server_states(&self) -> Vec<ServerStatus> {
        let states = self.supervisor().states().into_iter();
        states
            .map(|(name, state)| ServerStatus { name, state })
            .collect()
    }

    /// Stops server `name` if running and starts it again (from its stored configuration).
    pub async fn restart_server(&self, name: &str) -> Result<(), EngineError> {
        let record = self.store().find_server(name).await?;
        self.stop_server(&record.config.name).await;
        self.start_server(&record.config.name).await
    }

    /// The stderr lines and MCP log messages of server `name` (kept after it stops).
    pub fn server_logs(&self, name: &str) -> Result<ServerLogs, EngineError> {
        let server = name.to_owned();
        (self.supervisor().logs(name)).ok_or_else(|| ToolError::UnknownServer { server }.into())
    }

    /// What running server `name` offers besides tools: resources and prompts.
    pub fn server(&self, name: &str) -> RunningServer<'_> {
        RunningServer {
            host: self,
            name: name.to_owned(),
        }
    }
}

/// A running server's resources and prompts (every call fails with "unknown server" or "not
/// running" when it is not ready).
#[derive(Clone, Debug)]
pub struct RunningServer<'a> {
    host: &'a McpHost,
    name: String,
}

impl RunningServer<'_> {
    /// The resources the server lists (none when it has no resources).
    pub async fn resources(&self) -> Result<Vec<ResourceInfo>, EngineError> {
        let client = self.client()?;
        Ok(none_if_unsupported(client.list_resources().await)?)
    }

    /// The prompts the server lists (none when it has no prompts).
    pub async fn prompts(&self) -> Result<Vec<PromptInfo>, EngineError> {
        let client = self.client()?;
        Ok(none_if_unsupported(client.list_prompts().await)?)
    }

    /// The resource templates the server lists (none when it has none).
    pub async fn resource_templates(&self) -> Result<Vec<ResourceTemplateInfo>, EngineError> {
        let client = self.client()?;
        Ok(none_if_unsupported(client.list_resource_templates().await)?)
    }

    /// Reads resource `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContent>, EngineError> {
        let client = self.client()?;
        Ok(client.read_resource(uri).await.map_err(ToolError::from)?)
    }

    /// Expands prompt `prompt` with `args`.
    pub async fn get_prompt(
        &self,
        prompt: &str,
        args: BTreeMap<String, String>,
    ) -> Result<Prompt, EngineError> {
        let client = self.client()?;
        Ok(client
            .get_prompt(prompt, args)
            .await
            .map_err(ToolError::from)?)
    }

    fn client(&self) -> Result<Arc<McpClient>, EngineError> {
        Ok(self.host.supervisor().ready_client(&self.name)?)
    }
}

/// An empty list when the server does not implement the listing.
fn none_if_unsupported<T>(listed: Result<Vec<T>, McpError>) -> Result<Vec<T>, ToolError> {
    match listed {
        Err(McpError::ServerError { code, .. })
            if code == crate::mcp::supervisor::METHOD_NOT_FOUND =>
        {
            Ok(Vec::new())
        }
        other => Ok(other?),
    }
}
