//! Multi round-trip requests (SEP-2322, protocol 2026-07-28): a stateless server answers
//! `tools/call`, `prompts/get` or `resources/read` with an `input_required` result naming what
//! it needs (elicitation, sampling, roots) and an opaque `requestState`; we fulfil each request
//! through the same [`HostHandler`] that answers the handshake era's server-initiated requests
//! (the interaction broker: the user's form, the user's approved model, the configured
//! folders) and send the request again with the answers and the state echoed verbatim.
//!
//! We drive the rounds ourselves (rmcp's `*_once` calls) rather than rmcp's auto-fulfilling
//! helpers so that (1) the request timeout applies to each server round trip only, never to
//! the time the user takes to answer, (2) the rounds are bounded by [`MAX_ROUNDS`] with a
//! clear error, and (3) each round is written to the server's log. `prompts/get` and
//! `resources/read` are driven here; `tools/call` in the client (its progress and cancellation).

#![allow(deprecated)] // sampling and roots are deprecated by SEP-2577, still valid MRTR input requests

use std::future::Future;
use std::time::Duration;

use rmcp::model as rm;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{HostHandler, requests};
use crate::mcp::client::interact_types::{ElicitationReply, SamplingRefused};
use crate::vocab::mcp::{LogLevel, McpError, ServerNotification};
use std::collections::BTreeMap;

use super::{McpClient, convert};
use crate::vocab::mcp::{Prompt, ResourceContent};

/// The most `input_required` answers one request may get before we give up (rmcp's own
/// default, and the other tier-1 SDKs').
pub const MAX_ROUNDS: usize = 10;
/// The logger name of the rounds' lines in the server log.
pub(crate) const LOGGER: &str = "switchboard/mrtr";
/// The pause before retrying a round that asked for nothing but carried a `requestState`
/// (the server is working; it is polled), growing by this much each time, capped at 1 s.
const STATE_ONLY_PAUSE: Duration = Duration::from_millis(50);

/// One server round trip's outcome.
pub(super) enum Round<T> {
    /// The final result.
    Done(T),
    /// The server needs input first.
    Input(rm::InputRequiredResult),
}

/// What a retry carries: the answers (by the server's keys) and the echoed state.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Retry {
    /// `inputResponses`, absent when the round asked for nothing.
    pub responses: Option<rm::InputResponses>,
    /// `requestState`, exactly as the server sent it.
    pub state: Option<String>,
}

/// The request being driven, for the log and for cancellation.
pub(super) struct Rounds<'a> {
    /// Who answers the input requests.
    pub host: &'a dyn HostHandler,
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: &'static str,
    /// The tool or prompt name, or the resource URI.
    pub target: &'a str,
    /// Stops the rounds (and any question waiting for the user).
    pub cancel: CancellationToken,
}

/// Sends the request through `send` (one server round trip, under its own timeout) until it
/// completes, answering each `input_required` result in between.
pub(super) async fn drive<T, F, Fut>(rounds: &Rounds<'_>, mut send: F) -> Result<T, McpError>
where
    F: FnMut(Retry) -> Fut,
    Fut: Future<Output = Result<Round<T>, McpError>>,
{
    let mut retry = Retry::default();
    let mut state_only = 0u32;
    for round in 1..=MAX_ROUNDS {
        let asked = match send(retry).await? {
            Round::Done(done) => {
                if round > 1 {
                    rounds.log(format!("completed after {round} rounds"));
                }
                return Ok(done);
            }
            Round::Input(asked) => asked,
        };
        rounds.log(describe(round, &asked));
        let requests = asked.input_requests.unwrap_or_default();
        if requests.is_empty() {
            let pause = STATE_ONLY_PAUSE * (state_only + 1);
            tokio::time::sleep(pause.min(Duration::from_secs(1))).await;
            state_only += 1;
        } else {
            state_only = 0;
        }
        let responses = tokio::select! {
            answered = fulfil(rounds.host, requests) => answered?,
            () = rounds.cancel.cancelled() => return Err(McpError::Cancelled),
        };
        retry = Retry {
            responses: (!responses.is_empty()).then_some(responses),
            state: asked.request_state,
        };
    }
    rounds.log(format!("gave up after {MAX_ROUNDS} rounds"));
    Err(McpError::TooManyRounds {
        method: rounds.method.to_owned(),
        rounds: MAX_ROUNDS,
    })
}

impl Rounds<'_> {
    /// Writes one line to the server's log.
    pub(super) fn log(&self, line: String) {
        let text = format!("{} {}: {line}", self.method, self.target);
        tracing::info!(target: "switchboard::mcp::mrtr", "{text}");
        self.host.notify(ServerNotification::Log {
            level: LogLevel::Info,
            logger: Some(LOGGER.to_owned()),
            data: Value::String(text),
        });
    }
}

