//! What the gateway serves besides tools: the ready servers' resources (listed under their own
//! URIs, a read routed to the server that lists the URI, else tried on each ready server),
//! resource templates, and prompts (named `server__prompt` like tools). A server that fails
//! to list is left out with a log line, so one broken server hides nothing of the others.

use std::collections::BTreeMap;

use rmcp::ErrorData;
use rmcp::model as rm;

use super::convert;
use crate::mcp::host::McpHost;
use crate::mcp::supervisor::ServerState;
use crate::provider::names::ToolNames;
use crate::vocab::mcp::PromptInfo;

/// The servers a client may reach by name; `None`: all of them.
pub(super) type Reach<'a> = Option<&'a [String]>;

/// The servers that are ready now and within `reach`, in order.
fn ready(host: &McpHost, reach: Reach<'_>) -> Vec<String> {
    (host.server_states().into_iter())
        .filter(|s| matches!(s.state, ServerState::Ready { .. }))
        .filter(|s| reach.is_none_or(|r| r.contains(&s.name)))
        .map(|s| s.name)
        .collect()
}

/// Every ready server's resources.
pub(super) async fn resources(host: &McpHost, reach: Reach<'_>) -> Vec<rm::Resource> {
    let mut out = Vec::new();
    for server in ready(host, reach) {
        match host.server(&server).resources().await {
            Ok(listed) => out.extend(listed.iter().filter_map(|r| convert::resource(&server, r))),
            Err(error) => tracing::warn!(%server, %error, "its resources are not served"),
        }
    }
    out
}

/// Every ready server's resource templates.
pub(super) async fn templates(host: &McpHost, reach: Reach<'_>) -> Vec<rm::ResourceTemplate> {
    let mut out = Vec::new();
    for server in ready(host, reach) {
        match host.server(&server).resource_templates().await {
            Ok(listed) => out.extend(listed.iter().filter_map(|t| convert::template(&server, t))),
            Err(error) => tracing::warn!(%server, %error, "its resource templates are not served"),
        }
    }
    out
}

/// Reads `uri` from the server that lists it, else from the first ready server that can.
pub(super) async fn read(
    host: &McpHost,
    uri: &str,
    reach: Reach<'_>,
) -> Result<rm::ReadResourceResult, ErrorData> {
    let servers = ready(host, reach);
    let mut listing = Vec::new();
    for server in &servers {
        let lists = (host.server(server).resources().await)
            .is_ok_and(|listed| listed.iter().any(|r| r.uri == uri));
        if lists {
            listing.insert(0, server.clone());
        } else {
            listing.push(server.clone());
        }
    }
    let mut why = String::from("no server is ready");
    for server in listing {
        match host.server(&server).read_resource(uri).await {
            Ok(contents) => {
                return convert::read(&contents).ok_or_else(|| {
                    ErrorData::internal_error("the resource cannot be passed on", None)
                });
            }
            Err(error) => why = error.to_string(),
        }
    }
    Err(ErrorData::resource_not_found(
        format!("no server could read {uri}: {why}"),
        Some(serde_json::json!({ "uri": uri })),
    ))
}

/// The served names of (server, tool or prompt) `pairs`: their `own` names (one server
/// passed through as it is), else `server__name` made unique.
pub(super) fn served_names<'a>(
    own: bool,
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> ToolNames {
    if own {
        ToolNames::own(pairs)
    } else {
        ToolNames::build(pairs)
    }
}

/// Every ready server's prompts, each with its server, and their served names.
async fn prompt_list(
    host: &McpHost,
    reach: Reach<'_>,
    own: bool,
) -> (Vec<(String, PromptInfo)>, ToolNames) {
    let mut prompts = Vec::new();
    for server in ready(host, reach) {
        match host.server(&server).prompts().await {
            Ok(listed) => prompts.extend(listed.into_iter().map(|p| (server.clone(), p))),
            Err(error) => tracing::warn!(%server, %error, "its prompts are not served"),
        }
    }
    let names = served_names(
        own,
        prompts.iter().map(|(s, p)| (s.as_str(), p.name.as_str())),
    );
    (prompts, names)
}

/// Every ready server's prompts, named `server__prompt` (or their `own` names).
pub(super) async fn prompts(host: &McpHost, reach: Reach<'_>, own: bool) -> Vec<rm::Prompt> {
    let (prompts, names) = prompt_list(host, reach, own).await;
    (prompts.iter())
        .filter_map(|(server, p)| {
            let name = names.safe_name(server, &p.name)?;
            convert::prompt_info(name, server, p)
        })
        .collect()
}

/// Prompt `name` (as served) expanded with `arguments`.
pub(super) async fn prompt(
    host: &McpHost,
    name: &str,
    arguments: BTreeMap<String, String>,
    reach: Reach<'_>,
    own: bool,
) -> Result<rm::GetPromptResult, ErrorData> {
    let (_, names) = prompt_list(host, reach, own).await;
    let Some((server, prompt)) = names.resolve(name) else {
        return Err(ErrorData::invalid_params(
            format!("no running server offers a prompt named {name:?}"),
            None,
        ));
    };
    let expanded = host
        .server(server)
        .get_prompt(prompt, arguments)
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    convert::prompt(&expanded)
        .ok_or_else(|| ErrorData::internal_error("the prompt cannot be passed on", None))
}
