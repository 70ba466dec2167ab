//! What the gateway serves besides tools: the ready servers' resources (listed under their own
//! URIs, a read routed to the server that lists the URI, else tried on each ready server),
//! resource templates, and prompts (named `server__prompt` like tools). A server that fails
//! to list is left out with a log line, so one broken server hides nothing of the others.

use std::collections::BTreeMap;

use rmcp::ErrorData;
use rmcp::model as rm;

use super::convert;
use crate::EngineError;
use crate::mcp::client::relay::{Relay, Relayed};
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

/// Reads `uri` from the server that lists it, else from the first ready server that can; for
/// a stateless-era app (`relay`), one round trip whose `input_required` answer goes back to it.
pub(super) async fn read(
    host: &McpHost,
    uri: &str,
    reach: Reach<'_>,
    relay: Option<&Relay>,
) -> Result<rm::ReadResourceResponse, ErrorData> {
    let listing = servers_for(host, uri, reach).await;
    let mut why = String::from("no server is ready");
    for server in listing {
        let read = match relay {
            Some(relay) => (host.supervisor().read_relayed(&server, uri, relay).await)
                .map_err(|e| e.to_string()),
            None => (host.server(&server).read_resource(uri).await)
                .map(Relayed::Done)
                .map_err(|e| e.to_string()),
        };
        match read {
            Ok(Relayed::Done(contents)) => {
                return convert::read(&contents).map(Into::into).ok_or_else(|| {
                    ErrorData::internal_error("the resource cannot be passed on", None)
                });
            }
            Ok(Relayed::Input(asked)) => return asked_back(asked).map(Into::into),
            Err(error) => why = error,
        }
    }
    Err(ErrorData::resource_not_found(
        format!("no server could read {uri}: {why}"),
        Some(serde_json::json!({ "uri": uri })),
    ))
}

/// The ready servers within `reach` to try for `uri`: those that list it first.
pub(super) async fn servers_for(host: &McpHost, uri: &str, reach: Reach<'_>) -> Vec<String> {
    listing_first(host, reach, |server| async move {
        (host.server(&server).resources().await).is_ok_and(|l| l.iter().any(|r| r.uri == uri))
    })
    .await
}

/// The ready servers within `reach`, those for which `lists` holds first (a request about
/// something a server lists goes to it; the others are tried after, in order).
async fn listing_first<F, Fut>(host: &McpHost, reach: Reach<'_>, lists: F) -> Vec<String>
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let (mut first, mut rest) = (Vec::new(), Vec::new());
    for server in ready(host, reach) {
        if lists(server.clone()).await {
            first.push(server);
        } else {
            rest.push(server);
        }
    }
    first.extend(rest);
    first
}

/// A server's `input_required` answer, as the app is sent it.
fn asked_back(asked: serde_json::Value) -> Result<rm::InputRequiredResult, ErrorData> {
    serde_json::from_value(asked)
        .map_err(|e| ErrorData::internal_error(format!("an input request: {e}"), None))
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

/// Prompt `name` (as served) expanded with `arguments`; for a stateless-era app (`relay`),
/// one round trip whose `input_required` answer goes back to it.
pub(super) async fn prompt(
    host: &McpHost,
    name: &str,
    arguments: BTreeMap<String, String>,
    (reach, own): (Reach<'_>, bool),
    relay: Option<&Relay>,
) -> Result<rm::GetPromptResponse, ErrorData> {
    let (_, names) = prompt_list(host, reach, own).await;
    let Some((server, prompt)) = names.resolve(name) else {
        return Err(ErrorData::invalid_params(
            format!("no running server offers a prompt named {name:?}"),
            None,
        ));
    };
    let expanded = match relay {
        Some(relay) => (host.supervisor())
            .prompt_relayed(server, prompt, arguments, relay)
            .await
            .map_err(EngineError::from),
        None => (host.server(server).get_prompt(prompt, arguments).await).map(Relayed::Done),
    };
    match expanded.map_err(|e| convert::failure(&e))? {
        Relayed::Done(expanded) => convert::prompt(&expanded)
            .map(Into::into)
            .ok_or_else(|| ErrorData::internal_error("the prompt cannot be passed on", None)),
        Relayed::Input(asked) => asked_back(asked).map(Into::into),
    }
}

/// `completion/complete` passed on to the server whose prompt or resource template `request`
/// refers to (a prompt by its served name; a template by its URI, else the first ready server
/// that answers).
pub(super) async fn complete(
    host: &McpHost,
    mut request: rm::CompleteRequestParams,
    (reach, own): (Reach<'_>, bool),
) -> Result<rm::CompleteResult, ErrorData> {
    let servers = match &mut request.r#ref {
        rm::Reference::Prompt(prompt) => {
            let (_, names) = prompt_list(host, reach, own).await;
            let Some((server, own_name)) = names.resolve(&prompt.name) else {
                return Err(ErrorData::invalid_params(
                    format!("no running server offers a prompt named {:?}", prompt.name),
                    None,
                ));
            };
            let server = server.to_owned();
            prompt.name = own_name.to_owned();
            vec![server]
        }
        rm::Reference::Resource(resource) => {
            let template = resource.uri.as_str();
            listing_first(host, reach, |server| async move {
                (host.server(&server).resource_templates().await)
                    .is_ok_and(|t| t.iter().any(|t| t.uri_template == template))
            })
            .await
        }
        _ => {
            return Err(ErrorData::invalid_params(
                "an unknown kind of reference",
                None,
            ));
        }
    };
    request.meta = None;
    let params = serde_json::to_value(&request)
        .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
    let mut why = String::from("no server is ready");
    for server in servers {
        match host.supervisor().complete(&server, params.clone()).await {
            Ok(done) => {
                return serde_json::from_value(done)
                    .map_err(|e| ErrorData::internal_error(format!("a completion: {e}"), None));
            }
            Err(error) => why = error.to_string(),
        }
    }
    Err(ErrorData::invalid_params(
        format!("no server could complete the argument: {why}"),
        None,
    ))
}
