//! The client capabilities against the real server-everything over stdio: it registers its
//! sampling, elicitation and roots tools only for a client that advertises them; each request
//! it sends reaches the user as an event, and the answer reaches it back.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::supervisor::everything;
use crate::mcp::client::interact_types::SamplingContent;
use crate::mcp::supervisor::fake_sampler::FakeSampler;
use crate::mcp::supervisor::interact::{InteractionAnswer, InteractionEvent};
use crate::mcp::supervisor::{ServerState, Supervisor};
use crate::vocab::error::ToolError;
use crate::vocab::mcp::{ResultPart, ToolResult};

/// A model stand-in that answers with the prompt it got, upper-cased, and its system prompt.
fn shout() -> FakeSampler {
    FakeSampler::new("shout-1", |request| {
        let prompt: Vec<String> = (request.messages.iter())
            .flat_map(|m| &m.content)
            .filter_map(|c| match c {
                SamplingContent::Text { text } => Some(text.to_uppercase()),
                _ => None,
            })
            .collect();
        let system = request.system_prompt.clone().unwrap_or_default();
        Ok(format!("{} [{system}]", prompt.join(" ")))
    })
}

/// Starts server-everything under `name` and waits until its conditional tools are listed.
async fn ready_everything(supervisor: &Supervisor, name: &str) {
    let mut events = supervisor.subscribe();
    let state = supervisor.start(everything(name)).await;
    assert!(matches!(state, ServerState::Ready { .. }), "{state:?}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !has_tool(supervisor, name, "trigger-sampling-request") {
        assert!(
            Instant::now() < deadline,
            "the conditional tools never came"
        );
        let _ = tokio::time::timeout(Duration::from_millis(500), events.recv()).await;
    }
}

fn has_tool(supervisor: &Supervisor, server: &str, tool: &str) -> bool {
    let tools = supervisor.tools_for(&[server.to_owned()]);
    tools.iter().any(|(_, t)| t.name == tool)
}

fn text_of(result: &ToolResult) -> String {
    let texts = result.content.iter().filter_map(|p| match p {
        ResultPart::Text { text } => Some(text.as_str()),
        _ => None,
    });
    texts.collect::<Vec<_>>().join("\n")
}

/// Calls `tool` in the background.
fn call(
    supervisor: &Supervisor,
    server: &str,
    tool: &str,
    args: Value,
) -> tokio::task::JoinHandle<Result<ToolResult, ToolError>> {
    let (supervisor, server, tool) = (supervisor.clone(), server.to_owned(), tool.to_owned());
    tokio::spawn(async move {
        let cancel = CancellationToken::new();
        supervisor.call(&server, &tool, args, cancel).await
    })
}

/// The next interaction event, within 20 s.
async fn next(events: &mut broadcast::Receiver<InteractionEvent>) -> InteractionEvent {
    let wait = tokio::time::timeout(Duration::from_secs(20), events.recv());
    wait.await.expect("no interaction event").unwrap()
}

#[tokio::test]
async fn a_client_without_a_host_advertises_nothing_and_gets_no_conditional_tools() {
    let (client, _rx) = super::connect(&super::everything_spec()).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for conditional in [
        "trigger-sampling-request",
        "get-roots-list",
        "trigger-url-elicitation",
    ] {
        assert!(!names.contains(&conditional), "{names:?}");
    }
    client.shutdown().await;
}

