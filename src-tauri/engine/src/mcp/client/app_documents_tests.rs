//! Unit tests of the MCP Apps declarations, the frame CSP and the view registry.

use serde_json::{Map, Value, json};

use super::*;

fn meta(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn a_tool_ui_is_read_from_meta_ui_or_the_legacy_flat_key_and_defaults_to_both_audiences() {
    let ui = ToolUi::from_meta(Some(&meta(json!({"ui": {"resourceUri": "ui://a/b.html"}}))));
    assert_eq!(
        ui,
        Some(ToolUi {
            resource_uri: Some("ui://a/b.html".into()),
            visibility: vec![Visibility::Model, Visibility::App],
        })
    );
    let legacy = ToolUi::from_meta(Some(&meta(json!({"ui/resourceUri": "ui://x"}))));
    assert_eq!(legacy.unwrap().resource_uri.as_deref(), Some("ui://x"));
    let app_only = ToolUi::from_meta(Some(&meta(json!({"ui": {"visibility": ["app"]}}))));
    assert_eq!(
        app_only,
        Some(ToolUi {
            resource_uri: None,
            visibility: vec![Visibility::App],
        })
    );
    assert_eq!(ToolUi::from_meta(Some(&meta(json!({"other": 1})))), None);
    assert_eq!(ToolUi::from_meta(None), None);
}

#[test]
fn visibility_decides_who_may_call_a_tool() {
    let only = |v: Vec<Visibility>| ToolUi {
        resource_uri: None,
        visibility: v,
    };
    assert!(visible_to_model(None) && visible_to_apps(None));
    let app = only(vec![Visibility::App]);
    assert!(!visible_to_model(Some(&app)) && visible_to_apps(Some(&app)));
    let model = only(vec![Visibility::Model]);
    assert!(visible_to_model(Some(&model)) && !visible_to_apps(Some(&model)));
}

#[test]
fn the_extension_advertises_the_app_mime_type() {
    let caps = serde_json::to_value(extension_capabilities()).unwrap();
    assert_eq!(
        caps,
        json!({"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}})
    );
}

#[test]
fn an_app_without_declared_domains_may_reach_nothing() {
    assert_eq!(
        csp_header(&AppCsp::default()),
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
         img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; \
         frame-src 'none'; base-uri 'none'; form-action 'none'; object-src 'none'; \
         worker-src 'none'"
    );
}

#[test]
fn the_artifact_browser_test_serves_its_frames_with_this_same_policy() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../ui/browser/artifact-chromium.mjs");
    let script = std::fs::read_to_string(script).unwrap();
    for directive in csp_header(&AppCsp::default()).split("; ") {
        assert!(script.contains(&format!("\"{directive}\",")), "{directive}");
    }
}

#[test]
fn declared_domains_are_allowed_and_nothing_wider() {
    let csp = AppCsp {
        connect_domains: vec![
            "https://api.example.com".into(),
            "wss://rt.example.com".into(),
        ],
        resource_domains: vec!["https://*.cdn.example".into()],
        frame_domains: vec!["https://www.youtube.com".into()],
        base_uri_domains: vec![],
    };
    assert_eq!(
        csp_header(&csp),
        "default-src 'none'; script-src 'unsafe-inline' https://*.cdn.example; \
         style-src 'unsafe-inline' https://*.cdn.example; img-src data: blob: https://*.cdn.example; \
         font-src data: https://*.cdn.example; media-src data: blob: https://*.cdn.example; \
         connect-src https://api.example.com wss://rt.example.com; frame-src https://www.youtube.com; \
         base-uri 'none'; form-action 'none'; object-src 'none'; worker-src 'none'"
    );
}

#[test]
fn keywords_wildcards_injections_and_the_ipc_hosts_are_dropped_from_declared_domains() {
    let bad = [
        "*",
        "'unsafe-eval'",
        "ipc://localhost",
        "ipc:",
        "http://ipc.localhost",
        "https://*.localhost",
        "tauri://localhost",
        "mcpapp://localhost",
        "https://a.com; script-src *",
        "https://a.com,https://b.com",
        "data:",
        "https://",
        "javascript:alert(1)",
    ];
    for source in bad {
        assert!(!valid_source(source), "{source} was accepted");
    }
    for source in ["https://a.com", "https://*.b.org/path", "wss://c.io"] {
        assert!(valid_source(source), "{source} was refused");
    }
    let csp = AppCsp {
        connect_domains: bad.iter().map(|s| s.to_string()).collect(),
        ..AppCsp::default()
    };
    assert!(csp_header(&csp).contains("connect-src 'none';"));
}

#[test]
fn the_app_mime_type_is_recognised_whatever_the_spacing_and_case() {
    assert!(is_app_mime(Some("text/html;profile=mcp-app")));
    assert!(is_app_mime(Some("text/HTML; profile=mcp-app")));
    assert!(!is_app_mime(Some("text/html")));
    assert!(!is_app_mime(Some("text/plain;profile=mcp-app")));
    assert!(!is_app_mime(None));
}

#[test]
fn resource_meta_gives_the_csp_and_border_preference() {
    let m =
        meta(json!({"ui": {"csp": {"connectDomains": ["https://a.com"]}, "prefersBorder": false}}));
    let (csp, border) = resource_meta(Some(&m));
    assert_eq!(csp.connect_domains, vec!["https://a.com".to_owned()]);
    assert_eq!(border, Some(false));
    assert_eq!(resource_meta(None), (AppCsp::default(), None));
}

#[test]
fn a_view_is_served_by_its_token_until_released_and_the_registry_is_bounded() {
    let views = AppViews::default();
    let token = views.register("<p>hi</p>", &AppCsp::default());
    let doc = views.get(&token).unwrap();
    assert_eq!(&*doc.html, "<p>hi</p>");
    assert_eq!(doc.csp, csp_header(&AppCsp::default()));
    views.release(&token);
    assert!(matches!(
        views.get(&token),
        Err(AppError::UnknownView { .. })
    ));
    let first = views.register("first", &AppCsp::default());
    for _ in 0..MAX_VIEWS {
        views.register("more", &AppCsp::default());
    }
    assert!(
        views.get(&first).is_err(),
        "the oldest view was not dropped"
    );
}
