//! The suite's own 2026-07-28 server for the Tasks extension (SEP-2663,
//! `io.modelcontextprotocol/tasks`) and stateless list changes (`subscriptions/listen`), on
//! rmcp's server side and its `TaskManager`, over streamable HTTP on 127.0.0.1 (like
//! [`super::mrtr_server`]). One task store for every request, so a task outlives the client
//! that created it. It counts what it is asked and stops when the test drops it.
//!
//! Tools, each run as a task when the client declares the extension:
//! - `report {label, steps}`: works `steps` × 100 ms with a status message per step, then
//!   answers `report on LABEL after STEPS steps`;
//! - `ask_name`: asks for a form (`inputRequests`, answered with `tasks/update`), then answers
//!   `hello NAME`;
//! - `doomed`: fails with the JSON-RPC error "the disk is full";
//! - `endless`: works until cancelled (`tasks/cancel`), then settles as cancelled.
//!
//! And one plain tool, `add_tool`, which adds the tool `added` and tells every listener
//! (`notifications/tools/list_changed` on its `subscriptions/listen` stream).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CreateTaskResult, ErrorData, GetTaskParams, GetTaskResult, InputRequest, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, ServerNotification,
    SubscriptionFilter, ToolListChangedNotification, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer, SubscriptionContext, SubscriptionSink};
use rmcp::task_manager::{TaskContext, TaskExit, TaskFuture, TaskManager, TaskOptions};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The `ttlMs` of the tool list: an hour, so only a list change makes the host list again.
pub(super) const TTL_MS: u64 = 3_600_000;
/// The poll interval the server suggests (ms).
pub(super) const POLL_MS: u64 = 150;

/// What the server counts, shared with the test.
#[derive(Clone, Debug, Default)]
pub(super) struct Counts {
    /// `tasks/get` requests answered.
    pub gets: Arc<AtomicUsize>,
    /// `tasks/update` requests answered.
    pub updates: Arc<AtomicUsize>,
    /// `tasks/cancel` requests answered.
    pub cancels: Arc<AtomicUsize>,
    /// `tools/list` requests answered.
    pub lists: Arc<AtomicUsize>,
    /// `subscriptions/listen` streams opened.
    pub listens: Arc<AtomicUsize>,
}

/// The server's state: one task store and the listeners, shared by every request.
#[derive(Clone, Default)]
pub(super) struct Tasks {
    /// What it counts.
    pub counts: Counts,
    tasks: TaskManager,
    added: Arc<Mutex<bool>>,
    sinks: Arc<Mutex<Vec<SubscriptionSink>>>,
}

/// The server running on 127.0.0.1; stops when dropped.
pub(super) struct Running {
    /// Its endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// What it counts.
    pub counts: Counts,
    stop: CancellationToken,
    tasks: TaskManager,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.tasks.shutdown();
        self.stop.cancel();
    }
}

