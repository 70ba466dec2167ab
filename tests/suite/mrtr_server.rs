//! The suite's own 2026-07-28 MCP server, on rmcp's server side over streamable HTTP on
//! 127.0.0.1: its tools, prompt and resource answer with `input_required` results (SEP-2322)
//! asking for elicitation, sampling and roots, and check on the retry that the `requestState`
//! came back byte for byte. It counts the `tools/list` requests it answers and puts a cache
//! hint (`ttlMs`, `cacheScope`) on its tool list. It stops when the test drops it.
//!
//! Tools: `ask_name` (a form), `ask_model` (sampling), `ask_roots` (roots), `ask_all` (the three
//! in one round, then a second round asking the form again), `ask_forever` (never done);
//! prompt `greeting` (a form); resource `mrtr://roots` (roots).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequests, InputRequiredResult,
    InputResponses, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The state each first round hands out: odd bytes on purpose (spaces, `+/=`, non-ASCII,
/// quotes), so that any re-encoding on the way back is caught.
pub(super) const STATE: &str = "round-1 +/= état \"quoted\" \u{1F600}";

/// The server's behaviour and counters, shared with the test.
#[derive(Clone, Debug, Default)]
pub(super) struct Asking {
    /// `tools/list` requests answered.
    pub lists: Arc<AtomicUsize>,
    /// Calls that came back with a `requestState` other than the one handed out.
    pub bad_states: Arc<AtomicUsize>,
    /// `ttlMs` on the tool list; `None` leaves it out.
    pub ttl_ms: Option<u64>,
    /// Extra tool names (a test changes them to see a re-list).
    pub extra_tool: Arc<std::sync::Mutex<Option<String>>>,
}

/// The server running on 127.0.0.1; stops when dropped.
pub(super) struct Running {
    /// Its endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// What it counts.
    pub asking: Asking,
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Starts the server on a free loopback port, on the current tokio runtime.
pub(super) async fn start(asking: Asking) -> Running {
    let stop = CancellationToken::new();
    let url = serve_http(asking.clone(), &stop).await;
    Running { url, asking, stop }
}

/// Serves `server` (one clone per session) over streamable HTTP on a free loopback port until
/// `stop` is cancelled; returns its endpoint, `http://127.0.0.1:PORT/mcp`. Shared by the suite's
/// own rmcp servers.
pub(super) async fn serve_http<S>(server: S, stop: &CancellationToken) -> String
where
    S: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    let factory = move || Ok(server.clone());
    let config = StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    let service =
        StreamableHttpService::new(factory, Arc::new(LocalSessionManager::default()), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let shutdown = stop.clone();
    tokio::spawn(async move {
        let serve =
            axum::serve(listener, router).with_graceful_shutdown(shutdown.cancelled_owned());
        let _ = serve.await;
    });
    format!("http://127.0.0.1:{port}/mcp")
}

/// The input requests of a first round, by key.
fn requests(value: Value) -> InputRequests {
    serde_json::from_value(value).expect("input requests")
}

fn form(key: &str) -> Value {
    json!({ key: { "method": "elicitation/create", "params": {
        "mode": "form",
        "message": "What is your name?",
        "requestedSchema": { "type": "object",
            "properties": { "name": { "type": "string" } }, "required": ["name"] }
    }}})
}

fn sampling(key: &str) -> Value {
    json!({ key: { "method": "sampling/createMessage", "params": {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "Name a colour." } }],
        "maxTokens": 20
    }}})
}

fn roots(key: &str) -> Value {
    json!({ key: { "method": "roots/list", "params": {} } })
}

/// Merges JSON objects.
fn merged(parts: &[Value]) -> Value {
    let mut all = serde_json::Map::new();
    for part in parts {
        all.extend(part.as_object().cloned().unwrap_or_default());
    }
    Value::Object(all)
}

