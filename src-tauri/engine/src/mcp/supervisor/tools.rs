//! The tool execution API of the agent loop: the tools of a conversation's servers (from the
//! supervisor's caches), and calling one: the server and tool must exist, the arguments must
//! match the tool's input schema (every violation reported with its JSON path), the call runs
//! under the server's call timeout, and oversized results are cut down to stay usable.

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::mcp::client::app_documents::visible_to_model;
use crate::mcp::supervisor::{ServerState, Supervisor};
use crate::vocab::error::{ToolError, Violation};
use crate::vocab::mcp::{ResourceBody, ResultPart, ToolAnnotations, ToolInfo, ToolResult};

/// Limits applied to tool results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most text characters a result keeps (over all its text parts).
    pub max_text_chars: usize,
    /// The largest binary part (decoded bytes) a result keeps.
    pub max_binary_bytes: usize,
}

impl Default for Limits {
    /// 100,000 characters of text; 5 MB per binary part.
    fn default() -> Self {
        Self {
            max_text_chars: 100_000,
            max_binary_bytes: 5 * 1024 * 1024,
        }
    }
}

impl Supervisor {
    /// The names of the tools a model may see of every ready server, each with its server, by
    /// server name and then in the server's order — what a tool list names, without copying
    /// the tools (a call resolves its name through these).
    pub fn model_tool_names(&self) -> Vec<(String, String)> {
        let slots = self.inner.lock();
        let mut names: Vec<(String, String)> = (slots.iter())
            .filter(|(_, slot)| matches!(slot.state, ServerState::Ready { .. }))
            .flat_map(|(server, slot)| {
                (slot.tools.iter())
                    .filter(|t| visible_to_model(t.ui.as_ref()))
                    .map(move |t| (server.clone(), t.name.clone()))
            })
            .collect();
        names.sort_by(|a, b| a.0.cmp(&b.0));
        names
    }

    /// Ready server `server`'s log messages from now on (`None`: it is not ready).
    pub(crate) fn subscribe_logs(
        &self,
        server: &str,
    ) -> Option<tokio::sync::broadcast::Receiver<crate::mcp::client::ServerLog>> {
        self.with_slot(server, |slot| match (&slot.state, &slot.client) {
            (ServerState::Ready { .. }, Some(client)) => Some(client.subscribe_logs()),
            _ => None,
        })
        .flatten()
    }

    /// What tool `tool` of ready server `server` says of itself; `None` when there is none.
    pub fn tool_annotations(&self, server: &str, tool: &str) -> Option<ToolAnnotations> {
        self.with_slot(server, |slot| match slot.state {
            ServerState::Ready { .. } => (slot.tools.iter())
                .find(|t| t.name == tool)
                .map(|t| t.annotations.clone()),
            _ => None,
        })
        .flatten()
    }

    /// Tool `tool` of ready server `server`, as it listed it.
    pub fn tool_info(&self, server: &str, tool: &str) -> Option<ToolInfo> {
        self.with_slot(server, |slot| match slot.state {
            ServerState::Ready { .. } => slot.tools.iter().find(|t| t.name == tool).cloned(),
            _ => None,
        })
        .flatten()
    }

    /// The tools of `servers` that are ready, in the order given, each with its server.
    pub fn tools_for(&self, servers: &[String]) -> Vec<(String, ToolInfo)> {
        servers
            .iter()
            .filter_map(|name| {
                self.with_slot(name, |slot| match slot.state {
                    ServerState::Ready { .. } => slot.tools.to_vec(),
                    _ => Vec::new(),
                })
                .map(|tools| (name, tools))
            })
            .flat_map(|(name, tools)| tools.into_iter().map(|t| (name.clone(), t)))
            .collect()
    }

    /// [`Supervisor::tools_for`] for a turn: a server whose list's cache hint has run out
    /// (`ttlMs` passed, or a stateless-era server that gave none) is listed again first, all
    /// such servers concurrently; every other list is reused as it is, with no request.
    pub async fn current_tools_for(&self, servers: &[String]) -> Vec<(String, ToolInfo)> {
        let now = std::time::Instant::now();
        let stale: Vec<&String> = (servers.iter())
            .filter(|name| {
                self.with_slot(name, |slot| {
                    matches!(slot.state, ServerState::Ready { .. })
                        && slot.tools_until.is_some_and(|until| until <= now)
                })
                .unwrap_or(false)
            })
            .collect();
        if !stale.is_empty() {
            let relists = stale.iter().map(|name| self.refresh_tools(name));
            futures::future::join_all(relists).await;
        }
        self.tools_for(servers)
    }

