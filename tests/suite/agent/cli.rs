//! `switchboard chat` as a process: the answer streams to stdout with the tool call and its
//! result, `--yes` allows tools, a non-interactive run without it denies and says so, `--json`
//! prints the event stream, and `conversations show|search` read what the turn stored.

use std::process::Output;

use serde_json::json;

use super::everything_js;
use super::model::{Model, Say};

fn switchboard(data: &std::path::Path, args: &[&str]) -> Output {
    crate::suite::support_cli::switchboard(data, args)
}

async fn run(data: &std::path::Path, args: &[&str]) -> Output {
    let (d, a): (std::path::PathBuf, Vec<String>) = (
        data.to_owned(),
        args.iter().map(|s| s.to_string()).collect(),
    );
    tokio::task::spawn_blocking(move || {
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        switchboard(&d, &refs)
    })
    .await
    .unwrap()
}

fn out(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

async fn configure(data: &std::path::Path, url: &str) {
    let o = run(
        data,
        &[
            "providers",
            "add",
            "fake",
            "--preset",
            "openai-compatible",
            "--base-url",
            &format!("{url}/v1"),
        ],
    )
    .await;
    assert!(o.status.success(), "{:?}", out(&o));
    let js = everything_js();
    let o = run(
        data,
        &[
            "servers",
            "add",
            "everything",
            "--command",
            "node",
            "--arg",
            &js,
            "--arg",
            "stdio",
        ],
    )
    .await;
    assert!(o.status.success(), "{:?}", out(&o));
}

fn echo(message: &str) -> Say {
    Say::Calls(vec![(
        "everything__echo".into(),
        json!({"message": message}),
    )])
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_streams_the_answer_with_the_tool_call_and_stores_a_searchable_conversation() {
    let data = tempfile::tempdir().unwrap();
    let model = Model::start(vec![
        echo("北京的天气"),
        Say::Text("It rains in 北京.".into()),
    ])
    .await;
    configure(data.path(), &model.url).await;
    let o = run(
        data.path(),
        &[
            "chat",
            "--provider",
            "fake",
            "--model",
            "m",
            "--server-wait",
            "60",
            "--yes",
            "Weather in Beijing?",
        ],
    )
    .await;
    let (stdout, stderr) = out(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout,
        "→ everything.echo {\"message\":\"北京的天气\"}\n← Echo: 北京的天气\nIt rains in 北京.\n"
    );
    let conv = stderr
        .lines()
        .find_map(|l| l.strip_prefix("[conversation "))
        .unwrap()
        .trim_end_matches(']')
        .to_owned();

    let o = run(data.path(), &["conversations", "show", &conv]).await;
    let (shown, _) = out(&o);
    assert!(
        shown.contains("[user] (Complete)\nWeather in Beijing?"),
        "{shown}"
    );
    assert!(shown.contains("← Echo: 北京的天气"), "{shown}");
    let o = run(data.path(), &["conversations", "search", "北京"]).await;
    let (found, _) = out(&o);
    assert!(
        found.starts_with(&conv) && found.contains("[北京]"),
        "{found}"
    );
    assert_eq!(model.rejected(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_non_interactive_chat_without_yes_denies_tools_and_says_how_to_allow_them() {
    let data = tempfile::tempdir().unwrap();
    let model = Model::start(vec![echo("x"), Say::Text("Denied, fine.".into())]).await;
    configure(data.path(), &model.url).await;
    let o = run(
        data.path(),
        &[
            "chat",
            "--provider",
            "fake",
            "--model",
            "m",
            "--server-wait",
            "60",
            "Echo x",
        ],
    )
    .await;
    let (stdout, stderr) = out(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "denied everything.echo: not asked on a non-interactive run (pass --yes to allow tools)"
        ),
        "{stderr}"
    );
    assert!(
        stdout.contains("✗ The user denied this tool call."),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_json_prints_every_event_as_one_json_line() {
    let data = tempfile::tempdir().unwrap();
    let model = Model::start(vec![echo("j"), Say::Text("done".into())]).await;
    configure(data.path(), &model.url).await;
    let o = run(
        data.path(),
        &[
            "chat",
            "--provider",
            "fake",
            "--model",
            "m",
            "--server-wait",
            "60",
            "--yes",
            "--json",
            "go",
        ],
    )
    .await;
    let (stdout, stderr) = out(&o);
    assert!(o.status.success(), "{stderr}");
    let types: Vec<String> = stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let wanted = [
        "titled",
        "started",
        "message_started",
        "tool_call_proposed",
        "usage",
        "approval_needed",
        "tool_started",
        "tool_result",
    ];
    assert_eq!(types[..8], wanted);
    assert_eq!(types.last().unwrap(), "finished");
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_with_an_unreachable_provider_exits_1_with_the_reason() {
    let data = tempfile::tempdir().unwrap();
    let o = run(
        data.path(),
        &[
            "providers",
            "add",
            "gone",
            "--preset",
            "openai-compatible",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ],
    )
    .await;
    assert!(o.status.success());
    let o = run(
        data.path(),
        &["chat", "--provider", "gone", "--model", "m", "hello"],
    )
    .await;
    let (_, stderr) = out(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr.to_lowercase().contains("127.0.0.1:9"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_never_answers_initialize_delays_the_turn_only_by_the_short_wait() {
    let data = tempfile::tempdir().unwrap();
    let model = Model::start(vec![Say::Text("Hello without tools.".into())]).await;
    configure(data.path(), &model.url).await;
    // A "server" that reads nothing and says nothing: its start would wait out the 60 s
    // start-up timeout.
    let o = run(
        data.path(),
        &[
            "servers",
            "add",
            "silent",
            "--command",
            "sleep",
            "--arg",
            "600",
        ],
    )
    .await;
    assert!(o.status.success(), "{:?}", out(&o));
    let started = std::time::Instant::now();
    let o = run(
        data.path(),
        &[
            "chat",
            "--provider",
            "fake",
            "--model",
            "m",
            "--servers",
            "silent",
            "--server-wait",
            "1",
            "hello",
        ],
    )
    .await;
    let (stdout, stderr) = out(&o);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout, "Hello without tools.\n");
    assert!(
        stderr.contains("warning: server silent is still starting after 1.0 s"),
        "{stderr}"
    );
    // A hang guard, far under the 60 s the start-up timeout would have taken.
    assert!(started.elapsed() < std::time::Duration::from_secs(40));
}
