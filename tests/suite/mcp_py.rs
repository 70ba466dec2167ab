//! The engine against real MCP servers from PyPI (`mcp` 1.x, the handshake era):
//! `mcp-server-time` over stdio, and seed 003's FastMCP weather server over stdio and over
//! streamable HTTP on 127.0.0.1. Helpers live in [`super::support_py`].

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_engine::mcp::{IgnoreNotifications, McpClient, ServerState, Supervisor};
use switchboard_engine::vocab::mcp::{ResultPart, ToolResult};
use switchboard_engine::vocab::server::ServerConfig;
use tokio_util::sync::CancellationToken;

use super::support_py::{WEATHER_TEXT, WeatherHttp, time_stdio_config, weather_stdio_config};

const CALL: Duration = Duration::from_secs(30);

/// Connects a client straight to `config`'s server.
async fn connect(config: &ServerConfig) -> McpClient {
    McpClient::connect(&config.spec(), IgnoreNotifications)
        .await
        .expect("connect")
}

/// Calls `tool` with `args` (a JSON object).
async fn call(client: &McpClient, tool: &str, args: Value) -> ToolResult {
    let args = args.as_object().expect("an object").clone();
    let cancel = CancellationToken::new();
    client.call_tool(tool, args, CALL, cancel).await.unwrap()
}

/// The only part of `result`, which must be text.
fn only_text(result: &ToolResult) -> &str {
    match result.content.as_slice() {
        [ResultPart::Text { text }] => text,
        other => panic!("expected one text part, got {other:?}"),
    }
}

/// The JSON document `mcp-server-time` answers with, as its only text part.
fn json_text(result: &ToolResult) -> Value {
    serde_json::from_str(only_text(result)).expect("JSON text")
}

#[tokio::test]
async fn mcp_server_time_over_stdio_lists_its_two_tools_in_the_handshake_era() {
    let client = connect(&time_stdio_config("time")).await;
    let info = client.server_info();
    assert_eq!(
        (info.name.as_str(), info.protocol_version.as_str()),
        ("mcp-time", "2025-11-25")
    );
    let tools = client.list_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["get_current_time", "convert_time"]);
    assert_eq!(
        tools[1].input_schema["required"],
        json!(["source_timezone", "time", "target_timezone"])
    );
    client.shutdown().await;
}

#[tokio::test]
async fn get_current_time_answers_in_the_asked_timezone() {
    let client = connect(&time_stdio_config("time")).await;
    let result = call(
        &client,
        "get_current_time",
        json!({"timezone": "Asia/Shanghai"}),
    )
    .await;
    assert!(!result.is_error);
    let answer = json_text(&result);
    assert_eq!(answer["timezone"], "Asia/Shanghai");
    let datetime = answer["datetime"].as_str().unwrap();
    assert!(datetime.ends_with("+08:00"), "{datetime}");
    client.shutdown().await;
}

#[tokio::test]
async fn convert_time_turns_noon_utc_into_nine_pm_in_tokyo() {
    let client = connect(&time_stdio_config("time")).await;
    let args = json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"});
    let answer = json_text(&call(&client, "convert_time", args).await);
    let target = answer["target"]["datetime"].as_str().unwrap();
    assert!(target.ends_with("T21:00:00+09:00"), "{target}");
    assert_eq!(
        (&answer["target"]["timezone"], &answer["time_difference"]),
        (&json!("Asia/Tokyo"), &json!("+9.0h"))
    );
    client.shutdown().await;
}

#[tokio::test]
async fn an_unknown_timezone_is_a_tool_error_result_naming_it() {
    let client = connect(&time_stdio_config("time")).await;
    let result = call(
        &client,
        "get_current_time",
        json!({"timezone": "Mars/Olympus"}),
    )
    .await;
    assert!(result.is_error);
    assert!(only_text(&result).contains("Mars/Olympus"), "{result:?}");
    client.shutdown().await;
}

#[tokio::test]
async fn the_weather_server_over_stdio_offers_get_weather_as_seed_003_wrote_it() {
    let client = connect(&weather_stdio_config("weather")).await;
    assert_eq!(client.server_info().name, "Weather");
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(
        (tools[0].name.as_str(), tools[0].description.as_deref()),
        ("get_weather", Some("Get the weather location."))
    );
    assert_eq!(tools[0].input_schema["required"], json!(["location"]));
    let result = call(&client, "get_weather", json!({"location": "California"})).await;
    assert_eq!(only_text(&result), WEATHER_TEXT);
    assert_eq!(result.structured, Some(json!({"result": WEATHER_TEXT})));
    client.shutdown().await;
}

#[tokio::test]
async fn the_weather_server_over_streamable_http_answers_through_the_supervisor() {
    let server = WeatherHttp::start();
    let supervisor = Supervisor::default();
    let state = supervisor.start(server.config("weather-http")).await;
    let ServerState::Ready { info, tools } = state else {
        panic!(
            "expected Ready, got {state:?}; server stderr: {}",
            server.stderr()
        );
    };
    assert_eq!((info.name.as_str(), tools), ("Weather", 1));
    let args = json!({"location": "San Francisco"});
    let result = supervisor
        .call(
            "weather-http",
            "get_weather",
            args,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(only_text(&result), WEATHER_TEXT);
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn the_http_weather_server_is_gone_once_its_guard_is_dropped() {
    let server = WeatherHttp::start();
    let (pid, port) = (server.pid(), server.port());
    drop(server);
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
}