#[tokio::test]
async fn server_everything_sees_our_roots_as_file_uris_and_hears_when_they_change() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("alpha"), dir.path().join("beta two"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let supervisor = Supervisor::default();
    supervisor.roots().set(vec![a.clone()]);
    ready_everything(&supervisor, "roots").await;
    let first = call(&supervisor, "roots", "get-roots-list", json!({}))
        .await
        .unwrap()
        .unwrap();
    let first = text_of(&first);
    let uri_a = format!("file://{}", a.display());
    assert!(
        first.contains("(1 total)") && first.contains(&uri_a),
        "{first}"
    );
    assert!(first.contains("1. alpha"), "{first}");
    supervisor.set_roots(vec![a.clone(), b.clone()]).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let second = loop {
        let text = text_of(
            &call(&supervisor, "roots", "get-roots-list", json!({}))
                .await
                .unwrap()
                .unwrap(),
        );
        if text.contains("(2 total)") || Instant::now() > deadline {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        second.contains("file://") && second.contains("beta%20two"),
        "{second}"
    );
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn a_form_elicitation_reaches_the_user_and_the_validated_answer_reaches_the_server() {
    let supervisor = Supervisor::default();
    ready_everything(&supervisor, "forms").await;
    let mut events = supervisor.interactions().subscribe();
    let running = call(
        &supervisor,
        "forms",
        "trigger-elicitation-request",
        json!({}),
    );
    let InteractionEvent::ElicitationRequested {
        id,
        server,
        message,
        requested_schema,
    } = next(&mut events).await
    else {
        panic!("expected a form");
    };
    assert_eq!(server, "forms");
    assert_eq!(message, "Please provide inputs for the following fields:");
    assert_eq!(requested_schema["required"], json!(["name"]));
    let interactions = supervisor.interactions();
    let missing_name = InteractionAnswer::Accept {
        content: Some(json!({ "check": true })),
    };
    assert!(interactions.answer(&id, missing_name, &shout()).is_err());
    let answer = InteractionAnswer::Accept {
        content: Some(json!({ "name": "Ann Lee", "check": true, "integer": 7 })),
    };
    interactions.answer(&id, answer, &shout()).unwrap();
    let text = text_of(&running.await.unwrap().unwrap());
    assert!(
        text.contains("✅ User provided the requested information!"),
        "{text}"
    );
    assert!(
        text.contains("- Name: Ann Lee") && text.contains("- Favorite Integer: 7"),
        "{text}"
    );
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn a_url_elicitation_is_confirmed_or_declined_by_the_user() {
    let supervisor = Supervisor::default();
    ready_everything(&supervisor, "urls").await;
    let mut events = supervisor.interactions().subscribe();
    let args = json!({ "url": "https://example.com/authorize", "message": "Sign in please" });
    let running = call(&supervisor, "urls", "trigger-url-elicitation", args.clone());
    let InteractionEvent::ElicitationUrl {
        id, url, message, ..
    } = next(&mut events).await
    else {
        panic!("expected a URL request");
    };
    assert_eq!(
        (url.as_str(), message.as_str()),
        ("https://example.com/authorize", "Sign in please")
    );
    let accept = InteractionAnswer::Accept { content: None };
    supervisor
        .interactions()
        .answer(&id, accept, &shout())
        .unwrap();
    let text = text_of(&running.await.unwrap().unwrap());
    assert!(
        text.contains("✅ User completed the URL elicitation flow."),
        "{text}"
    );
    let _closed = next(&mut events).await;
    let running = call(&supervisor, "urls", "trigger-url-elicitation", args);
    let InteractionEvent::ElicitationUrl { id, .. } = next(&mut events).await else {
        panic!("expected a URL request");
    };
    supervisor
        .interactions()
        .answer(&id, InteractionAnswer::Decline, &shout())
        .unwrap();
    let text = text_of(&running.await.unwrap().unwrap());
    assert!(text.contains("❌ User declined to open the URL"), "{text}");
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn an_approved_sampling_request_is_answered_by_the_model_and_a_denied_one_is_an_error() {
    let supervisor = Supervisor::default();
    ready_everything(&supervisor, "sampling").await;
    let mut events = supervisor.interactions().subscribe();
    let args = json!({ "prompt": "tell a joke", "maxTokens": 42 });
    let running = call(
        &supervisor,
        "sampling",
        "trigger-sampling-request",
        args.clone(),
    );
    let InteractionEvent::SamplingRequested { id, request, .. } = next(&mut events).await else {
        panic!("expected a sampling request");
    };
    assert_eq!(request.max_tokens, 42);
    assert_eq!(
        request.system_prompt.as_deref(),
        Some("You are a helpful test server.")
    );
    assert_eq!(request.temperature, Some(0.7f32 as f64));
    supervisor
        .interactions()
        .answer(&id, InteractionAnswer::Approve, &shout())
        .unwrap();
    let text = text_of(&running.await.unwrap().unwrap());
    let json_start = text.find('{').unwrap();
    let result: Value = serde_json::from_str(&text[json_start..]).unwrap();
    assert_eq!(
        result,
        json!({
            "model": "shout-1",
            "stopReason": "endTurn",
            "role": "assistant",
            "content": {
                "type": "text",
                "text": "RESOURCE TRIGGER-SAMPLING-REQUEST CONTEXT: TELL A JOKE [You are a helpful test server.]"
            }
        })
    );
    let _closed = next(&mut events).await;
    let running = call(&supervisor, "sampling", "trigger-sampling-request", args);
    let InteractionEvent::SamplingRequested { id, .. } = next(&mut events).await else {
        panic!("expected a sampling request");
    };
    supervisor
        .interactions()
        .answer(&id, InteractionAnswer::Deny, &shout())
        .unwrap();
    let denied = running.await.unwrap().unwrap();
    assert!(denied.is_error, "{denied:?}");
    assert!(
        text_of(&denied).contains("the user rejected the sampling request"),
        "{denied:?}"
    );
    supervisor.shutdown_all().await;
}

#[tokio::test]
async fn stopping_a_server_cancels_its_waiting_request() {
    let supervisor = Supervisor::default();
    ready_everything(&supervisor, "stopping").await;
    let mut events = supervisor.interactions().subscribe();
    let running = call(
        &supervisor,
        "stopping",
        "trigger-elicitation-request",
        json!({}),
    );
    let InteractionEvent::ElicitationRequested { id, .. } = next(&mut events).await else {
        panic!("expected a form");
    };
    assert!(supervisor.stop("stopping").await);
    let closed = next(&mut events).await;
    assert_eq!(
        closed,
        InteractionEvent::Closed {
            id,
            server: "stopping".to_owned(),
            reason: crate::mcp::supervisor::interact::CloseReason::ServerStopped
        }
    );
    assert!(supervisor.interactions().waiting().is_empty());
    // The call ends either way: the server saw Cancel and answered, or the stop closed it.
    match running.await.unwrap() {
        Ok(result) => assert!(text_of(&result).contains("User cancelled"), "{result:?}"),
        Err(error) => assert!(matches!(error, ToolError::Mcp(_)), "{error:?}"),
    }
}