    /// Calls `tool` of `server` with `args` (a JSON object) after validating them against the
    /// tool's input schema, under the server's call timeout; the result is truncated to the
    /// supervisor's [`Limits`]. A tool that reports an error is a result with `is_error`.
    /// A tool name not in the cached list is looked up once more with a fresh `tools/list`
    /// (a server may add tools right after start-up, before its `list_changed` arrives).
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        args: Value,
        cancel: CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        self.call_with_progress(server, tool, args, cancel, None)
            .await
    }

    /// [`Supervisor::call`], sending the call's progress notifications to `progress`.
    pub async fn call_with_progress(
        &self,
        server: &str,
        tool: &str,
        args: Value,
        cancel: CancellationToken,
        progress: Option<crate::mcp::client::progress::ProgressSink>,
    ) -> Result<ToolResult, ToolError> {
        let (client, args, timeout) = self.prepare(server, tool, args).await?;
        let call = client.call_tool_with_progress(tool, args, timeout, cancel, progress);
        let result = call.await?;
        Ok(truncate(result, &self.limits()))
    }

    /// The client to call `tool` of `server` with, the arguments checked against the tool's
    /// schema (compiled once, [`super::validators`]), and the call timeout. A tool not in the
    /// cached list is looked for once more in a fresh `tools/list`.
    pub(super) async fn prepare(
        &self,
        server: &str,
        tool: &str,
        args: Value,
    ) -> Result<
        (
            std::sync::Arc<crate::mcp::client::McpClient>,
            Map<String, Value>,
            std::time::Duration,
        ),
        ToolError,
    > {
        let (client, validator, timeout) = match self.callable(server, tool) {
            Err(ToolError::UnknownTool { .. }) if self.refresh_tools(server).await => {
                self.callable(server, tool)?
            }
            other => other?,
        };
        Ok((client, check(&validator, tool, args)?, timeout))
    }

    /// The client, the tool's schema validator and the call timeout, or why there are none.
    fn callable(
        &self,
        server: &str,
        tool: &str,
    ) -> Result<
        (
            std::sync::Arc<crate::mcp::client::McpClient>,
            std::sync::Arc<jsonschema::Validator>,
            std::time::Duration,
        ),
        ToolError,
    > {
        let found = self.with_slot(server, |slot| {
            let not_ready = || ToolError::NotReady {
                server: server.to_owned(),
                state: describe(&slot.state),
            };
            let client = match (&slot.state, &slot.client) {
                (ServerState::Ready { .. }, Some(client)) => client.clone(),
                _ => return Err(not_ready()),
            };
            let info = slot.tools.iter().find(|t| t.name == tool);
            let info = info.ok_or_else(|| ToolError::UnknownTool {
                server: server.to_owned(),
                tool: tool.to_owned(),
            })?;
            let validator = self.inner.validators.of(server, info)?;
            let timeout = slot.config.as_ref().map(|c| c.call_timeout);
            Ok((
                client,
                validator,
                timeout.unwrap_or(crate::vocab::server::ServerSpec::CALL_TIMEOUT),
            ))
        });
        found.unwrap_or_else(|| {
            Err(ToolError::UnknownServer {
                server: server.to_owned(),
            })
        })
    }
}

/// A state in a few words.
fn describe(state: &ServerState) -> String {
    match state {
        ServerState::Starting => "starting".to_owned(),
        ServerState::Ready { .. } => "ready".to_owned(),
        ServerState::Failed { reason } => format!("failed: {reason}"),
        ServerState::Stopped => "stopped".to_owned(),
        ServerState::Restarting { attempt, .. } => format!("restarting, attempt {attempt}"),
    }
}

/// Checks `args` of tool `tool` with its schema's `validator`; returns them as an object.
fn check(
    validator: &jsonschema::Validator,
    tool: &str,
    args: Value,
) -> Result<Map<String, Value>, ToolError> {
    let mut violations: Vec<Violation> = validator
        .iter_errors(&args)
        .map(|e| Violation {
            path: pointer(e.instance_path().as_str()),
            message: e.to_string(),
        })
        .collect();
    if violations.is_empty() && !args.is_object() {
        violations.push(Violation {
            path: "/".to_owned(),
            message: "the arguments must be a JSON object".to_owned(),
        });
    }
    match args {
        Value::Object(map) if violations.is_empty() => Ok(map),
        _ => Err(ToolError::InvalidArguments {
            tool: tool.to_owned(),
            violations,
        }),
    }
}

/// A JSON pointer, `/` for the root.
fn pointer(path: &str) -> String {
    if path.is_empty() {
        "/".to_owned()
    } else {
        path.to_owned()
    }
}

/// `result` within `limits`: text beyond the budget cut with a marker, binary parts over the
/// limit replaced by a note. Structured content is kept as it is.
pub(crate) fn truncate(mut result: ToolResult, limits: &Limits) -> ToolResult {
    let mut budget = limits.max_text_chars;
    for part in &mut result.content {
        match part {
            ResultPart::Text { text } => cut_text(text, &mut budget),
            ResultPart::Resource(r) => match &mut r.body {
                ResourceBody::Text(text) => cut_text(text, &mut budget),
                ResourceBody::Blob(blob) => {
                    if decoded_len(blob) > limits.max_binary_bytes {
                        let note = binary_note("resource", r.mime.as_deref(), blob);
                        *part = ResultPart::Text { text: note };
                    }
                }
            },
            ResultPart::Image { mime, data } => {
                if decoded_len(data) > limits.max_binary_bytes {
                    let text = binary_note("image", Some(mime), data);
                    *part = ResultPart::Text { text };
                }
            }
            ResultPart::Audio { mime, data } => {
                if decoded_len(data) > limits.max_binary_bytes {
                    let text = binary_note("audio", Some(mime), data);
                    *part = ResultPart::Text { text };
                }
            }
            ResultPart::ResourceLink(_) => {}
        }
    }
    result
}

/// Keeps the first `budget` characters of `text` (spending them), marking what was cut.
fn cut_text(text: &mut String, budget: &mut usize) {
    let chars = text.chars().count();
    if chars <= *budget {
        *budget -= chars;
        return;
    }
    let keep = text
        .char_indices()
        .nth(*budget)
        .map_or(text.len(), |(i, _)| i);
    let cut = chars - *budget;
    text.truncate(keep);
    text.push_str(&format!("[… truncated {cut} characters]"));
    *budget = 0;
}

/// The decoded size of base64 `data`.
fn decoded_len(data: &str) -> usize {
    data.len() / 4 * 3
}

/// The note replacing an oversized binary part.
fn binary_note(kind: &str, mime: Option<&str>, data: &str) -> String {
    let mime = mime.unwrap_or("application/octet-stream");
    let bytes = decoded_len(data);
    format!("[{kind} {mime} of {bytes} bytes omitted: larger than the limit]")
}
