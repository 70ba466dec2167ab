//! Provider adapters over real HTTP on 127.0.0.1: the seeds' captured exchanges replayed, the
//! request bodies asserted, and the fault matrix for every wire format.

mod bodies;
pub(super) mod fake;
mod faults;
mod replay;
mod service;
mod settings;

use std::time::Duration;

use futures::StreamExt;
use secrecy::SecretString;
use switchboard_engine::provider::{
    ChatRequest, Endpoint, HttpOptions, HttpProvider, Provider, ProviderError, ProviderEvent,
    ProviderKind,
};

/// A provider of `kind` at `url`, with short timeouts and no retries unless asked.
fn provider(kind: ProviderKind, url: &str, key: Option<&str>, attempts: u32) -> HttpProvider {
    let endpoint = Endpoint {
        kind,
        base_url: url.to_owned(),
        headers: Default::default(),
        strict_tools: false,
    };
    let options = HttpOptions {
        connect_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_millis(400),
        attempts,
        backoff: Duration::from_millis(10),
        max_retry_after: Duration::from_secs(30),
    };
    HttpProvider::new(
        endpoint,
        key.map(|k| SecretString::from(k.to_owned())),
        options,
    )
    .unwrap()
}

/// Every event until the end or the first error, and that error.
async fn run(p: &HttpProvider, req: ChatRequest) -> (Vec<ProviderEvent>, Option<ProviderError>) {
    let mut stream = match p.stream(req).await {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(ev) => events.push(ev),
            Err(e) => return (events, Some(e)),
        }
    }
    (events, None)
}

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/providers/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn fixture_json(name: &str) -> serde_json::Value {
    serde_json::from_slice(&fixture(name)).unwrap()
}
