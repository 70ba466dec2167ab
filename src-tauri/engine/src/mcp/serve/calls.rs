//! A tool call an app makes through the endpoint ([`Gateway::call`]): the served name
//! resolved, the call run through the host's one pipeline as [`Caller::Client`] (the policy,
//! then asking the app's user or the window), the upstream call's progress and log messages
//! passed on before its result, and the call kept in the client's log. A stateless-era app's
//! call is relayed (`relay`): the server's questions go back to the app as `input_required`,
//! and the rounds that answer them are not asked about again.

use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use rmcp::ErrorData;
use rmcp::model as rm;
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{Gateway, convert, logs, refused, refused_text, relay, unanswered_text};
use crate::mcp::client::relay::Relayed;
use crate::mcp::host::{CallFailed, CallRequest, Called, Caller};
use crate::mcp::supervisor::interact::ClientCall;

impl Gateway {
    /// Runs one `tools/call` of the requesting app (see the module's header). The app leaving
    /// (its HTTP response gone) or rmcp cancelling the request cancels the call: its question,
    /// else the upstream call.
    pub(super) async fn call(
        &self,
        request: rm::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rm::CallToolResponse, ErrorData> {
        let gone = context.ct.child_token();
        let hangup = Self::hangup(&context);
        let call = self.call_until(request, context, gone.clone());
        cancel_on(hangup, &gone, call).await
    }

    /// [`Gateway::call`]'s work, ended early once `gone` is cancelled.
    async fn call_until(
        &self,
        request: rm::CallToolRequestParams,
        context: RequestContext<RoleServer>,
        gone: CancellationToken,
    ) -> Result<rm::CallToolResponse, ErrorData> {
        let names = self.names(&context);
        let Some((server, tool)) = names.resolve(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "no running server offers this client a tool named {:?}",
                    request.name
                ),
                None,
            ));
        };
        let (server, tool) = (server.to_owned(), tool.to_owned());
        let client = Self::client_name(&context);
        let started = std::time::Instant::now();
        let arguments = request
            .arguments
            .map_or_else(|| json!({}), serde_json::Value::Object);
        let id = Self::authorized(&context).map(|c| c.id.clone());
        let relay = relay::relay_of(&context, request.input_responses, request.request_state)?;
        let asker = Self::asker(&context);
        // A round answering what an approved round asked: approved with it.
        let answers_approved = (relay.as_ref().and_then(|r| r.state.as_deref()))
            .is_some_and(|state| self.issued.was_issued(&asker, &server, &tool, state));
        let caller = if answers_approved {
            Caller::User
        } else {
            let call = ClientCall {
                client: client.clone(),
                can_always: id.is_some(),
                server: server.clone(),
                tool: tool.clone(),
                arguments: arguments.clone(),
            };
            let ask = Self::ask(context.peer.clone(), self.host.interactions().clone(), call);
            // An app that leaves while it is asked about takes its question with it.
            let gone = gone.clone();
            let ask = async move {
                tokio::select! {
                    answer = ask => answer,
                    () = gone.cancelled() => None,
                }
            };
            Caller::Client {
                client: &client,
                id: id.as_deref(),
                ask: ask.boxed(),
            }
        };
        tracing::debug!(%client, %server, %tool, "a client calls a tool");
        let (progress, forwarding) = Self::forward_progress(&context).unzip();
        let logs = (self.host.supervisor().subscribe_logs(&server))
            .map(|rx| logs::Forwarding::start(rx, context.peer.clone(), self.log_level.clone()));
        // A handshake-era app answers the server's questions during its call itself.
        let calling = (relay.is_none())
            .then(|| relay::CallingApp::of(&context))
            .flatten()
            .map(|app| (self.host.supervisor().calling_apps()).enter(&server, Arc::new(app)));
        let request = CallRequest {
            server: &server,
            tool: &tool,
            arguments,
            cancel: gone.clone(),
            progress,
            follows_tasks: Self::follows_tasks(&context),
            on_start: None,
        };
        let called = match &relay {
            Some(relay) => self.host.run_relayed(request, relay, caller).await,
            None => self.host.run_call(request, caller).await.map(Relayed::Done),
        };
        drop(calling);
        if let Some(forwarding) = forwarding {
            let _ = tokio::time::timeout(Duration::from_secs(1), forwarding).await;
        }
        if let Some(logs) = logs {
            logs.finish().await;
        }
        let called = match called {
            Ok(Relayed::Input(asked)) => return self.ask_back(asked, &asker, &server, &tool),
            Ok(Relayed::Done(Called::Task(state))) if Self::follows_tasks(&context) => {
                if let Some(authorized) = Self::authorized(&context) {
                    self.log(
                        authorized,
                        &server,
                        &tool,
                        &Ok::<_, ()>(Called::Task(state.clone())),
                        started,
                    );
                }
                return self.task_created(&asker, &server, state).await;
            }
            Ok(Relayed::Done(called)) => Ok(called),
            Err(error) => Err(error),
        };
        if let Err(error) = &called
            && let Some(error) = protocol_error(error)
        {
            return Err(error);
        }
        if let Some(authorized) = Self::authorized(&context) {
            self.log(authorized, &server, &tool, &called, started);
        }
        let result = match called {
            Ok(Called::Done(result)) => convert::result(&result),
            Ok(Called::Refused) => refused(&refused_text(&server, &tool)),
            Ok(Called::Unanswered) => refused(&format!(
                "{} Or use a client that supports elicitation.",
                unanswered_text(&client, &server, &tool)
            )),
            // A task goes only to an app that declared the extension (above), and a server
            // makes one only for a client that did.
            Ok(Called::Task(_)) => {
                refused("The server answered with a task this app cannot follow.")
            }
            Err(error) => refused(&error.to_string()),
        };
        Ok(result.into())
    }

    /// Cancelled when the app that made this request over HTTP leaves (its response is gone);
    /// none for stdio, whose app leaving ends the session.
    fn hangup(context: &RequestContext<RoleServer>) -> Option<CancellationToken> {
        (context.extensions.get::<axum::http::request::Parts>())
            .and_then(|parts| parts.extensions.get::<super::http::Hangup>())
            .map(|h| h.0.clone())
    }

    /// The server's `input_required` answer (`asked`) handed back to the app, its state
    /// remembered as one of an approved call.
    fn ask_back(
        &self,
        asked: serde_json::Value,
        asker: &str,
        server: &str,
        tool: &str,
    ) -> Result<rm::CallToolResponse, ErrorData> {
        let asked: rm::InputRequiredResult = serde_json::from_value(asked)
            .map_err(|e| ErrorData::internal_error(format!("an input request: {e}"), None))?;
        if let Some(state) = &asked.request_state {
            self.issued.issue(asker, server, tool, state);
        }
        Ok(rm::CallToolResponse::InputRequired(asked))
    }
}

/// Runs `work` to its end, cancelling `gone` if `hangup` fires first: the work then ends early
/// by itself (its question withdrawn, its upstream call cancelled). No task of its own.
async fn cancel_on<T>(
    hangup: Option<CancellationToken>,
    gone: &CancellationToken,
    work: impl Future<Output = T>,
) -> T {
    let Some(hangup) = hangup else {
        return work.await;
    };
    let mut work = std::pin::pin!(work);
    tokio::select! {
        out = &mut work => return out,
        () = hangup.cancelled() => gone.cancel(),
    }
    work.await
}

/// The server's own JSON-RPC error for the call (e.g. its arguments or `requestState` refused).
fn protocol_error(error: &CallFailed) -> Option<ErrorData> {
    match error {
        CallFailed::Run(error) => convert::server_error(error),
        CallFailed::Approval(_) => None,
    }
}
