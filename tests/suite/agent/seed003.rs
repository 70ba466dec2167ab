//! Seed 003's flow, end to end through `switchboard chat`: the user asks for the weather, the
//! model (a scripted OpenAI-compatible or Ollama-native fake) calls `get_weather` of the real
//! FastMCP weather server from PyPI — over stdio and over streamable HTTP — the tool answers,
//! and the model answers the user. The history the model receives is validated each step.

use std::process::Output;

use serde_json::json;

use super::model::{Model, Say};
use crate::suite::support_py::{WEATHER_TEXT, WeatherHttp, fixtures_py, venv_python};

fn switchboard(data: &std::path::Path, args: &[String]) -> Output {
    crate::suite::support_cli::switchboard(data, args)
}

async fn run(data: &std::path::Path, args: &[&str]) -> Output {
    let (d, a) = (
        data.to_owned(),
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    );
    tokio::task::spawn_blocking(move || switchboard(&d, &a))
        .await
        .unwrap()
}

fn script() -> Vec<Say> {
    vec![
        Say::Calls(vec![(
            "weather__get_weather".into(),
            json!({"location": "California"}),
        )]),
        Say::Text("It's always raining in California.".into()),
    ]
}

async fn weather_flow(add_server: &[&str], preset: &str, base: impl Fn(&str) -> String) {
    let data = tempfile::tempdir().unwrap();
    let model = Model::start(script()).await;
    let base_url = base(&model.url);
    let o = run(
        data.path(),
        &[
            "providers",
            "add",
            "fake",
            "--preset",
            preset,
            "--base-url",
            &base_url,
        ],
    )
    .await;
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(data.path(), add_server).await;
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ask = [
        "chat",
        "--provider",
        "fake",
        "--model",
        "qwen3",
        "--server-wait",
        "60",
        "--yes",
        "what is the weather in California?",
    ];
    let o = run(data.path(), &ask).await;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout,
        format!(
            "→ weather.get_weather {{\"location\":\"California\"}}\n← {WEATHER_TEXT}\nIt's always raining in California.\n"
        )
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let tools = requests[0]["tools"].to_string();
    assert!(
        tools.contains("weather__get_weather") && tools.contains("Get the weather location."),
        "{tools}"
    );
    assert!(requests[1].to_string().contains(WEATHER_TEXT));
    assert_eq!(model.rejected(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn seed_003_weather_flow_over_stdio_with_an_openai_compatible_model() {
    let python = venv_python().to_string_lossy().into_owned();
    let script = fixtures_py()
        .join("weather.py")
        .to_string_lossy()
        .into_owned();
    let add = [
        "servers",
        "add",
        "weather",
        "--command",
        &python,
        "--arg",
        &script,
        "--arg",
        "stdio",
    ];
    weather_flow(&add, "openai-compatible", |u| format!("{u}/v1")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn seed_003_weather_flow_over_streamable_http_with_an_ollama_model() {
    let server = WeatherHttp::start();
    let url = server.url();
    let add = ["servers", "add", "weather", "--url", &url];
    weather_flow(&add, "ollama", str::to_owned).await;
    drop(server);
}
