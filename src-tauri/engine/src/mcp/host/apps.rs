//! The engine's MCP Apps operations: reading the App a tool call renders (stored with its
//! result), the rules for an App's own `tools/call` (its own server only, tools visible to
//! Apps only, the approval policy applies), and the App documents served to frames.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;

use super::McpHost;
use super::calls::{CallRequest, Called, Caller};
use crate::EngineError;
use crate::mcp::client::app_documents::{AppCsp, AppDocument, AppView};
use crate::vocab::ApprovalAnswer;
use crate::vocab::error::AppError;
use crate::vocab::error::ToolError;
use crate::vocab::mcp::ToolResult;

/// A `tools/call` an App sent, as the UI forwards it. The server is the App's own (the UI
/// binds it to the frame; the App cannot choose it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AppCall {
    /// The App's server.
    pub server: String,
    /// The tool the App asked for.
    pub tool: String,
    /// Its arguments.
    #[ts(type = "unknown")]
    pub arguments: Value,
    /// The conversation the App is shown in (for "allow in this chat").
    pub conversation_id: String,
    /// The App's `ui://` resource: the user's "Always" or "allow in this chat" on its approval
    /// card covers this App's calls only.
    #[serde(default)]
    #[ts(optional)]
    pub app: Option<String>,
    /// The user's answer, when the policy asked for one (`None` the first time).
    pub approval: Option<ApprovalAnswer>,
}

/// What became of an App's call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AppCallOutcome {
    /// It ran; the tool's result (which may report a tool error).
    Done {
        /// The result.
        result: ToolResult,
    },
    /// The policy asks the user first: call again with their answer.
    NeedsApproval,
}

impl McpHost {
    /// MCP Apps: the App a call renders, an App's own calls, the documents served to frames.
    pub fn apps(&self) -> Apps<'_> {
        Apps { host: self }
    }

    pub(super) fn tool_info(
        &self,
        server: &str,
        tool: &str,
    ) -> Result<crate::vocab::mcp::ToolInfo, EngineError> {
        let found = (self.supervisor())
            .with_slot(server, |slot| {
                slot.tools.iter().find(|t| t.name == tool).cloned()
            })
            .flatten();
        let unknown = || ToolError::UnknownTool {
            server: server.to_owned(),
            tool: tool.to_owned(),
        };
        found.ok_or_else(|| unknown().into())
    }
}

/// MCP Apps on the host (see the module's header).
#[derive(Clone, Copy, Debug)]
pub struct Apps<'a> {
    host: &'a McpHost,
}

impl Apps<'_> {
    /// The App a call of `tool` of `server` renders, read from the server; `None` when the
    /// tool declares no UI resource.
    pub async fn view(&self, server: &str, tool: &str) -> Result<Option<AppView>, EngineError> {
        let info = self.host.tool_info(server, tool)?;
        let Some(uri) = info.ui.and_then(|u| u.resource_uri) else {
            return Ok(None);
        };
        let client = self.host.supervisor().ready_client(server)?;
        let read = client
            .read_app_resource(&uri)
            .await
            .map_err(ToolError::from)?;
        let html = read.html.map_err(|found| AppError::NotAnApp {
            uri: uri.clone(),
            found,
        })?;
        if html.len() > crate::vocab::mcp::MAX_HTML_BYTES {
            let bytes = html.len();
            return Err(AppError::TooLarge { uri, bytes }.into());
        }
        Ok(Some(AppView {
            server: server.to_owned(),
            tool: tool.to_owned(),
            resource_uri: uri,
            html,
            csp: read.csp,
            prefers_border: read.prefers_border,
        }))
    }

    /// Runs a `tools/call` from an App: refused unless the tool is its own server's and
    /// visible to Apps, and unless the approval policy (or the user's answer) allows it.
    pub async fn call(&self, call: AppCall) -> Result<AppCallOutcome, EngineError> {
        let caller = Caller::App {
            conversation: &call.conversation_id,
            app: call.app.as_deref(),
            answer: call.approval,
        };
        let request = CallRequest {
            server: &call.server,
            tool: &call.tool,
            arguments: call.arguments.clone(),
            cancel: CancellationToken::new(),
            progress: None,
            follows_tasks: false,
            on_start: Some(Box::new(|| {
                tracing::info!(server = %call.server, tool = %call.tool, "an App called a tool");
            })),
        };
        match self.host.run_call(request, caller).await? {
            Called::Done(result) => Ok(AppCallOutcome::Done { result }),
            Called::Unanswered => Ok(AppCallOutcome::NeedsApproval),
            Called::Refused | Called::Task(_) => {
                tracing::info!(server = %call.server, tool = %call.tool, "an App's tool call was denied");
                Err(denied(&call).into())
            }
        }
    }

    /// Registers an App document for a frame; returns the token the frame loads it by. For
    /// an App of `server`, its CSP keeps local and private origins only when the user allowed
    /// private addresses for that server.
    pub fn open_view(
        &self,
        server: Option<&str>,
        html: &str,
        csp: &AppCsp,
    ) -> Result<String, EngineError> {
        if html.len() > crate::vocab::mcp::MAX_HTML_BYTES {
            let bytes = html.len();
            let uri = "(document)".to_owned();
            return Err(AppError::TooLarge { uri, bytes }.into());
        }
        let allowed = |slot: &crate::mcp::supervisor::Slot| {
            slot.config
                .as_ref()
                .is_some_and(crate::vocab::ServerConfig::allows_private)
        };
        let allow_private = server
            .and_then(|name| self.host.supervisor().with_slot(name, allowed))
            .unwrap_or(false);
        Ok(self
            .host
            .app_views
            .register_allowing(html, csp, allow_private))
    }

    /// The App document registered under `token`.
    pub fn document(&self, token: &str) -> Result<AppDocument, EngineError> {
        Ok(self.host.app_views.get(token)?)
    }

    /// Forgets the App document under `token` (its frame was unmounted).
    pub fn close_view(&self, token: &str) {
        self.host.app_views.release(token);
    }
}

fn denied(call: &AppCall) -> AppError {
    AppError::Denied {
        server: call.server.clone(),
        tool: call.tool.clone(),
    }
}

/// A tool result's stored JSON: the result, and under `app` the App it renders (when the
/// tool declares one and the call succeeded). An App that cannot be read is logged and left
/// out; the result itself is unchanged (the model never sees `app`).
pub async fn result_json(host: &McpHost, server: &str, tool: &str, result: &ToolResult) -> Value {
    let mut json = serde_json::to_value(result).unwrap_or(Value::Null);
    if result.is_error || server.is_empty() {
        return json;
    }
    let view = match host.apps().view(server, tool).await {
        Ok(view) => view,
        Err(error) => {
            tracing::warn!(%server, %tool, %error, "cannot read the tool's MCP App");
            None
        }
    };
    if let (Some(view), Value::Object(map)) = (view, &mut json) {
        map.insert(
            "app".to_owned(),
            serde_json::to_value(view).unwrap_or(Value::Null),
        );
    }
    json
}
