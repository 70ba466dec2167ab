//! The engine against the test registry: search and cursor paging, the cached listing kept
//! through malformed, huge and slow answers, the install form built from an entry's
//! variables and arguments, and plans pinned to the entry's version.

use std::collections::BTreeMap;

use serde_json::json;
use switchboard_engine::mcp::{InstallRequest, install_options};
use switchboard_engine::vocab::server::Transport;

use super::{PAGE, registry};
use crate::suite::servers::engine;

fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).into(), (*v).into()))
        .collect()
}

#[tokio::test]
async fn a_search_pages_by_cursor_and_finds_entries_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let base = format!("{}/ok", registry().await);
    let mcp = engine.installer();
    let first = mcp.registry_search("", None, Some(&base)).await.unwrap();
    assert_eq!(first.entries.len(), PAGE);
    assert_eq!(
        first.entries[0].name,
        "io.github.modelcontextprotocol/server-everything"
    );
    assert_eq!(
        first.entries[0].version, "2026.8.31",
        "version=latest leaves 2026.8.30 out"
    );
    let cursor = first.next_cursor.clone().expect("a second page");
    let second = mcp
        .registry_search("", Some(&cursor), Some(&base))
        .await
        .unwrap();
    assert_eq!(second.entries.len(), PAGE);
    assert_eq!(second.entries[0].name, "io.github.example/database-manager");
    assert!(second.next_cursor.is_none(), "the last page has no cursor");

    let found = mcp
        .registry_search("weather", None, Some(&base))
        .await
        .unwrap();
    let names: Vec<_> = found.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["io.github.example/weather-mcp"]);
    let weather = &found.entries[0];
    assert_eq!(weather.status.as_deref(), Some("active"));
    assert_eq!(weather.transports(), ["stdio"]);
    assert_eq!(
        weather.repository.as_ref().unwrap().url,
        "https://github.com/example/weather-mcp"
    );
}

#[tokio::test]
async fn a_malformed_huge_or_slow_answer_is_a_clear_error_and_the_cached_listing_stays() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let base = registry().await;
    let mcp = engine.installer();
    assert!(mcp.cached_registry_listing().await.unwrap().is_none());
    let ok = format!("{base}/ok");
    mcp.registry_search("brave", None, Some(&ok)).await.unwrap();
    engine
        .store()
        .set_setting("mcp.registry_timeout_ms", &json!(500))
        .await
        .unwrap();
    let cases = [
        ("malformed", "sent an answer that is not a server listing"),
        (
            "huge",
            "sent more than 4194304 bytes; the last listing is kept",
        ),
        (
            "slow",
            "did not answer within 1 s; the last listing is kept",
        ),
    ];
    for (path, message) in cases {
        let url = format!("{base}/{path}");
        let error = mcp.registry_search("", None, Some(&url)).await.unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains(message) && text.contains(&url),
            "{path}: {text}"
        );
        let cached = mcp.cached_registry_listing().await.unwrap().unwrap();
        assert!(cached.cached);
        assert_eq!(
            cached.registry, ok,
            "{path} left the cached listing as it was"
        );
        assert_eq!(
            cached.entries[0].name,
            "io.modelcontextprotocol/brave-search"
        );
    }
}

