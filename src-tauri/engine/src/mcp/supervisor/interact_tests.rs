//! The interaction broker on its own: requests published, answered, validated, timed out and
//! cancelled, with a sampler that answers from the request.

use std::time::Duration;

use serde_json::json;
use tokio::sync::broadcast;

use super::*;
use crate::mcp::client::interact_types::{
    SamplingContent, SamplingMessage, SamplingRole, StopReason,
};
use crate::mcp::supervisor::fake_sampler::FakeSampler;

/// A sampler that echoes the last text it was given, as model `echo-model`.
fn echo() -> FakeSampler {
    FakeSampler::new("echo-model", |request| {
        let last = request.messages.last().and_then(|m| m.content.first());
        match last {
            Some(SamplingContent::Text { text }) => Ok(format!("echo: {text}")),
            _ => Err("nothing to echo".to_owned()),
        }
    })
}

fn form() -> ElicitationRequest {
    ElicitationRequest::Form {
        message: "Who are you?".to_owned(),
        requested_schema: json!({
            "type": "object",
            "properties": {
                "name": { "type": "string" },
                "age": { "type": "integer", "minimum": 0 }
            },
            "required": ["name"]
        }),
    }
}

fn sampling(text: &str) -> SamplingRequest {
    SamplingRequest {
        messages: vec![SamplingMessage {
            role: SamplingRole::User,
            content: vec![SamplingContent::Text {
                text: text.to_owned(),
            }],
        }],
        system_prompt: None,
        max_tokens: 10,
        temperature: None,
        stop_sequences: vec![],
        model_hints: vec![],
    }
}

/// The next event's interaction id.
async fn next_id(events: &mut broadcast::Receiver<InteractionEvent>) -> String {
    match events.recv().await.unwrap() {
        InteractionEvent::SamplingRequested { id, .. }
        | InteractionEvent::ElicitationRequested { id, .. }
        | InteractionEvent::ElicitationUrl { id, .. }
        | InteractionEvent::ClientCallRequested { id, .. } => id,
        other => panic!("expected a request, got {other:?}"),
    }
}

#[tokio::test]
async fn a_form_answer_that_matches_the_schema_reaches_the_server_and_closes_the_request() {
    let broker = Interactions::default();
    let mut events = broker.subscribe();
    let waiting = tokio::spawn({
        let broker = broker.clone();
        async move { broker.elicit("srv", form()).await }
    });
    let first = events.recv().await.unwrap();
    let InteractionEvent::ElicitationRequested {
        id,
        server,
        message,
        requested_schema,
    } = first
    else {
        panic!("expected a form, got {first:?}");
    };
    assert_eq!((server.as_str(), message.as_str()), ("srv", "Who are you?"));
    assert_eq!(requested_schema["required"], json!(["name"]));
    let content = json!({ "name": "Ann", "age": 41 });
    let answer = InteractionAnswer::Accept {
        content: Some(content.clone()),
    };
    broker.answer(&id, answer, &echo()).unwrap();
    assert_eq!(
        waiting.await.unwrap(),
        ElicitationReply::Accept(Some(content))
    );
    assert_eq!(
        events.recv().await.unwrap(),
        InteractionEvent::Closed {
            id,
            server: "srv".to_owned(),
            reason: CloseReason::Answered
        }
    );
    assert!(broker.waiting().is_empty());
}

#[tokio::test]
async fn a_form_answer_that_breaks_the_schema_is_refused_and_the_request_keeps_waiting() {
    let broker = Interactions::default();
    let mut events = broker.subscribe();
    let waiting = tokio::spawn({
        let broker = broker.clone();
        async move { broker.elicit("srv", form()).await }
    });
    let id = next_id(&mut events).await;
    let bad = InteractionAnswer::Accept {
        content: Some(json!({ "age": -1 })),
    };
    let Err(InteractionError::Invalid { problems }) = broker.answer(&id, bad, &echo()) else {
        panic!("the bad answer was accepted");
    };
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("\"name\" is a required property"))
    );
    assert!(
        problems.iter().any(|p| p.starts_with("/age:")),
        "{problems:?}"
    );
    let wrong = broker.answer(&id, InteractionAnswer::Approve, &echo());
    assert_eq!(
        wrong,
        Err(InteractionError::WrongAnswer {
            answer: "approve",
            request: "an elicitation request"
        })
    );
    assert_eq!(broker.waiting(), vec![id.clone()]);
    broker
        .answer(&id, InteractionAnswer::Decline, &echo())
        .unwrap();
    assert_eq!(waiting.await.unwrap(), ElicitationReply::Decline);
    let again = broker.answer(&id, InteractionAnswer::Decline, &echo());
    assert_eq!(again, Err(InteractionError::Unknown { id }));
}

