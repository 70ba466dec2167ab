//! Finds a local Ollama for onboarding: one `GET /api/tags` on 127.0.0.1:11434 with a short
//! timeout and no proxy. Anything but a well-formed answer means "not found" (this is a hint
//! to the user, never an error).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where Ollama listens by default (also the `ollama` preset's base URL).
pub const OLLAMA_URL: &str = "http://127.0.0.1:11434";

/// How long the probe waits for the whole answer.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(800);

/// A running Ollama and the models it has pulled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LocalOllama {
    /// Its base URL.
    pub base_url: String,
    /// The names of its models (e.g. `llama3.2:1b`), as listed.
    pub models: Vec<String>,
}

/// The part of `/api/tags` we read.
#[derive(Deserialize)]
struct Tags {
    models: Vec<Tag>,
}

#[derive(Deserialize)]
struct Tag {
    name: String,
}

/// Asks `base_url` for its models; `None` unless it answers like Ollama within `timeout`.
pub async fn probe(base_url: &str, timeout: Duration) -> Option<LocalOllama> {
    let url = format!("{}/api/tags", base_url.trim_end_matches('/'));
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(timeout)
        .build()
        .ok()?;
    let answer = async {
        let response = client.get(&url).send().await?.error_for_status()?;
        response.json::<Tags>().await
    };
    match answer.await {
        Ok(tags) => Some(LocalOllama {
            base_url: base_url.to_owned(),
            models: tags.models.into_iter().map(|t| t.name).collect(),
        }),
        Err(e) => {
            tracing::debug!(error = %e, url, "no local Ollama");
            None
        }
    }
}

/// A local Ollama on 127.0.0.1:11434, if one answers within [`PROBE_TIMEOUT`].
pub async fn detect() -> Option<LocalOllama> {
    probe(OLLAMA_URL, PROBE_TIMEOUT).await
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    /// A one-request HTTP server on 127.0.0.1 answering with `status` and `body`, or
    /// never answering when `status` is 0; it stops after the request.
    async fn serve_once(status: u16, body: &'static str) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            socket.set_nodelay(true).unwrap();
            let mut request = vec![0u8; 4096];
            let n = socket.read(&mut request).await.unwrap();
            assert!(String::from_utf8_lossy(&request[..n]).starts_with("GET /api/tags HTTP/1.1"));
            if status == 0 {
                // Hold the connection open without answering until the client gives up.
                let _ = socket.read(&mut request).await;
                return;
            }
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(head.as_bytes()).await.unwrap();
            socket.write_all(body.as_bytes()).await.unwrap();
        });
        url
    }

    const TAGS: &str = r#"{"models":[{"name":"llama3.2:1b","model":"llama3.2:1b","size":1321098329,"digest":"baf6a787fdff","details":{"family":"llama"}},{"name":"qwen3:0.6b","model":"qwen3:0.6b"}]}"#;

    #[tokio::test]
    async fn an_ollama_answering_api_tags_is_found_with_its_models() {
        let url = serve_once(200, TAGS).await;
        assert_eq!(
            probe(&url, Duration::from_secs(5)).await,
            Some(LocalOllama {
                base_url: url.clone(),
                models: vec!["llama3.2:1b".into(), "qwen3:0.6b".into()],
            })
        );
    }

    #[tokio::test]
    async fn an_ollama_without_models_is_found_with_an_empty_list() {
        let url = serve_once(200, r#"{"models":[]}"#).await;
        let found = probe(&url, Duration::from_secs(5)).await;
        assert_eq!(found.map(|f| f.models), Some(vec![]));
    }

    #[tokio::test]
    async fn a_server_that_is_not_ollama_is_not_found() {
        let url = serve_once(404, r#"{"error":"not found"}"#).await;
        assert_eq!(probe(&url, Duration::from_secs(5)).await, None);
        let url = serve_once(200, "<html>a router's login page</html>").await;
        assert_eq!(probe(&url, Duration::from_secs(5)).await, None);
    }

    #[tokio::test]
    async fn a_closed_port_is_not_found() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        drop(listener);
        assert_eq!(probe(&url, Duration::from_secs(5)).await, None);
    }

    #[tokio::test]
    async fn a_server_that_never_answers_is_given_up_on() {
        let url = serve_once(0, "").await;
        assert_eq!(probe(&url, Duration::from_millis(300)).await, None);
    }
}