#[tokio::test]
async fn the_install_form_is_built_from_the_entrys_variables_and_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let ok = format!("{}/ok", registry().await);
    let mcp = engine.installer();
    let db = (mcp.registry_entry("io.github.example/database-manager", None, Some(&ok)))
        .await
        .unwrap();
    let options = install_options(&db);
    assert_eq!(options.len(), 1);
    let fields: Vec<_> = (options[0].fields.iter())
        .map(|f| (f.key.as_str(), f.target.as_str(), f.required, f.secret))
        .collect();
    assert_eq!(
        fields,
        [
            ("db_type", "argument", true, false),
            ("host", "argument", true, false),
            ("port", "argument", false, false),
            ("database_name", "argument", true, false),
            ("DB_USERNAME", "env", true, false),
            ("DB_PASSWORD", "env", true, true),
            ("SSL_MODE", "env", false, false),
        ]
    );
    assert_eq!(
        options[0].fields[0].choices,
        ["postgres", "mysql", "mongodb", "redis"]
    );
    assert_eq!(options[0].fields[6].default.as_deref(), Some("prefer"));

    let missing = InstallRequest::default();
    let error = mcp
        .plan_registry_install(&db, &missing, Some(&ok))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "db_type is required; database_name is required; DB_USERNAME is required; DB_PASSWORD is required"
    );
    let request = InstallRequest {
        values: values(&[
            ("db_type", "postgres"),
            ("database_name", "shop"),
            ("DB_USERNAME", "ann"),
            ("DB_PASSWORD", "hunter2-secret"),
        ]),
        ..Default::default()
    };
    let plan = mcp
        .plan_registry_install(&db, &request, Some(&ok))
        .await
        .unwrap();
    assert_eq!(plan.command.as_deref(), Some("docker"));
    assert_eq!(
        plan.args,
        [
            "run",
            "-i",
            "--rm",
            "--network",
            "host",
            "-e",
            "DB_TYPE=postgres",
            "-e",
            "DB_PASSWORD",
            "-e",
            "DB_USERNAME",
            "-e",
            "SSL_MODE",
            "example/database-manager-mcp:3.1.0",
            "--host",
            "localhost",
            "shop"
        ]
    );
    assert_eq!(plan.env_names, ["DB_PASSWORD", "DB_USERNAME", "SSL_MODE"]);
    assert!(
        !serde_json::to_string(&plan).unwrap().contains("hunter2"),
        "values are masked"
    );
    assert_eq!(plan.runtime.as_ref().unwrap().program, "docker");

    let wrong = InstallRequest {
        values: values(&[("db_type", "oracle"), ("TYPO", "1")]),
        ..request.clone()
    };
    let error = mcp
        .plan_registry_install(&db, &wrong, Some(&ok))
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("db_type must be one of: postgres, mysql, mongodb, redis (not \"oracle\")"),
        "{text}"
    );
    assert!(text.contains("asks for no value named TYPO"), "{text}");
}

#[tokio::test]
async fn plans_are_pinned_to_the_entrys_version_for_npm_pypi_and_remotes() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let ok = format!("{}/ok", registry().await);
    let mcp = engine.installer();
    let entry = |name: &'static str| {
        let ok = ok.clone();
        let mcp = mcp.clone();
        async move { mcp.registry_entry(name, None, Some(&ok)).await.unwrap() }
    };
    let everything = entry("io.github.modelcontextprotocol/server-everything").await;
    let plan = (mcp.plan_registry_install(&everything, &InstallRequest::default(), Some(&ok)))
        .await
        .unwrap();
    assert_eq!(plan.server_name, "server-everything");
    assert_eq!(plan.command.as_deref(), Some("npx"));
    assert_eq!(
        plan.args,
        ["-y", "@modelcontextprotocol/server-everything@2026.8.31"]
    );

    let weather = entry("io.github.example/weather-mcp").await;
    let request = InstallRequest {
        values: values(&[("WEATHER_API_KEY", "k-123456789")]),
        ..Default::default()
    };
    let plan = mcp
        .plan_registry_install(&weather, &request, Some(&ok))
        .await
        .unwrap();
    assert_eq!(plan.command.as_deref(), Some("uvx"));
    assert_eq!(plan.args, ["weather-mcp-server==0.5.0"]);
    assert_eq!(plan.env_names, ["WEATHER_API_KEY", "WEATHER_UNITS"]);
    let runtime = plan.runtime.unwrap();
    assert_eq!(runtime.program, "uvx");
    assert!(runtime.hint.contains("install uv"), "{}", runtime.hint);

    let hybrid = entry("io.modelcontextprotocol.anonymous/hybrid-mcp").await;
    let request = InstallRequest {
        option: Some("remote:0".into()),
        values: values(&[("X-API-Key", "key-abcdefgh")]),
        ..Default::default()
    };
    let plan = mcp
        .plan_registry_install(&hybrid, &request, Some(&ok))
        .await
        .unwrap();
    assert_eq!(
        plan.url.as_deref(),
        Some("https://mcp.anonymous.modelcontextprotocol.io/sse")
    );
    assert_eq!(plan.header_names, ["X-API-Key", "X-Region"]);
    assert!(matches!(plan.config.transport, Transport::Sse { .. }));
    assert!(plan.runtime.is_none());

    let editor = entry("io.modelcontextprotocol/text-editor").await;
    let error = (mcp.plan_registry_install(&editor, &InstallRequest::default(), Some(&ok)))
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("install it as a bundle"),
        "{error}"
    );
}
