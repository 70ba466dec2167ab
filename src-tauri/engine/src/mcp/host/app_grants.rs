//! What an MCP App's own approvals cover: the user's "Always" or "allow in this chat" on an
//! App's approval card applies to that App's calls of that tool only (the App is its server
//! and its `ui://` resource), never to the model's calls of the tool nor to another App's.
//! "Always" is stored (setting [`APP_GRANTS_SETTING`], by server id, so a server replaced by
//! another keeps none of it); "in this chat" lives in memory. Explicit denials still win: a
//! grant only turns the policy's "ask" into "allow".

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use super::McpHost;
use crate::EngineError;
use crate::vocab::ApprovalAnswer;

/// The setting holding the Apps' "Always" grants (a JSON array of [`Grant`]).
pub const APP_GRANTS_SETTING: &str = "tools.app_grants";

/// One App's permission to call one tool of its server.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Grant {
    /// The server's id.
    pub server: String,
    /// The App's `ui://` resource.
    pub app: String,
    /// The tool.
    pub tool: String,
}

/// The in-memory "allow in this chat" grants of Apps: (conversation, grant).
#[derive(Clone, Debug, Default)]
pub struct AppChatGrants(Arc<Mutex<HashSet<(String, Grant)>>>);

impl AppChatGrants {
    fn lock(&self) -> MutexGuard<'_, HashSet<(String, Grant)>> {
        match self.0.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

impl McpHost {
    /// The Apps' stored "Always" grants.
    async fn app_grants(&self) -> Result<Vec<Grant>, EngineError> {
        let stored = self.store().setting(APP_GRANTS_SETTING).await?;
        Ok(stored
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default())
    }

    async fn save_app_grants(&self, grants: &[Grant]) -> Result<(), EngineError> {
        let value = serde_json::to_value(grants).unwrap_or_default();
        Ok(self.store().set_setting(APP_GRANTS_SETTING, &value).await?)
    }

    /// Whether the user allowed `grant`'s App to call its tool, always or in `conversation`.
    pub(crate) async fn app_granted(
        &self,
        conversation: &str,
        grant: &Grant,
    ) -> Result<bool, EngineError> {
        let key = (conversation.to_owned(), grant.clone());
        if self.policies().app_chats().lock().contains(&key) {
            return Ok(true);
        }
        Ok(self.app_grants().await?.contains(grant))
    }

    /// Keeps the user's answer to an App's approval card for that App only: "Always" is
    /// stored, "allow in this chat" kept for `conversation`; other answers keep nothing.
    pub(crate) async fn remember_app_approval(
        &self,
        conversation: &str,
        grant: Grant,
        answer: ApprovalAnswer,
    ) -> Result<(), EngineError> {
        match answer {
            ApprovalAnswer::AllowAlways => {
                let mut grants = self.app_grants().await?;
                if !grants.contains(&grant) {
                    tracing::info!(app = %grant.app, tool = %grant.tool, "an App may now always call a tool");
                    grants.push(grant);
                    self.save_app_grants(&grants).await?;
                }
            }
            ApprovalAnswer::AllowForChat => {
                let key = (conversation.to_owned(), grant);
                self.policies().app_chats().lock().insert(key);
            }
            ApprovalAnswer::AllowOnce | ApprovalAnswer::Deny => {}
        }
        Ok(())
    }

    /// Drops every App grant on server `id` (its identity changed, or it was replaced).
    pub(crate) async fn clear_app_grants(&self, id: &str) -> Result<(), EngineError> {
        let grants = self.app_grants().await?;
        let kept: Vec<Grant> = grants.iter().filter(|g| g.server != id).cloned().collect();
        if kept.len() != grants.len() {
            self.save_app_grants(&kept).await?;
        }
        self.policies()
            .app_chats()
            .lock()
            .retain(|(_, g)| g.server != id);
        Ok(())
    }
}
