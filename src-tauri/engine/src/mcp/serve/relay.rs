//! The endpoint's side of requests an app of the stateless era answers itself: what its
//! request carries ([`relay_of`]: its input answers, the echoed `requestState`, its declared
//! capabilities), and the states handed to it ([`IssuedStates`]), so that the rounds of one
//! approved call are not asked about again — a state the server gave this app for this tool
//! after an approved round. A state it makes up is not among them and is asked about as a new
//! call.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use rmcp::ErrorData;
use rmcp::model as rm;
use rmcp::service::{RequestContext, RoleServer};

use crate::mcp::client::relay::Relay;

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
