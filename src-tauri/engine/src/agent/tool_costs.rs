//! What each running server's tools cost a conversation: how many tools it lends the model
//! and about how many prompt tokens their definitions take (tiktoken estimate), so the user
//! can see what enabling a server adds to every request.

use serde::Serialize;
use ts_rs::TS;

use super::Agent;
use super::budget;

use crate::mcp::ServerState;
use crate::mcp::ServerTools;

/// One server's offer to the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolCost {
    /// The server's name.
    pub server: String,
    /// Whether it is ready (a server that is not offers no tools now).
    pub ready: bool,
    /// How many tools it offers.
    pub tools: u32,
    /// Estimated prompt tokens of their definitions (name, description, schema).
    pub tokens: u32,
    /// Each tool with its own cost, by name, so tools can be switched off one by one.
    pub each: Vec<ToolTokens>,
}

/// One tool's offer to the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolTokens {
    /// The tool's name on its server.
    pub name: String,
    /// Its description's first line, if any.
    pub description: String,
    /// Estimated prompt tokens of its definition.
    pub tokens: u32,
    /// Whether the server says it only reads (its `readOnlyHint`).
    pub read_only: bool,
}

impl Agent {
    /// The tools and their token cost of every supervised server, by name.
    pub fn tool_costs(&self) -> Vec<ToolCost> {
        let mut out: Vec<ToolCost> = (self.mcp().servers_with_tools().into_iter())
            .map(
                |ServerTools {
                     server,
                     state,
                     tools,
                 }| {
                    // As the model is offered them: App-only tools are never sent.
                    let mut each: Vec<ToolTokens> = tools.iter().map(tool_tokens).collect();
                    each.sort_by(|a, b| a.name.cmp(&b.name));
                    ToolCost {
                        server,
                        ready: matches!(state, ServerState::Ready { .. }),
                        tools: u32::try_from(tools.len()).unwrap_or(u32::MAX),
                        tokens: each.iter().map(|t| t.tokens).sum(),
                        each,
                    }
                },
            )
            .collect();
        out.sort_by(|a, b| a.server.cmp(&b.server));
        out
    }
}

/// What one tool's definition costs.
fn tool_tokens(t: &crate::vocab::mcp::ToolInfo) -> ToolTokens {
    let schema = serde_json::Value::Object(t.input_schema.clone());
    let description = t.description.as_deref().unwrap_or("");
    ToolTokens {
        name: t.name.clone(),
        description: description.lines().next().unwrap_or("").to_owned(),
        tokens: budget::tool_tokens(&t.name, description, &schema),
        read_only: t.annotations.read_only.unwrap_or(false),
    }
}