fn ask(parts: &[Value], state: &str) -> InputRequiredResult {
    InputRequiredResult::new(Some(requests(merged(parts))), Some(state.to_owned()))
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

impl Asking {
    /// Whether the echoed state is the one handed out; counts a bad one.
    fn state_ok(&self, state: Option<&str>, expected: &str) -> bool {
        let ok = state == Some(expected);
        if !ok {
            self.bad_states.fetch_add(1, Ordering::SeqCst);
        }
        ok
    }

    /// The answer to a tool's retry, given what came back.
    fn answer(&self, tool: &str, responses: &InputResponses) -> CallToolResult {
        let get = |key: &str| responses.get(key).cloned().unwrap_or(Value::Null);
        match tool {
            "ask_name" => text(format!(
                "hello {}",
                get("name")["content"]["name"].as_str().unwrap_or("?")
            )),
            "ask_model" => text(format!(
                "the model said {}",
                get("colour")["content"]["text"].as_str().unwrap_or("?")
            )),
            "ask_roots" => text(roots_text(&get("roots"))),
            _ => text(format!("unexpected tool {tool}")),
        }
    }
}

/// The root URIs of a `roots/list` result, comma-separated.
fn roots_text(result: &Value) -> String {
    let uris: Vec<&str> = (result["roots"].as_array().into_iter().flatten())
        .filter_map(|r| r["uri"].as_str())
        .collect();
    format!("roots: {}", uris.join(","))
}

fn tool(name: &str) -> Value {
    json!({ "name": name, "description": format!("MRTR test tool {name}"),
        "inputSchema": { "type": "object", "properties": {} } })
}

impl ServerHandler for Asking {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_resources()
            .build();
        let mut config = ServerConfig::new(caps);
        config.server_info.name = "switchboard-mrtr-test".to_owned();
        config.server_info.version = "1.0.0".to_owned();
        config
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Owned(vec![ProtocolVersion::V_2026_07_28])
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.lists.fetch_add(1, Ordering::SeqCst);
        let mut names = vec![
            "ask_name",
            "ask_model",
            "ask_roots",
            "ask_all",
            "ask_forever",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
        names.extend(self.extra_tool.lock().ok().and_then(|t| t.clone()));
        let tools: Vec<Value> = names.iter().map(|n| tool(n)).collect();
        let mut result = json!({ "tools": tools, "cacheScope": "public" });
        if let Some(ttl) = self.ttl_ms {
            result["ttlMs"] = json!(ttl);
        }
        serde_json::from_value(result).map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let Some(responses) = request.input_responses.clone() else {
            return Ok(match name.as_str() {
                "ask_name" => ask(&[form("name")], STATE).into(),
                "ask_model" => ask(&[sampling("colour")], STATE).into(),
                "ask_roots" => ask(&[roots("roots")], STATE).into(),
                "ask_all" => ask(&[form("name"), sampling("colour"), roots("roots")], STATE).into(),
                "ask_forever" => ask(&[roots("again")], STATE).into(),
                other => text(format!("unknown tool {other}")).into(),
            });
        };
        let state = request.request_state.as_deref();
        if name == "ask_all" && responses.contains_key("colour") {
            if !self.state_ok(state, STATE) {
                return Ok(
                    CallToolResult::error(vec![ContentBlock::text("requestState changed")]).into(),
                );
            }
            let so_far = format!(
                "{}; {}; {}",
                self.answer("ask_name", &responses).content[0]
                    .as_text()
                    .map(|t| t.text.clone())
                    .unwrap_or_default(),
                self.answer("ask_model", &responses).content[0]
                    .as_text()
                    .map(|t| t.text.clone())
                    .unwrap_or_default(),
                self.answer("ask_roots", &responses).content[0]
                    .as_text()
                    .map(|t| t.text.clone())
                    .unwrap_or_default(),
            );
            return Ok(ask(&[form("name")], &format!("round-2 {so_far}")).into());
        }
        if name == "ask_all" {
            let so_far = state
                .and_then(|s| s.strip_prefix("round-2 "))
                .unwrap_or("?");
            let again = self.answer("ask_name", &responses).content[0]
                .as_text()
                .map(|t| t.text.clone())
                .unwrap_or_default();
            return Ok(text(format!("{so_far}; then {again}")).into());
        }
        if name == "ask_forever" {
            return Ok(ask(&[roots("again")], STATE).into());
        }
        if !self.state_ok(state, STATE) {
            return Ok(
                CallToolResult::error(vec![ContentBlock::text("requestState changed")]).into(),
            );
        }
        Ok(self.answer(&name, &responses).into())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let Some(responses) = request.input_responses else {
            return Ok(ask(&[form("name")], STATE).into());
        };
        let name = responses.get("name").cloned().unwrap_or(Value::Null);
        let who = name["content"]["name"].as_str().unwrap_or("?");
        let echoed = request.request_state.as_deref() == Some(STATE);
        let result = json!({ "description": "A greeting", "messages": [{ "role": "user",
            "content": { "type": "text", "text": format!("Greet {who} (state echoed: {echoed})") } }] });
        let result: GetPromptResult = serde_json::from_value(result)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(result.into())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(responses) = request.input_responses else {
            return Ok(ask(&[roots("roots")], STATE).into());
        };
        let listed = roots_text(responses.get("roots").unwrap_or(&Value::Null));
        let echoed = request.request_state.as_deref() == Some(STATE);
        let result = json!({ "contents": [{ "uri": request.uri, "mimeType": "text/plain",
            "text": format!("{listed} (state echoed: {echoed})") }] });
        let result: ReadResourceResult = serde_json::from_value(result)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(result.into())
    }
}
