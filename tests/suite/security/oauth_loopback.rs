//! The OAuth loopback listener: a callback with the wrong `state` (any local process or web
//! page can send one) neither completes nor denies the sign-in; the listener keeps waiting and
//! the right callback completes it, until the timeout.

use std::time::Duration;

use switchboard_engine::mcp::Loopback;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// GETs `target` from the listener at `redirect_uri`'s port; returns the status line.
async fn get(redirect_uri: &str, target: &str) -> String {
    let url = url::Url::parse(redirect_uri).unwrap();
    let port = url.port().unwrap();
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let request = format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_wrong_state_callback_sent_first_is_ignored_and_the_right_one_completes_the_sign_in() {
    let listener = Loopback::bind().await.unwrap();
    let redirect = listener.redirect_uri();
    let waiting = tokio::spawn(async move {
        listener
            .callback_for(Duration::from_secs(10), Some("the-real-state"))
            .await
    });
    let forged = get(&redirect, "/callback?code=attacker&state=forged").await;
    assert!(forged.contains("400"), "{forged}");
    let denial = get(&redirect, "/callback?error=access_denied&state=forged").await;
    assert!(denial.contains("400"), "{denial}");
    assert!(!waiting.is_finished(), "a forged callback ended the wait");
    let real = get(&redirect, "/callback?code=good&state=the-real-state").await;
    assert!(real.contains("200"), "{real}");
    let url = waiting.await.unwrap().unwrap();
    assert!(
        url.ends_with("/callback?code=good&state=the-real-state"),
        "{url}"
    );
}

#[tokio::test]
async fn without_the_right_state_the_wait_ends_at_its_timeout() {
    let listener = Loopback::bind().await.unwrap();
    let redirect = listener.redirect_uri();
    let waiting = tokio::spawn(async move {
        listener
            .callback_for(Duration::from_millis(500), Some("the-real-state"))
            .await
    });
    get(&redirect, "/callback?code=attacker&state=forged").await;
    let outcome = waiting.await.unwrap();
    assert!(outcome.is_err(), "{outcome:?}");
}
