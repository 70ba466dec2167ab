//! [`Interactions`]: the broker of requests that need the user — a server's sampling
//! (`sampling/createMessage`, run only after approval) and elicitation (form and URL mode), and
//! another app's tool call through the local endpoint that the policy asks about. Each request gets an id, is published as an [`InteractionEvent`] for the UI, and waits
//! for [`Interactions::answer`]; unanswered ones time out, and a server that stops cancels its
//! own. The types here are ours: the client converts rmcp's wire types to and from them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{broadcast, oneshot};
use ts_rs::TS;

use crate::mcp::client::interact_types::{
    ElicitationReply, ElicitationRequest, SamplingRefused, SamplingRequest, SamplingResult,
};
use crate::vocab::ApprovalAnswer;
use crate::vocab::error::InteractionError;

/// How long a request waits for the user by default (server-everything itself waits 10 min
/// for an elicitation).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// How many events the broadcast channel buffers for a slow subscriber.
const EVENT_CAPACITY: usize = 64;

/// Runs an approved sampling request on the user's chosen model.
pub trait Sampler: Send + Sync {
    /// Completes `request`; the future owns what it needs.
    fn sample(
        &self,
        request: SamplingRequest,
    ) -> BoxFuture<'static, Result<SamplingResult, String>>;
}

/// Why a request closed without waiting any longer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CloseReason {
    /// The user answered.
    Answered,
    /// Nobody answered in time.
    TimedOut,
    /// The server stopped or hung up.
    ServerStopped,
    /// The one waiting for the answer went away (an app left while its call was asked about).
    Withdrawn,
}

/// A request that needs the user, or the end of one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InteractionEvent {
    /// A server wants a model's answer: approve or deny.
    SamplingRequested {
        /// The interaction id to answer.
        id: String,
        /// The asking server.
        server: String,
        /// What it asks.
        request: SamplingRequest,
    },
    /// A server asks the user to fill in a form: accept (with content), decline or cancel.
    ElicitationRequested {
        /// The interaction id to answer.
        id: String,
        /// The asking server.
        server: String,
        /// What it wants and why.
        message: String,
        /// The JSON Schema of the answer.
        #[serde(rename = "requestedSchema")]
        requested_schema: Value,
    },
    /// A server asks the user to open a URL: confirm (accept, then open it in the system
    /// browser), decline or cancel.
    ElicitationUrl {
        /// The interaction id to answer.
        id: String,
        /// The asking server.
        server: String,
        /// The page to open.
        url: String,
        /// What it wants and why.
        message: String,
    },
    /// Another app, through the local endpoint, calls a tool the policy asks about: approve
    /// (once, or always for that app) or deny.
    ClientCallRequested {
        /// The interaction id to answer.
        id: String,
        /// The server whose tool it is.
        server: String,
        /// The calling app, as the user named it (or as its handshake did).
        client: String,
        /// The tool.
        tool: String,
        /// The call's arguments.
        arguments: Value,
        /// Whether "always" can be kept for this app (it is one the user registered).
        #[serde(rename = "canAlways")]
        can_always: bool,
    },
    /// The interaction is over (the UI closes its dialog).
    Closed {
        /// The interaction id.
        id: String,
        /// The server that asked.
        server: String,
        /// Why it closed.
        reason: CloseReason,
    },
}

/// The user's answer to an interaction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InteractionAnswer {
    /// Sampling: run it on the chosen model. A client's call: run it once.
    Approve,
    /// Sampling or a client's call: refuse it.
    Deny,
    /// A client's call: run it, and this app's later calls of the tool without asking.
    ApproveAlways,
    /// Elicitation: accept, with the form's content (form mode) or none (URL mode).
    Accept {
        /// The form's values, checked against the requested schema.
        #[serde(default)]
        #[ts(optional)]
        content: Option<Value>,
    },
    /// Elicitation: refuse.
    Decline,
    /// Elicitation: dismiss.
    Cancel,
}

/// What a waiting request gets back.
type SampleReply = Result<BoxFuture<'static, Result<SamplingResult, String>>, SamplingRefused>;

/// A request waiting for the user.
enum Waiting {
    Sampling {
        request: SamplingRequest,
        reply: oneshot::Sender<SampleReply>,
    },
    Form {
        schema: Value,
        reply: oneshot::Sender<ElicitationReply>,
    },
    Url {
        url: String,
        reply: oneshot::Sender<ElicitationReply>,
    },
    ClientCall {
        reply: oneshot::Sender<ApprovalAnswer>,
    },
}