#[tokio::test]
async fn an_approved_sampling_request_runs_on_the_sampler_and_a_denied_one_is_refused() {
    let broker = Interactions::default();
    let mut events = broker.subscribe();
    let approved = tokio::spawn({
        let broker = broker.clone();
        async move { broker.sample("srv", sampling("hi")).await }
    });
    let id = next_id(&mut events).await;
    let cancel = InteractionAnswer::Cancel;
    assert!(matches!(
        broker.answer(&id, cancel, &echo()),
        Err(InteractionError::WrongAnswer { .. })
    ));
    broker
        .answer(&id, InteractionAnswer::Approve, &echo())
        .unwrap();
    let result = approved.await.unwrap().unwrap();
    assert_eq!(
        result,
        SamplingResult {
            model: "echo-model".to_owned(),
            text: "echo: hi".to_owned(),
            stop_reason: StopReason::EndTurn,
        }
    );
    let _closed = events.recv().await.unwrap();
    let denied = tokio::spawn({
        let broker = broker.clone();
        async move { broker.sample("srv", sampling("again")).await }
    });
    let id = next_id(&mut events).await;
    broker
        .answer(&id, InteractionAnswer::Deny, &echo())
        .unwrap();
    assert_eq!(denied.await.unwrap(), Err(SamplingRefused::Denied));
}

#[tokio::test]
async fn unanswered_requests_time_out_as_cancel_or_a_timeout_error() {
    let broker = Interactions::new(Duration::from_millis(50));
    let mut events = broker.subscribe();
    assert_eq!(broker.elicit("srv", form()).await, ElicitationReply::Cancel);
    let id = next_id(&mut events).await;
    assert_eq!(
        events.recv().await.unwrap(),
        InteractionEvent::Closed {
            id: id.clone(),
            server: "srv".to_owned(),
            reason: CloseReason::TimedOut
        }
    );
    let late = broker.answer(&id, InteractionAnswer::Cancel, &echo());
    assert_eq!(late, Err(InteractionError::Unknown { id }));
    let sampled = broker.sample("srv", sampling("hi")).await;
    assert_eq!(
        sampled,
        Err(SamplingRefused::TimedOut(Duration::from_millis(50)))
    );
}

#[tokio::test]
async fn a_stopping_server_cancels_only_its_own_requests() {
    let broker = Interactions::default();
    let mut events = broker.subscribe();
    let url = ElicitationRequest::Url {
        message: "Sign in".to_owned(),
        url: "https://example.com/login".to_owned(),
    };
    let mine = tokio::spawn({
        let broker = broker.clone();
        async move { broker.elicit("a", url).await }
    });
    let a_id = next_id(&mut events).await;
    let sampled = tokio::spawn({
        let broker = broker.clone();
        async move { broker.sample("a", sampling("x")).await }
    });
    let _sample_id = next_id(&mut events).await;
    let theirs = tokio::spawn({
        let broker = broker.clone();
        async move { broker.elicit("b", form()).await }
    });
    let b_id = next_id(&mut events).await;
    broker.cancel_server("a");
    assert_eq!(mine.await.unwrap(), ElicitationReply::Cancel);
    assert_eq!(sampled.await.unwrap(), Err(SamplingRefused::Cancelled));
    assert_eq!(broker.waiting(), vec![b_id.clone()]);
    let with_content = InteractionAnswer::Accept {
        content: Some(json!({})),
    };
    let _ = a_id;
    broker
        .answer(&b_id, InteractionAnswer::Cancel, &echo())
        .unwrap();
    assert_eq!(theirs.await.unwrap(), ElicitationReply::Cancel);
    assert!(matches!(
        check(
            &Waiting::Url {
                url: "https://example.com".to_owned(),
                reply: tokio::sync::oneshot::channel().0
            },
            &with_content
        ),
        Err(InteractionError::Invalid { .. })
    ));
}

