//! `switchboard chat --temperature --top-p --think`: the model receives them in its wire
//! format's fields, the conversation keeps them for the next turn, and values out of range
//! are refused before anything is sent.

use std::process::{Command, Output};

use serde_json::{Value, json};

use super::model::{Model, Say};

async fn run(data: &std::path::Path, args: &[&str]) -> Output {
    let (d, a): (std::path::PathBuf, Vec<String>) = (
        data.to_owned(),
        args.iter().map(|s| s.to_string()).collect(),
    );
    tokio::task::spawn_blocking(move || {
        crate::suite::support_cli::output_within_limit(
            Command::new(env!("CARGO_BIN_EXE_switchboard"))
                .arg("--data-dir")
                .arg(&d)
                .args(&a)
                .env_remove("SWITCHBOARD_DATA_DIR")
                .env_remove("RUST_LOG"),
        )
    })
    .await
    .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The fields a request carries for the settings (Ollama wire).
fn fields(body: &Value) -> Value {
    json!({ "options": body["options"], "think": body.get("think") })
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_sends_temperature_top_p_and_think_and_the_conversation_keeps_them() {
    let data = tempfile::tempdir().unwrap();
    let model = Model::start(vec![Say::Text("One.".into()), Say::Text("Two.".into())]).await;
    let add = [
        "providers",
        "add",
        "fake",
        "--preset",
        "ollama",
        "--base-url",
        &model.url,
    ];
    let o = run(data.path(), &add).await;
    assert!(o.status.success(), "{}", text(&o));
    let first = [
        "chat",
        "--provider",
        "fake",
        "--model",
        "fake-model",
        "--json",
        "--temperature",
        "0.2",
        "--top-p",
        "0.9",
        "--think",
        "high",
        "First?",
    ];
    let o = run(data.path(), &first).await;
    assert!(o.status.success(), "{}", text(&o));
    let conv = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|e| e["conversation_id"].as_str().map(str::to_owned))
        .expect("the turn names its conversation");
    let second = ["chat", "--conversation", &conv, "--think", "off", "Second?"];
    let o = run(data.path(), &second).await;
    assert!(o.status.success(), "{}", text(&o));
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let options = json!({ "temperature": 0.2, "top_p": 0.9, "num_ctx": 12288 });
    assert_eq!(
        fields(&requests[0]),
        json!({ "options": options, "think": "high" })
    );
    assert_eq!(
        fields(&requests[1]),
        json!({ "options": options, "think": false }),
        "sampling kept, thinking switched off"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_temperature_out_of_range_is_refused_before_anything_is_sent() {
    let data = tempfile::tempdir().unwrap();
    let model = Model::start(vec![]).await;
    let add = [
        "providers",
        "add",
        "fake",
        "--preset",
        "ollama",
        "--base-url",
        &model.url,
    ];
    assert!(run(data.path(), &add).await.status.success());
    let o = run(
        data.path(),
        &[
            "chat",
            "--provider",
            "fake",
            "--model",
            "m",
            "--temperature",
            "3",
            "Hi",
        ],
    )
    .await;
    assert!(!o.status.success());
    assert!(text(&o).contains("3 is outside 0 to 2"), "{}", text(&o));
    assert_eq!(model.requests().len(), 0);
}