/// The log line of one `input_required` answer: what it asks for, by key.
fn describe(round: usize, asked: &rm::InputRequiredResult) -> String {
    let requests = asked.input_requests.as_ref();
    let wants: Vec<String> = requests
        .into_iter()
        .flatten()
        .map(|(key, request)| format!("{} ({key})", kind(request)))
        .collect();
    let wants = if wants.is_empty() {
        "nothing".to_owned()
    } else {
        wants.join(", ")
    };
    let state = match &asked.request_state {
        Some(state) => format!("requestState of {} bytes echoed", state.len()),
        None => "no requestState".to_owned(),
    };
    format!("round {round} needs input: {wants}; {state}")
}

/// The kind of one input request, as the log names it.
fn kind(request: &rm::InputRequest) -> &'static str {
    match request {
        rm::InputRequest::CreateMessage(_) => "sampling",
        rm::InputRequest::Elicitation(_) => "elicitation",
        rm::InputRequest::ListRoots(_) => "roots",
        _ => "unknown",
    }
}

/// Answers every input request of one round, concurrently (a form and a sampling approval can
/// be on screen together). The first failure fails the round.
pub(super) async fn fulfil(
    host: &dyn HostHandler,
    requests: rm::InputRequests,
) -> Result<rm::InputResponses, McpError> {
    let answers = requests.into_iter().map(|(key, request)| async move {
        let value = answer(host, request).await?;
        Ok::<_, McpError>((key, value))
    });
    let answers = futures::future::try_join_all(answers).await?;
    Ok(answers.into_iter().collect())
}

/// Answers one input request as the result object the server expects under its key: the
/// app whose call it serves answers it when it can (`HostHandler::calling_app`), else we do.
async fn answer(host: &dyn HostHandler, request: rm::InputRequest) -> Result<Value, McpError> {
    let question = match &request {
        rm::InputRequest::Elicitation(asked) => Some((super::ELICITATION, to_value(&asked.params))),
        rm::InputRequest::CreateMessage(asked) => Some((super::SAMPLING, to_value(&asked.params))),
        _ => None,
    };
    if let Some((method, params)) = question
        && let Some(app) = host.calling_app(method)
    {
        return app.ask(method, params?).await;
    }
    match request {
        rm::InputRequest::Elicitation(request) => {
            let reply = match requests::elicitation_request(request.params) {
                Some(request) => host.elicit(request).await,
                None => ElicitationReply::Decline,
            };
            to_value(requests::elicit_result(reply))
        }
        rm::InputRequest::CreateMessage(request) => {
            let result = match requests::sampling_request(request.params) {
                Ok(request) => host.sample(request).await,
                Err(refused) => return Err(refused_sampling(&refused.message)),
            };
            match result {
                Ok(sampled) => to_value(requests::sampling_result(Ok(sampled)).map_err(|e| {
                    McpError::Protocol(format!("cannot encode a sampling result: {e:?}"))
                })?),
                Err(refused) => Err(sampling_error(refused)),
            }
        }
        rm::InputRequest::ListRoots(_) => to_value(requests::roots(host.roots())),
        _ => Err(McpError::Protocol(
            "the server asked for an input of an unknown kind".to_owned(),
        )),
    }
}

/// A sampling request we did not run: the whole request fails with the reason (an
/// `inputResponses` value must be a result, there is no way to send the server an error).
fn sampling_error(refused: SamplingRefused) -> McpError {
    match refused {
        SamplingRefused::Cancelled => McpError::Cancelled,
        other => refused_sampling(&other.to_string()),
    }
}

fn refused_sampling(reason: &str) -> McpError {
    McpError::InputRefused(format!(
        "the server's sampling request was not run: {reason}"
    ))
}

/// One result object as JSON.
fn to_value(result: impl serde::Serialize) -> Result<Value, McpError> {
    serde_json::to_value(result)
        .map_err(|e| McpError::Protocol(format!("cannot encode an input response: {e}")))
}

