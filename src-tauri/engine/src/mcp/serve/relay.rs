//! The endpoint's side of requests an app of the stateless era answers itself: what its
//! request carries ([`relay_of`]: its input answers, the echoed `requestState`, its declared
//! capabilities), and the states handed to it ([`IssuedStates`]), so that the rounds of one
//! approved call are not asked about again — a state the server gave this app for this tool
//! after an approved round. A state it makes up is not among them and is asked about as a new
//! call.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model as rm;
use rmcp::service::{OriginatingRequestId, PeerRequestOptions, RequestContext, RoleServer};
use serde_json::Value;

use crate::mcp::client::relay::{AppAsker, Relay};
use crate::mcp::client::{ELICITATION, SAMPLING};
use crate::vocab::mcp::McpError;

/// How many handed-out states are remembered (the oldest are forgotten first).
const REMEMBERED: usize = 1024;

/// Whether the request's app speaks the stateless era (2026-07-28 or later), whose requests
/// may be answered with `input_required`.
pub(super) fn stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= rm::ProtocolVersion::V_2026_07_28.as_str())
}

/// What a stateless-era app's request carries to pass on; `None` for a handshake-era app
/// (whose server requests Switchboard answers, as it does for its own calls). An answer that
/// is not an object (every input request's result is one) is refused here, with its key.
pub(super) fn relay_of(
    context: &RequestContext<RoleServer>,
    responses: Option<rm::InputResponses>,
    state: Option<String>,
) -> Result<Option<Relay>, ErrorData> {
    if !stateless(context) {
        return Ok(None);
    }
    if let Some((key, _)) = (responses.iter().flatten()).find(|(_, answer)| !answer.is_object()) {
        return Err(ErrorData::invalid_params(
            format!("inputResponses[{key:?}] is not an object (the result of the input request)"),
            None,
        ));
    }
    let capabilities = context
        .client_capabilities()
        .and_then(|c| serde_json::to_value(c).ok());
    Ok(Some(Relay {
        responses,
        state,
        capabilities,
    }))
}

/// The `requestState`s handed to apps after approved rounds, by app, server and tool.
#[derive(Clone, Default)]
pub(super) struct IssuedStates(Arc<Mutex<Issued>>);

#[derive(Default)]
struct Issued {
    keys: HashSet<String>,
    order: VecDeque<String>,
}

fn key(client: &str, server: &str, tool: &str, state: &str) -> String {
    format!("{client}\u{0}{server}\u{0}{tool}\u{0}{state}")
}

impl IssuedStates {
    /// Remembers that `state` was handed to `client` for `tool` of `server`.
    pub(super) fn issue(&self, client: &str, server: &str, tool: &str, state: &str) {
        let key = key(client, server, tool, state);
        let mut issued = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if issued.keys.insert(key.clone()) {
            issued.order.push_back(key);
        }
        while issued.order.len() > REMEMBERED {
            if let Some(old) = issued.order.pop_front() {
                issued.keys.remove(&old);
            }
        }
    }

    /// Whether `state` was handed to `client` for `tool` of `server`.
    pub(super) fn was_issued(&self, client: &str, server: &str, tool: &str, state: &str) -> bool {
        let issued = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        issued.keys.contains(&key(client, server, tool, state))
    }
}

/// How long a server's request passed to an app waits for its answer (its user may be asked).
const ASK_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// A handshake-era app with a call under way, which a server's sampling and elicitation
/// requests are passed to, on the stream of its own request (`origin`, SEP-2260).
pub(super) struct CallingApp {
    peer: rmcp::Peer<RoleServer>,
    origin: rm::RequestId,
}

impl CallingApp {
    /// The app of `context`'s request, when it declared it answers sampling or elicitation.
    pub(super) fn of(context: &RequestContext<RoleServer>) -> Option<Self> {
        let capabilities = context.peer.peer_info()?.capabilities.clone();
        (capabilities.sampling.is_some() || capabilities.elicitation.is_some()).then(|| Self {
            peer: context.peer.clone(),
            origin: context.id.clone(),
        })
    }

    /// `method` with `params` as a request to the app, on its call's stream.
    #[allow(deprecated)] // sampling is deprecated by SEP-2577, still answered by 2025-era apps
    fn request(&self, method: &str, params: Value) -> Result<rm::ServerRequest, McpError> {
        let bad = |e: serde_json::Error| McpError::Protocol(format!("{method}: {e}"));
        let mut request = match method {
            SAMPLING => rm::ServerRequest::CreateMessageRequest(rm::CreateMessageRequest::new(
                serde_json::from_value(params).map_err(bad)?,
            )),
            ELICITATION => rm::ServerRequest::ElicitRequest(rm::ElicitRequest::new(
                serde_json::from_value(params).map_err(bad)?,
            )),
            other => return Err(McpError::Protocol(format!("{other} is not passed on"))),
        };
        let origin = OriginatingRequestId(self.origin.clone());
        rm::GetExtensions::extensions_mut(&mut request).insert(origin);
        Ok(request)
    }
}

impl AppAsker for CallingApp {
    fn answers(&self, method: &str) -> bool {
        let Some(info) = self.peer.peer_info() else {
            return false;
        };
        match method {
            SAMPLING => info.capabilities.sampling.is_some(),
            ELICITATION => info.capabilities.elicitation.is_some(),
            _ => false,
        }
    }

    fn ask(
        &self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'static, Result<Value, McpError>> {
        let request = self.request(method, params);
        let peer = self.peer.clone();
        Box::pin(async move {
            let options = PeerRequestOptions::with_timeout(ASK_WAIT);
            let handle = (peer.send_request_with_option(request?, options).await)
                .map_err(|e| McpError::Protocol(e.to_string()))?;
            match handle.await_response().await {
                Ok(rm::ClientResult::CreateMessageResult(answer)) => to_json(answer),
                Ok(rm::ClientResult::ElicitResult(answer)) => to_json(answer),
                Ok(other) => to_json(other),
                Err(rmcp::ServiceError::McpError(error)) => Err(McpError::ServerError {
                    code: error.code.0,
                    message: error.message.into_owned(),
                    data: error.data,
                }),
                Err(error) => Err(McpError::Protocol(error.to_string())),
            }
        })
    }
}

fn to_json(answer: impl serde::Serialize) -> Result<Value, McpError> {
    serde_json::to_value(answer).map_err(|e| McpError::Protocol(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_counts_only_for_the_app_server_and_tool_it_was_handed_to() {
        let issued = IssuedStates::default();
        issued.issue("app", "srv", "tool", "s1");
        assert!(issued.was_issued("app", "srv", "tool", "s1"));
        assert!(!issued.was_issued("other", "srv", "tool", "s1"));
        assert!(!issued.was_issued("app", "srv", "other", "s1"));
        assert!(!issued.was_issued("app", "srv", "tool", "s2"));
    }

    #[test]
    fn the_oldest_states_are_forgotten_past_the_bound() {
        let issued = IssuedStates::default();
        for n in 0..=REMEMBERED {
            issued.issue("app", "srv", "tool", &n.to_string());
        }
        assert!(!issued.was_issued("app", "srv", "tool", "0"));
        assert!(issued.was_issued("app", "srv", "tool", "1"));
        assert!(issued.was_issued("app", "srv", "tool", &REMEMBERED.to_string()));
    }
}
