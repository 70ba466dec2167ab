//! Requests made for another app that speaks MCP itself (the endpoint, `mcp::serve`), passed
//! on as that app sent them rather than answered here: a stateless-era app's `tools/call`,
//! `prompts/get` and `resources/read` go upstream with its own answers, echoed `requestState`
//! and declared capabilities, and a server's `input_required` answer goes back to the app
//! untouched (its questions are for the app's user, not Switchboard's); `completion/complete`
//! is passed on whole. A handshake-era server's requests to the user, made while an app's
//! call runs, go to that app when it can answer them ([`AppAsker`]). Shapes cross this module
//! as wire JSON, so no rmcp type leaves it.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::future::BoxFuture;

use rmcp::model as rm;
use rmcp::service::PeerRequestOptions;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::progress::ProgressSink;
use super::tasks::CallOutcome;
use super::{McpClient, convert, mrtr};
use crate::vocab::mcp::{McpError, Prompt, ProtocolEra, ResourceContent};

/// What an app of the stateless era sent with its request, to be passed on.
#[derive(Clone, Debug, Default)]
pub struct Relay {
    /// `inputResponses`: its answers to the server's last input requests, by their keys.
    pub responses: Option<BTreeMap<String, Value>>,
    /// `requestState`, exactly as the server sent it.
    pub state: Option<String>,
    /// The capabilities the app declared (`_meta["io.modelcontextprotocol/clientCapabilities"]`):
    /// the server asks only for what the app can answer.
    pub capabilities: Option<Value>,
}

/// A relayed request's answer.
#[derive(Debug)]
pub enum Relayed<T> {
    /// The final result.
    Done(T),
    /// The server needs the app's input first: its `InputRequiredResult`, as sent.
    Input(Value),
}

impl<T> Relayed<T> {
    fn from_round(round: mrtr::Round<T>) -> Result<Self, McpError> {
        match round {
            mrtr::Round::Done(done) => Ok(Self::Done(done)),
            mrtr::Round::Input(asked) => serde_json::to_value(asked)
                .map(Self::Input)
                .map_err(|e| McpError::Protocol(format!("an input_required answer: {e}"))),
        }
    }
}

impl McpClient {
    /// Whether the server speaks the stateless era, whose answers may ask for input.
    fn stateless(&self) -> bool {
        self.info.era == ProtocolEra::Stateless
    }

    /// The request options that carry `relay`'s capabilities in place of ours (a stateless
    /// server only; a handshake-era server learnt ours at `initialize`).
    fn relay_meta(&self, relay: &Relay) -> Result<Option<rm::RequestMetaObject>, McpError> {
        let Some(capabilities) = relay.capabilities.clone().filter(|_| self.stateless()) else {
            return Ok(None);
        };
        let capabilities: rm::ClientCapabilities = serde_json::from_value(capabilities)
            .map_err(|e| McpError::Protocol(format!("the caller's capabilities: {e}")))?;
        let mut meta = rm::RequestMetaObject::default();
        meta.set_client_capabilities(capabilities);
        Ok(Some(meta))
    }

    /// One `tools/call` round trip for an app: its answers and state passed on, an
    /// `input_required` answer handed back instead of fulfilled (see the module's header).
    pub async fn call_tool_relayed(
        &self,
        name: &str,
        args: Map<String, Value>,
        relay: &Relay,
        timeout: Duration,
        cancel: CancellationToken,
        progress: Option<ProgressSink>,
    ) -> Result<Relayed<CallOutcome>, McpError> {
        if cancel.is_cancelled() {
            return Err(McpError::Cancelled);
        }
        let mut params = rm::CallToolRequestParams::new(name.to_owned());
        params.arguments = Some(args);
        (params.input_responses, params.request_state) =
            (relay.responses.clone(), relay.state.clone());
        let meta = self.relay_meta(relay)?;
        let round = self
            .call_round(params, meta, timeout, &cancel, progress)
            .await?;
        Relayed::from_round(round)
    }

    /// One `prompts/get` round trip for an app, as [`McpClient::call_tool_relayed`].
    pub async fn get_prompt_relayed(
        &self,
        name: &str,
        args: BTreeMap<String, String>,
        relay: &Relay,
    ) -> Result<Relayed<Prompt>, McpError> {
        let mut params = rm::GetPromptRequestParams::new(name);
        params.arguments = Some(args.into_iter().map(|(k, v)| (k, v.into())).collect());
        (params.input_responses, params.request_state) =
            (relay.responses.clone(), relay.state.clone());
        let request = rm::ClientRequest::GetPromptRequest(rm::GetPromptRequest::new(params));
        match self.send_relayed(request, relay).await? {
            rm::ServerResult::GetPromptResult(done) => Ok(Relayed::Done(convert::prompt(done))),
            rm::ServerResult::InputRequiredResult(asked) => {
                Relayed::from_round(mrtr::Round::Input(asked))
            }
            other => Err(super::unexpected("prompts/get", &other)),
        }
    }

