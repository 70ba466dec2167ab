//! The MCP Registry end to end: a registry on 127.0.0.1 serving recorded entries
//! (`tests/fixtures/registry/`, sources in its README) with the API's search and cursor
//! paging; the engine's search, cached listing, install form and plans
//! ([`engine`]), and the `switchboard servers search|install|update` commands installing npm's
//! server-everything from it ([`cli`]).

mod cli;
mod engine;
mod runtimes;

use std::collections::HashMap;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path as UrlPath, Query};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

/// Entries per page of the test registry.
pub(super) const PAGE: usize = 3;

/// The recorded entries of `tests/fixtures/registry/<file>`.
fn recorded_in(file: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/registry/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn recorded() -> Vec<Value> {
    recorded_in("servers.json")
}

fn is_latest(item: &Value) -> bool {
    item["_meta"]["io.modelcontextprotocol.registry/official"]["isLatest"] == json!(true)
}

/// `GET /v0/servers`: `search` (substring of the name), `version=latest`, `cursor` (the
/// name of the last entry of the previous page), `limit` (at most [`PAGE`]).
async fn list(q: Query<HashMap<String, String>>) -> Response {
    list_of(recorded(), q)
}

fn list_of(entries: Vec<Value>, Query(q): Query<HashMap<String, String>>) -> Response {
    let search = q.get("search").cloned().unwrap_or_default();
    let latest = q.get("version").is_some_and(|v| v == "latest");
    let limit: usize = q.get("limit").and_then(|l| l.parse().ok()).unwrap_or(PAGE);
    let items: Vec<Value> = entries
        .into_iter()
        .filter(|i| i["server"]["name"].as_str().unwrap().contains(&search))
        .filter(|i| !latest || is_latest(i))
        .collect();
    let start = match q.get("cursor") {
        Some(c) => {
            items
                .iter()
                .position(|i| i["server"]["name"] == json!(c))
                .unwrap()
                + 1
        }
        None => 0,
    };
    let page: Vec<Value> = items
        .iter()
        .skip(start)
        .take(limit.min(PAGE))
        .cloned()
        .collect();
    let more = start + page.len() < items.len();
    let mut metadata = json!({"count": page.len()});
    if more {
        metadata["nextCursor"] = page.last().unwrap()["server"]["name"].clone();
    }
    axum::Json(json!({"servers": page, "metadata": metadata})).into_response()
}

/// `GET /v0/servers/{name}/versions/{version}` (`latest` allowed).
async fn one(path: UrlPath<(String, String)>) -> Response {
    one_of(recorded(), path)
}

fn one_of(entries: Vec<Value>, UrlPath((name, version)): UrlPath<(String, String)>) -> Response {
    let found = entries.into_iter().find(|i| {
        i["server"]["name"] == json!(name)
            && (i["server"]["version"] == json!(version) || (version == "latest" && is_latest(i)))
    });
    match found {
        Some(item) => axum::Json(item).into_response(),
        None => (StatusCode::NOT_FOUND, "{\"error\":\"Server not found\"}").into_response(),
    }
}

/// A registry on 127.0.0.1; its base URLs: `/ok` (the recorded entries), `/runtimes` (those
/// of `runtimes.json`: an npm and a PyPI server), `/malformed` (JSON of another shape), `/huge`
/// (5 MiB), `/slow` (answers after 5 s).
pub(super) async fn registry() -> String {
    let ok = Router::new()
        .route("/v0/servers", get(list))
        .route("/v0/servers/{name}/versions/{version}", get(one));
    let runtimes = Router::new()
        .route(
            "/v0/servers",
            get(|q| async { list_of(recorded_in("runtimes.json"), q) }),
        )
        .route(
            "/v0/servers/{name}/versions/{version}",
            get(|p| async { one_of(recorded_in("runtimes.json"), p) }),
        );
    let app = Router::new()
        .nest("/ok", ok)
        .nest("/runtimes", runtimes)
        .route(
            "/malformed/v0/servers",
            get(|| async { "{\"servers\": 42}" }),
        )
        .route(
            "/huge/v0/servers",
            get(|| async { format!("{{\"servers\": [], \"pad\": \"{}\"}}", "x".repeat(5 << 20)) }),
        )
        .route(
            "/slow/v0/servers",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                "{\"servers\": []}"
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}