#[tokio::test]
async fn an_accepted_url_request_names_the_url_to_open_and_a_non_web_url_is_declined_unasked() {
    let broker = Interactions::default();
    let mut events = broker.subscribe();
    let url = |u: &str| ElicitationRequest::Url {
        message: "Open".to_owned(),
        url: u.to_owned(),
    };
    for bad in ["file:///etc/passwd", "javascript:alert(1)", "not a url"] {
        assert_eq!(
            broker.elicit("srv", url(bad)).await,
            ElicitationReply::Decline
        );
    }
    assert!(
        events.try_recv().is_err(),
        "the user was asked about a non-web URL"
    );
    let waiting = tokio::spawn({
        let broker = broker.clone();
        async move { broker.elicit("srv", url("https://example.com/a?b=c")).await }
    });
    let id = next_id(&mut events).await;
    let accept = InteractionAnswer::Accept { content: None };
    let open = broker.answer(&id, accept, &echo()).unwrap();
    assert_eq!(open.as_deref(), Some("https://example.com/a?b=c"));
    assert_eq!(waiting.await.unwrap(), ElicitationReply::Accept(None));
}

fn client_call(tool: &str) -> ClientCall {
    ClientCall {
        client: "Cursor".to_owned(),
        can_always: true,
        server: "time".to_owned(),
        tool: tool.to_owned(),
        arguments: json!({"timezone": "Asia/Tokyo"}),
    }
}

#[tokio::test]
async fn an_apps_call_is_asked_in_the_window_naming_the_app_and_each_answer_is_its_own() {
    let broker = Interactions::default();
    let mut events = broker.subscribe();
    let answers = [
        (InteractionAnswer::Approve, ApprovalAnswer::AllowOnce),
        (
            InteractionAnswer::ApproveAlways,
            ApprovalAnswer::AllowAlways,
        ),
        (InteractionAnswer::Deny, ApprovalAnswer::Deny),
    ];
    for (given, expected) in answers {
        let asking = tokio::spawn({
            let broker = broker.clone();
            async move {
                broker
                    .ask_client_call(client_call("get_current_time"))
                    .await
            }
        });
        let event = events.recv().await.unwrap();
        let InteractionEvent::ClientCallRequested {
            id,
            client,
            tool,
            arguments,
            can_always,
            ..
        } = event
        else {
            panic!("{event:?}")
        };
        assert_eq!(
            (client.as_str(), tool.as_str()),
            ("Cursor", "get_current_time")
        );
        assert_eq!(arguments["timezone"], "Asia/Tokyo");
        assert!(can_always);
        let wrong = broker.answer(&id, InteractionAnswer::Decline, &echo());
        assert!(
            matches!(wrong, Err(InteractionError::WrongAnswer { .. })),
            "{wrong:?}"
        );
        broker.answer(&id, given, &echo()).unwrap();
        assert_eq!(asking.await.unwrap(), Some(expected));
        assert!(matches!(
            events.recv().await.unwrap(),
            InteractionEvent::Closed {
                reason: CloseReason::Answered,
                ..
            }
        ));
    }
}

#[tokio::test]
async fn an_apps_call_is_not_asked_without_a_window_and_an_unanswered_one_times_out() {
    let broker = Interactions::new(Duration::from_millis(100));
    assert_eq!(broker.ask_client_call(client_call("t")).await, None);
    assert!(broker.waiting().is_empty(), "nothing was opened");
    let mut events = broker.subscribe();
    assert_eq!(broker.ask_client_call(client_call("t")).await, None);
    next_id(&mut events).await;
    assert!(matches!(
        events.recv().await.unwrap(),
        InteractionEvent::Closed {
            reason: CloseReason::TimedOut,
            ..
        }
    ));
}

#[tokio::test]
async fn a_question_whose_asker_goes_away_is_withdrawn_from_the_window() {
    let broker = Interactions::default();
    let mut events = broker.subscribe();
    let asking = tokio::spawn({
        let broker = broker.clone();
        async move { broker.ask_client_call(client_call("t")).await }
    });
    let id = next_id(&mut events).await;
    assert_eq!(broker.waiting().len(), 1);
    asking.abort();
    let closed = tokio::time::timeout(Duration::from_secs(5), events.recv());
    let closed = closed.await.expect("no word that it closed").unwrap();
    assert_eq!(
        closed,
        InteractionEvent::Closed {
            id: id.clone(),
            server: "time".to_owned(),
            reason: CloseReason::Withdrawn,
        }
    );
    assert!(broker.waiting().is_empty());
    let late = broker.answer(&id, InteractionAnswer::Approve, &echo());
    assert!(
        matches!(late, Err(InteractionError::Unknown { .. })),
        "{late:?}"
    );
}