/// One call of another app that waits for the user ([`Interactions::ask_client_call`]).
#[derive(Clone, Debug)]
pub struct ClientCall {
    /// The calling app's name.
    pub client: String,
    /// Whether "always" can be kept for it.
    pub can_always: bool,
    /// The server.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The arguments.
    pub arguments: Value,
}

struct Pending {
    server: String,
    waiting: Waiting,
}

struct Inner {
    pending: Mutex<HashMap<String, Pending>>,
    events: broadcast::Sender<InteractionEvent>,
    timeout: Mutex<Duration>,
    limits: crate::mcp::supervisor::sampling_limits::SamplingLimits,
}

/// The broker of server-to-client requests. Cheap to clone; clones share the requests.
#[derive(Clone)]
pub struct Interactions {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Interactions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let waiting: Vec<String> = self.lock().keys().cloned().collect();
        f.debug_struct("Interactions")
            .field("waiting", &waiting)
            .finish_non_exhaustive()
    }
}

impl Default for Interactions {
    fn default() -> Self {
        Self::new(DEFAULT_TIMEOUT)
    }
}

impl Interactions {
    /// A broker whose requests wait `timeout` for the user.
    pub fn new(timeout: Duration) -> Self {
        let (events, _) = broadcast::channel(EVENT_CAPACITY);
        let inner = Inner {
            pending: Mutex::new(HashMap::new()),
            events,
            timeout: Mutex::new(timeout),
            limits: crate::mcp::supervisor::sampling_limits::SamplingLimits::default(),
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Receives every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<InteractionEvent> {
        self.inner.events.subscribe()
    }

    /// How long requests wait for the user.
    pub fn timeout(&self) -> Duration {
        *lock(&self.inner.timeout)
    }

    /// The limits on sampling requests (`maxTokens` clamp, per-server rate).
    pub fn sampling_limits(&self) -> &crate::mcp::supervisor::sampling_limits::SamplingLimits {
        &self.inner.limits
    }

    /// Changes how long requests made from now on wait for the user.
    pub fn set_timeout(&self, timeout: Duration) {
        *lock(&self.inner.timeout) = timeout;
    }

    /// The ids of the requests waiting now, oldest first (ids sort by time).
    pub fn waiting(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.lock().keys().cloned().collect();
        ids.sort();
        ids
    }

    /// Asks the user to approve `request` of `server`; once approved, runs it on the model the
    /// answer brought and returns its result.
    pub async fn sample(
        &self,
        server: &str,
        request: SamplingRequest,
    ) -> Result<SamplingResult, SamplingRefused> {
        let limits = &self.inner.limits;
        if let Err(retry_after) = limits.admit(server, std::time::Instant::now()) {
            tracing::warn!(
                server,
                "a sampling request over the server's rate was refused"
            );
            return Err(SamplingRefused::RateLimited { retry_after });
        }
        // Clamped before the user sees it: what is approved is what runs.
        let request = limits.clamp(request);
        let (reply, rx) = oneshot::channel();
        let id = uuid::Uuid::now_v7().to_string();
        let event = InteractionEvent::SamplingRequested {
            id: id.clone(),
            server: server.to_owned(),
            request: request.clone(),
        };
        self.open(&id, server, Waiting::Sampling { request, reply }, event);
        let timeout = self.timeout();
        match self.wait(&id, server, rx, timeout).await {
            Waited::Reply(Ok(run)) => run.await.map_err(SamplingRefused::Failed),
            Waited::Reply(Err(refused)) => Err(refused),
            Waited::TimedOut => Err(SamplingRefused::TimedOut(timeout)),
            Waited::Cancelled => Err(SamplingRefused::Cancelled),
        }
    }

    /// Asks the user `request` of `server`; a timeout or a stop answers Cancel.
    pub async fn elicit(&self, server: &str, request: ElicitationRequest) -> ElicitationReply {
        let (reply, rx) = oneshot::channel();
        let id = uuid::Uuid::now_v7().to_string();
        let (waiting, event) = match request {
            ElicitationRequest::Form {
                message,
                requested_schema,
            } => (
                Waiting::Form {
                    schema: requested_schema.clone(),
                    reply,
                },
                InteractionEvent::ElicitationRequested {
                    id: id.clone(),
                    server: server.to_owned(),
                    message,
                    requested_schema,
                },
            ),
            ElicitationRequest::Url { url, .. } if !is_web_url(&url) => {
                tracing::warn!(server, url, "declined a URL request that is not http(s)");
                return ElicitationReply::Decline;
            }
            ElicitationRequest::Url { message, url } => (
                Waiting::Url {
                    url: url.clone(),
                    reply,
                },
                InteractionEvent::ElicitationUrl {
                    id: id.clone(),
                    server: server.to_owned(),
                    url,
                    message,
                },
            ),
        };
        self.open(&id, server, waiting, event);
        let timeout = self.timeout();
        match self.wait(&id, server, rx, timeout).await {
            Waited::Reply(reply) => reply,
            Waited::TimedOut | Waited::Cancelled => ElicitationReply::Cancel,
        }
    }

    /// Asks the user in the window about `call`; `None` when no window listens (a headless
    /// `switchboard serve`), or no answer came in time or the server stopped.
    pub async fn ask_client_call(&self, call: ClientCall) -> Option<ApprovalAnswer> {
        if self.inner.events.receiver_count() == 0 {
            return None;
        }
        let (reply, rx) = oneshot::channel();
        let id = uuid::Uuid::now_v7().to_string();
        let event = InteractionEvent::ClientCallRequested {
            id: id.clone(),
            server: call.server.clone(),
            client: call.client,
            tool: call.tool,
            arguments: call.arguments,
            can_always: call.can_always,
        };
        self.open(&id, &call.server, Waiting::ClientCall { reply }, event);
        match self.wait(&id, &call.server, rx, self.timeout()).await {
            Waited::Reply(answer) => Some(answer),
            Waited::TimedOut | Waited::Cancelled => None,
        }
    }

    /// Answers request `id`. A form's content is checked against its schema first; when it
    /// does not match, the request keeps waiting. An approved sampling request runs on
    /// `sampler` in the server's request (the server sees the model's answer). Returns the
    /// URL to open in the system browser when a URL request was accepted.
    pub fn answer(
        &self,
        id: &str,
        answer: InteractionAnswer,
        sampler: &dyn Sampler,
    ) -> Result<Option<String>, InteractionError> {
        let pending = {
            let mut all = self.lock();
            let Some(pending) = all.get(id) else {
                let id = id.to_owned();
                return Err(InteractionError::Unknown { id });
            };
            check(&pending.waiting, &answer)?;
            all.remove(id)
        };
        let Some(Pending { server, waiting }) = pending else {
            return Err(InteractionError::Unknown { id: id.to_owned() });
        };
        let open = match (&waiting, &answer) {
            (Waiting::Url { url, .. }, InteractionAnswer::Accept { .. }) => Some(url.clone()),
            _ => None,
        };
        deliver(waiting, answer, sampler);
        self.closed(id, &server, CloseReason::Answered);
        Ok(open)
    }

    /// Cancels every request of `server` (it stopped): each answers Cancel, or for sampling
    /// the error [`SamplingRefused::Cancelled`].
    pub fn cancel_server(&self, server: &str) {
        let cancelled: Vec<String> = {
            let mut all = self.lock();
            let ids: Vec<String> = (all.iter())
                .filter(|(_, p)| p.server == server)
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().for_each(|id| drop(all.remove(id)));
            ids
        };
        for id in cancelled {
            self.closed(&id, server, CloseReason::ServerStopped);
        }
    }

    fn open(&self, id: &str, server: &str, waiting: Waiting, event: InteractionEvent) {
        let pending = Pending {
            server: server.to_owned(),
            waiting,
        };
        self.lock().insert(id.to_owned(), pending);
        tracing::info!(server, id, "a server request waits for the user");
        let _ = self.inner.events.send(event);
    }

    /// Waits for the reply to `id`; on timeout the request is closed here.
    async fn wait<T>(
        &self,
        id: &str,
        server: &str,
        rx: oneshot::Receiver<T>,
        timeout: Duration,
    ) -> Waited<T> {
        // Dropped unanswered (the asker went away): the question leaves the window too.
        let _withdraw = Withdraw {
            broker: self,
            id,
            server,
        };
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(reply)) => Waited::Reply(reply),
            Ok(Err(_)) => Waited::Cancelled,
            Err(_) => {
                if self.lock().remove(id).is_some() {
                    self.closed(id, server, CloseReason::TimedOut);
                }
                Waited::TimedOut
            }
        }
    }

