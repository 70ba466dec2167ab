//! `switchboard serve` for an app of the stateless era (2026-07-28, rmcp's own client): a
//! server's questions (`input_required`) go back to the app, which answers them itself, and the
//! answering round finishes the call; only a `requestState` the server handed to this app after
//! an approved round is taken as approved — a made-up one is a new call, under the policy.
//! An app of the handshake era (the official Python SDK's client) is asked the same question
//! itself, as a server-to-client request on its call's stream. Upstream is the suite's own
//! 2026-07-28 server (`mrtr_server`), over HTTP.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, Implementation,
    InputResponses,
};
use rmcp::service::{ClientLifecycleMode, RoleClient, RunningService, serve_client_with_lifecycle};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

use super::mcp_serve::run_client;
use super::mcp_serve_http::{Served, add_client, cli};
use super::mrtr_server::{self, Asking, STATE};
use super::support_py::venv_python;

/// An app that declares elicitation, speaking 2026-07-28 with `token`.
async fn app(url: &str, token: &str) -> RunningService<RoleClient, ClientConfig> {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(Default::default());
    stateless_app(url, token, capabilities).await
}

/// An app (rmcp's client) speaking 2026-07-28 with `token` and `capabilities`.
pub(super) async fn stateless_app(
    url: &str,
    token: &str,
    capabilities: ClientCapabilities,
) -> RunningService<RoleClient, ClientConfig> {
    let info = ClientConfig::new(capabilities, Implementation::new("test-app", "1.0"));
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token);
    let transport = StreamableHttpClientTransport::from_config(config);
    let mode = ClientLifecycleMode::Auto {
        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        legacy_version: None,
    };
    serve_client_with_lifecycle(info, transport, mode)
        .await
        .expect("the app's discovery")
}

/// `path`'s profile with the server at `url` as `asking`, its `ask_name` allowed.
fn import_asking(path: &std::path::Path, url: &str) {
    let config = path.join("servers.json");
    let servers = json!({ "mcpServers": { "asking": { "type": "http", "url": url } } });
    std::fs::write(&config, servers.to_string()).unwrap();
    let (ok, said) = cli(path, &["servers", "import", config.to_str().unwrap()]);
    assert!(ok, "{said}");
    let allow = [
        "servers", "approval", "asking", "allow", "--tool", "ask_name",
    ];
    let (ok, said) = cli(path, &allow);
    assert!(ok, "{said}");
}

/// `asking__ask_name` with the app's answer (the name `Ada`) and `state`.
fn answering(state: &str) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new("asking__ask_name");
    let answer = json!({ "action": "accept", "content": { "name": "Ada" } });
    params.input_responses = Some(InputResponses::from([("name".to_owned(), answer)]));
    params.request_state = Some(state.to_owned());
    params
}

fn text(response: &CallToolResponse) -> (bool, String) {
    let CallToolResponse::Complete(result) = response else {
        panic!("not a final result: {response:?}");
    };
    let text = (result.content.iter())
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<String>();
    (result.is_error.unwrap_or(false), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_app_answers_the_servers_question_itself_and_a_made_up_state_is_a_new_call() {
    let upstream = mrtr_server::start(Asking::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let (path, url) = (dir.path().to_owned(), upstream.url.clone());
    let (token, served) = tokio::task::spawn_blocking(move || {
        import_asking(&path, &url);
        (add_client(&path, &["app"]), Served::start(&path))
    })
    .await
    .unwrap();
    let app = app(&served.url, &token).await;

    // The server's question comes back to the app as it was asked, with its state.
    let params = CallToolRequestParams::new("asking__ask_name");
    let asked = app.call_tool_once(params).await.expect("the first round");
    let CallToolResponse::InputRequired(asked) = asked else {
        panic!("the question was not passed back: {asked:?}");
    };
    assert_eq!(asked.request_state.as_deref(), Some(STATE));
    let requests = serde_json::to_value(&asked.input_requests).unwrap();
    assert_eq!(
        requests["name"]["method"], "elicitation/create",
        "{requests}"
    );

    // The user now denies the tool: a round with a state the server never handed out is a
    // new call, refused before it reaches the server.
    let path = dir.path().to_owned();
    tokio::task::spawn_blocking(move || {
        let deny = [
            "servers", "approval", "asking", "deny", "--tool", "ask_name",
        ];
        let (ok, said) = cli(&path, &deny);
        assert!(ok, "{said}");
    })
    .await
    .unwrap();
    let forged = app.call_tool_once(answering("made up")).await.unwrap();
    let (is_error, said) = text(&forged);
    assert!(is_error && said.contains("refused"), "{said}");
    assert_eq!(
        upstream
            .asking
            .bad_states
            .load(std::sync::atomic::Ordering::SeqCst),
        0
    );

    // The approved call's own answering round finishes it, the state passed on byte for byte.
    let done = app.call_tool_once(answering(STATE)).await.unwrap();
    assert_eq!(text(&done), (false, "hello Ada".to_owned()));
    let _ = app.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_era_app_is_asked_the_question_a_server_needs_answered_for_its_own_call() {
    let upstream = mrtr_server::start(Asking::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let (path, url) = (dir.path().to_owned(), upstream.url.clone());
    let report = tokio::task::spawn_blocking(move || {
        import_asking(&path, &url);
        // The official Python SDK's client (handshake era, with elicitation) over stdio.
        let args = json!([
            "--data-dir",
            path,
            "mcp",
            "serve",
            "--stdio",
            "--server",
            "asking"
        ]);
        let calls = json!([["ask_name", {}]]);
        let command = env!("CARGO_BIN_EXE_switchboard");
        run_client(
            &venv_python(),
            "accept",
            command,
            &args,
            &calls,
            &json!({}),
            None,
        )
    })
    .await
    .unwrap();
    // The server's question (asked of Switchboard as `input_required`, the server being of the
    // stateless era) reached the app's user, not Switchboard's.
    assert_eq!(report["asked"], json!(["What is your name?"]), "{report}");
    assert_eq!(report["calls"][0]["isError"], false, "{report}");
    assert_eq!(report["calls"][0]["text"][0], "hello ?", "{report}");
}