impl McpClient {
    /// The context of a multi round-trip request.
    pub(super) fn rounds<'a>(
        &'a self,
        method: &'static str,
        target: &'a str,
        cancel: &CancellationToken,
    ) -> Rounds<'a> {
        Rounds {
            host: self.service.service().host.as_ref(),
            method,
            target,
            cancel: cancel.clone(),
        }
    }

    /// Reads resource `uri`; `input_required` answers are fulfilled as for tool calls, the
    /// request timeout applying to each round trip.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContent>, McpError> {
        let cancel = CancellationToken::new();
        let rounds = self.rounds("resources/read", uri, &cancel);
        let result = drive(&rounds, |retry| {
            let mut params = rm::ReadResourceRequestParams::new(uri);
            (params.input_responses, params.request_state) = (retry.responses, retry.state);
            async move {
                match self
                    .bounded(self.service.read_resource_once(params))
                    .await?
                {
                    rm::ReadResourceResponse::Complete(done) => Ok(Round::Done(done)),
                    rm::ReadResourceResponse::InputRequired(asked) => Ok(Round::Input(asked)),
                    _ => Err(McpError::Protocol(
                        "unexpected answer to resources/read".into(),
                    )),
                }
            }
        })
        .await?;
        Ok(result.contents.into_iter().map(convert::contents).collect())
    }

    /// Expands prompt `name` with `args`; `input_required` answers are fulfilled as for tool
    /// calls, the request timeout applying to each round trip.
    pub async fn get_prompt(
        &self,
        name: &str,
        args: BTreeMap<String, String>,
    ) -> Result<Prompt, McpError> {
        let mut params = rm::GetPromptRequestParams::new(name);
        params.arguments = Some(args.into_iter().map(|(k, v)| (k, v.into())).collect());
        let cancel = CancellationToken::new();
        let rounds = self.rounds("prompts/get", name, &cancel);
        let result = drive(&rounds, |retry| {
            let mut params = params.clone();
            (params.input_responses, params.request_state) = (retry.responses, retry.state);
            async move {
                match self.bounded(self.service.get_prompt_once(params)).await? {
                    rm::GetPromptResponse::Complete(done) => Ok(Round::Done(done)),
                    rm::GetPromptResponse::InputRequired(asked) => Ok(Round::Input(asked)),
                    _ => Err(McpError::Protocol(
                        "unexpected answer to prompts/get".into(),
                    )),
                }
            }
        })
        .await?;
        Ok(convert::prompt(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::client::IgnoreNotifications;
    use std::sync::Mutex;

    fn asked(state: &str) -> rm::InputRequiredResult {
        let mut requests = rm::InputRequests::new();
        let roots = rm::ListRootsRequest::default();
        requests.insert("r".to_owned(), rm::InputRequest::ListRoots(roots));
        rm::InputRequiredResult::new(Some(requests), Some(state.to_owned()))
    }

    fn rounds(host: &dyn HostHandler) -> Rounds<'_> {
        Rounds {
            host,
            method: "tools/call",
            target: "t",
            cancel: CancellationToken::new(),
        }
    }

    #[tokio::test]
    async fn a_retry_echoes_the_state_verbatim_with_the_answers_by_key() {
        let seen = Mutex::new(Vec::new());
        let host = IgnoreNotifications;
        let result = drive(&rounds(&host), |retry| {
            let first = seen.lock().map(|s| s.is_empty()).unwrap_or(false);
            if let Ok(mut s) = seen.lock() {
                s.push(retry);
            }
            async move {
                Ok(if first {
                    Round::Input(asked(" opaque\u{e9}=="))
                } else {
                    Round::Done(7)
                })
            }
        })
        .await;
        assert_eq!(result.ok(), Some(7));
        let seen = seen.into_inner().unwrap_or_default();
        let mut responses = rm::InputResponses::new();
        responses.insert("r".to_owned(), serde_json::json!({"roots": []}));
        let second = Retry {
            responses: Some(responses),
            state: Some(" opaque\u{e9}==".to_owned()),
        };
        assert_eq!(seen, vec![Retry::default(), second]);
    }

    #[tokio::test]
    async fn a_server_that_keeps_asking_fails_after_the_bound() {
        let host = IgnoreNotifications;
        let mut sent = 0;
        let result: Result<(), McpError> = drive(&rounds(&host), |_| {
            sent += 1;
            async { Ok(Round::Input(asked("again"))) }
        })
        .await;
        assert_eq!(sent, MAX_ROUNDS);
        let expected = McpError::TooManyRounds {
            method: "tools/call".to_owned(),
            rounds: MAX_ROUNDS,
        };
        assert_eq!(
            result.err().map(|e| e.to_string()),
            Some(expected.to_string())
        );
    }
}