/// Starts the server on a free loopback port, on the current tokio runtime.
pub(super) async fn start() -> Running {
    let server = Tasks::default();
    let stop = CancellationToken::new();
    let url = super::mrtr_server::serve_http(server.clone(), &stop).await;
    Running {
        url,
        counts: server.counts.clone(),
        stop,
        tasks: server.tasks.clone(),
    }
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

fn tool(name: &str, properties: Value) -> Value {
    json!({ "name": name, "description": format!("Tasks test tool {name}"),
        "inputSchema": { "type": "object", "properties": properties },
        "annotations": { "destructiveHint": false } })
}

/// `report`: `steps` steps of 100 ms, each with a status message.
fn report(args: &Value) -> impl FnOnce(TaskContext) -> TaskFuture {
    let label = args["label"].as_str().unwrap_or("?").to_owned();
    let steps = args["steps"].as_u64().unwrap_or(3);
    move |ctx| {
        Box::pin(async move {
            for step in 1..=steps {
                ctx.set_status_message(format!("step {step} of {steps}"));
                tokio::select! {
                    () = ctx.cancelled() => return Err(TaskExit::Cancelled),
                    () = tokio::time::sleep(Duration::from_millis(100)) => {}
                }
            }
            Ok(text(format!("report on {label} after {steps} steps")))
        })
    }
}

/// `ask_name`: one form, answered with `tasks/update`.
fn ask_name(ctx: TaskContext) -> TaskFuture {
    Box::pin(async move {
        let form = json!({ "method": "elicitation/create", "params": {
            "mode": "form",
            "message": "What is your name?",
            "requestedSchema": { "type": "object",
                "properties": { "name": { "type": "string" } }, "required": ["name"] }
        }});
        let request: InputRequest = serde_json::from_value(form).expect("an elicitation");
        let answer = ctx.request_input("name", request).await?;
        let name = answer["content"]["name"].as_str().unwrap_or("?");
        Ok(text(format!("hello {name}")))
    })
}

fn doomed(_ctx: TaskContext) -> TaskFuture {
    Box::pin(async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        Err(TaskExit::Error(ErrorData::internal_error(
            "the disk is full",
            None,
        )))
    })
}

fn endless(ctx: TaskContext) -> TaskFuture {
    Box::pin(async move {
        ctx.set_status_message("working forever");
        ctx.cancelled().await;
        Err(TaskExit::Cancelled)
    })
}

impl Tasks {
    /// Adds the tool `added` and tells every listener.
    async fn add_tool(&self) -> CallToolResult {
        *self.added.lock().expect("lock") = true;
        let sinks = self.sinks.lock().expect("lock").clone();
        let mut told = 0;
        for sink in sinks {
            let changed = ServerNotification::ToolListChangedNotification(
                ToolListChangedNotification::default(),
            );
            if sink.send(changed).await.is_ok() {
                told += 1;
            }
        }
        text(format!("added; told {told} listeners"))
    }
}

impl ServerHandler for Tasks {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_tasks()
            .build();
        let mut config = ServerConfig::new(caps);
        config.server_info.name = "switchboard-tasks-test".to_owned();
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
        self.counts.lists.fetch_add(1, Ordering::SeqCst);
        let mut tools = vec![
            tool(
                "report",
                json!({ "label": { "type": "string" }, "steps": { "type": "integer" } }),
            ),
            tool("ask_name", json!({})),
            tool("doomed", json!({})),
            tool("endless", json!({})),
            tool("add_tool", json!({})),
        ];
        if *self.added.lock().expect("lock") {
            tools.push(tool("added", json!({})));
        }
        serde_json::from_value(json!({ "tools": tools, "ttlMs": TTL_MS, "cacheScope": "public" }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        let name = request.name.to_string();
        let declared = (context.client_capabilities()).is_some_and(|c| c.supports_tasks());
        if name == "add_tool" {
            return Ok(self.add_tool().await.into());
        }
        if name == "added" {
            return Ok(text("the added tool ran").into());
        }
        if !declared {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "this tool runs only as a task",
            )])
            .into());
        }
        let options = TaskOptions::new().with_poll_interval_ms(POLL_MS);
        let task = match name.as_str() {
            "report" => self.tasks.spawn(options, report(&args)),
            "ask_name" => self.tasks.spawn(options, ask_name),
            "doomed" => self.tasks.spawn(options, doomed),
            "endless" => self.tasks.spawn(options, endless),
            other => return Ok(text(format!("unknown tool {other}")).into()),
        };
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.counts.gets.fetch_add(1, Ordering::SeqCst);
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.counts.updates.fetch_add(1, Ordering::SeqCst);
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.counts.cancels.fetch_add(1, Ordering::SeqCst);
        self.tasks.cancel_task(&request.task_id)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.sinks
            .lock()
            .expect("lock")
            .push(context.sink().clone());
        self.counts.listens.fetch_add(1, Ordering::SeqCst);
        context.cancelled().await;
        Ok(())
    }
}