    /// One `resources/read` round trip for an app, as [`McpClient::call_tool_relayed`].
    pub async fn read_resource_relayed(
        &self,
        uri: &str,
        relay: &Relay,
    ) -> Result<Relayed<Vec<ResourceContent>>, McpError> {
        let mut params = rm::ReadResourceRequestParams::new(uri);
        (params.input_responses, params.request_state) =
            (relay.responses.clone(), relay.state.clone());
        let request = rm::ClientRequest::ReadResourceRequest(rm::ReadResourceRequest::new(params));
        match self.send_relayed(request, relay).await? {
            rm::ServerResult::ReadResourceResult(done) => Ok(Relayed::Done(
                done.contents.into_iter().map(convert::contents).collect(),
            )),
            rm::ServerResult::InputRequiredResult(asked) => {
                Relayed::from_round(mrtr::Round::Input(asked))
            }
            other => Err(super::unexpected("resources/read", &other)),
        }
    }

    /// `completion/complete` passed on whole: `params` and the answer as wire JSON.
    pub async fn complete(&self, params: Value) -> Result<Value, McpError> {
        let params: rm::CompleteRequestParams = serde_json::from_value(params)
            .map_err(|e| McpError::Protocol(format!("a completion request: {e}")))?;
        let request = rm::ClientRequest::CompleteRequest(rm::CompleteRequest::new(params));
        match self.send_relayed(request, &Relay::default()).await? {
            rm::ServerResult::CompleteResult(done) => serde_json::to_value(done)
                .map_err(|e| McpError::Protocol(format!("a completion: {e}"))),
            other => Err(super::unexpected("completion/complete", &other)),
        }
    }

    /// Sends `request` under the request timeout, with `relay`'s capabilities.
    async fn send_relayed(
        &self,
        request: rm::ClientRequest,
        relay: &Relay,
    ) -> Result<rm::ServerResult, McpError> {
        let mut options = PeerRequestOptions::with_timeout(self.request_timeout);
        options.meta = self.relay_meta(relay)?;
        let handle = self
            .service
            .send_request_with_option(request, options)
            .await
            .map_err(convert::service_error)?;
        handle
            .await_response()
            .await
            .map_err(convert::service_error)
    }
}

/// Another app whose call is under way on a server and that answers the server's requests to
/// the user (`sampling/createMessage`, `elicitation/create`) itself: in the handshake era those
/// requests reach Switchboard's connection, and are passed to that app as wire JSON.
pub trait AppAsker: Send + Sync + 'static {
    /// Whether the app said it answers `method` (its declared capabilities).
    fn answers(&self, method: &str) -> bool;
    /// Sends the app `method` with `params`; its result, or its error
    /// ([`McpError::ServerError`] for a JSON-RPC one).
    fn ask(
        &self,
        method: &'static str,
        params: Value,
    ) -> BoxFuture<'static, Result<Value, McpError>>;
}

/// Asks `app` the server's request `method` (`params`) and reads its answer as `R`; its
/// failure is the server's JSON-RPC error.
pub(super) async fn ask_app<P: serde::Serialize, R: serde::de::DeserializeOwned>(
    app: std::sync::Arc<dyn AppAsker>,
    method: &'static str,
    params: &P,
) -> Result<R, rm::ErrorData> {
    let params = serde_json::to_value(params)
        .map_err(|e| rm::ErrorData::internal_error(e.to_string(), None))?;
    tracing::info!(
        method,
        "a server's request passed to the app whose call it serves"
    );
    match app.ask(method, params).await {
        Ok(answer) => serde_json::from_value(answer).map_err(|e| {
            rm::ErrorData::internal_error(format!("the app's answer to {method}: {e}"), None)
        }),
        Err(McpError::ServerError {
            code,
            message,
            data,
        }) => Err(rm::ErrorData::new(rm::ErrorCode(code), message, data)),
        Err(error) => Err(rm::ErrorData::internal_error(
            format!("the app did not answer {method}: {error}"),
            None,
        )),
    }
}

impl McpClient {
    /// `resources/subscribe` to `uri` (handshake era): the server sends
    /// `notifications/resources/updated` when it changes.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), McpError> {
        let params = rm::SubscribeRequestParams::new(uri);
        #[allow(deprecated)] // legacy-only, which is the era it is sent in
        let subscribing = self.service.subscribe(params);
        self.bounded(subscribing).await
    }

    /// `resources/unsubscribe` from `uri`.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), McpError> {
        let params = rm::UnsubscribeRequestParams::new(uri);
        #[allow(deprecated)] // legacy-only, which is the era it is sent in
        let unsubscribing = self.service.unsubscribe(params);
        self.bounded(unsubscribing).await
    }
}