    fn closed(&self, id: &str, server: &str, reason: CloseReason) {
        let event = InteractionEvent::Closed {
            id: id.to_owned(),
            server: server.to_owned(),
            reason,
        };
        let _ = self.inner.events.send(event);
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Pending>> {
        lock(&self.inner.pending)
    }
}

/// Withdraws a request still waiting when its waiting ends, however it ends; a request
/// answered, timed out or closed with its server is no longer waiting, so nothing is said.
struct Withdraw<'a> {
    broker: &'a Interactions,
    id: &'a str,
    server: &'a str,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        if self.broker.lock().remove(self.id).is_some() {
            self.broker
                .closed(self.id, self.server, CloseReason::Withdrawn);
        }
    }
}

/// How waiting for the user ended.
enum Waited<T> {
    Reply(T),
    TimedOut,
    Cancelled,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Whether `url` is an http(s) URL (the only kind we open in the browser).
fn is_web_url(url: &str) -> bool {
    reqwest::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https"))
}

/// Whether `answer` answers `waiting`; a form's content must match its schema.
fn check(waiting: &Waiting, answer: &InteractionAnswer) -> Result<(), InteractionError> {
    let wrong = |request| {
        Err(InteractionError::WrongAnswer {
            answer: answer_kind(answer),
            request,
        })
    };
    match (waiting, answer) {
        (Waiting::Sampling { .. }, InteractionAnswer::Approve | InteractionAnswer::Deny) => Ok(()),
        (Waiting::Sampling { .. }, _) => wrong("a sampling request"),
        (
            Waiting::ClientCall { .. },
            InteractionAnswer::Approve | InteractionAnswer::ApproveAlways | InteractionAnswer::Deny,
        ) => Ok(()),
        (Waiting::ClientCall { .. }, _) => wrong("an app's tool call"),
        (Waiting::Form { schema, .. }, InteractionAnswer::Accept { content }) => {
            validate_form(schema, content.as_ref())
        }
        (Waiting::Url { .. }, InteractionAnswer::Accept { content: Some(_) }) => {
            Err(InteractionError::Invalid {
                problems: vec!["a URL request is accepted without content".to_owned()],
            })
        }
        (
            Waiting::Form { .. } | Waiting::Url { .. },
            InteractionAnswer::Approve | InteractionAnswer::ApproveAlways | InteractionAnswer::Deny,
        ) => wrong("an elicitation request"),
        (Waiting::Form { .. } | Waiting::Url { .. }, _) => Ok(()),
    }
}

fn answer_kind(answer: &InteractionAnswer) -> &'static str {
    match answer {
        InteractionAnswer::Approve => "approve",
        InteractionAnswer::Deny => "deny",
        InteractionAnswer::ApproveAlways => "approve always",
        InteractionAnswer::Accept { .. } => "accept",
        InteractionAnswer::Decline => "decline",
        InteractionAnswer::Cancel => "cancel",
    }
}

/// Checks a form's content against the requested schema.
fn validate_form(schema: &Value, content: Option<&Value>) -> Result<(), InteractionError> {
    let invalid = |problems| Err(InteractionError::Invalid { problems });
    let Some(content) = content.filter(|c| c.is_object()) else {
        return invalid(vec![
            "accepting a form needs its content as an object".to_owned(),
        ]);
    };
    let validator = match jsonschema::validator_for(schema) {
        Ok(v) => v,
        Err(e) => return invalid(vec![format!("the server's schema is invalid: {e}")]),
    };
    let problems: Vec<String> = validator
        .iter_errors(content)
        .map(|e| {
            let at = e.instance_path().as_str();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        invalid(problems)
    }
}

/// Sends `answer` (already checked) to the waiting request.
fn deliver(waiting: Waiting, answer: InteractionAnswer, sampler: &dyn Sampler) {
    match waiting {
        Waiting::Sampling { request, reply } => {
            let outcome = match answer {
                InteractionAnswer::Approve => Ok(sampler.sample(request)),
                _ => Err(SamplingRefused::Denied),
            };
            let _ = reply.send(outcome);
        }
        Waiting::ClientCall { reply } => {
            let _ = reply.send(match answer {
                InteractionAnswer::Approve => ApprovalAnswer::AllowOnce,
                InteractionAnswer::ApproveAlways => ApprovalAnswer::AllowAlways,
                _ => ApprovalAnswer::Deny,
            });
        }
        Waiting::Form { reply, .. } | Waiting::Url { reply, .. } => {
            let _ = reply.send(match answer {
                InteractionAnswer::Accept { content } => ElicitationReply::Accept(content),
                InteractionAnswer::Decline => ElicitationReply::Decline,
                _ => ElicitationReply::Cancel,
            });
        }
    }
}

#[cfg(test)]
#[path = "interact_tests.rs"]
mod tests;
