//! The origins an MCP App may declare for its frame's CSP: the app's IPC hosts in any spelling,
//! and local or private hosts (Ollama on 11434, the cloud metadata address, the LAN) are
//! refused unless the user allowed private addresses for the App's server.

use switchboard_engine::mcp::{AppCsp, AppViews, csp_header, valid_source, valid_source_allowing};

/// The eight hostile sources of issue 17.
const HOSTILE: [&str; 8] = [
    "http://IPC.LOCALHOST",
    "http://ipc.localhost.",
    "http://localhost:11434",
    "http://127.0.0.1:11434",
    "http://[::1]:11434",
    "http://169.254.169.254",
    "http://10.0.0.1",
    "http://192.168.1.1",
];

#[test]
fn the_eight_hostile_csp_sources_are_refused() {
    let accepted: Vec<&str> = HOSTILE.into_iter().filter(|s| valid_source(s)).collect();
    assert!(accepted.is_empty(), "accepted: {accepted:?}");
}

#[test]
fn hostile_sources_never_reach_the_served_csp() {
    let csp = AppCsp {
        connect_domains: HOSTILE.iter().map(|s| (*s).to_owned()).collect(),
        resource_domains: HOSTILE.iter().map(|s| (*s).to_owned()).collect(),
        frame_domains: HOSTILE.iter().map(|s| (*s).to_owned()).collect(),
        base_uri_domains: HOSTILE.iter().map(|s| (*s).to_owned()).collect(),
    };
    let header = csp_header(&csp);
    assert!(header.contains("connect-src 'none';"), "{header}");
    assert!(header.contains("frame-src 'none';"), "{header}");
    let lower = header.to_ascii_lowercase();
    for needle in [
        "localhost",
        "127.0.0.1",
        "11434",
        "169.254",
        "10.0.0.1",
        "192.168",
    ] {
        assert!(!lower.contains(needle), "{needle} in {header}");
    }
}

#[test]
fn other_spellings_of_local_hosts_are_refused_too() {
    for source in [
        "http://LocalHost:8080",
        "https://*.LOCALHOST",
        "http://tauri.localhost.",
        "http://0x7f.1:11434",
        "http://2130706433",
        "http://172.16.0.1",
        "http://100.64.0.1",
        "ws://127.1",
    ] {
        assert!(!valid_source(source), "{source} was accepted");
    }
}

#[test]
fn private_hosts_are_kept_when_allowed_for_the_server_but_the_ipc_hosts_never_are() {
    for source in [
        "http://localhost:11434",
        "http://10.0.0.1",
        "http://127.0.0.1:8080",
    ] {
        assert!(valid_source_allowing(source, true), "{source} was refused");
    }
    for source in [
        "http://IPC.LOCALHOST",
        "http://ipc.localhost.",
        "http://tauri.localhost",
    ] {
        assert!(
            !valid_source_allowing(source, true),
            "{source} was accepted"
        );
    }
    let views = AppViews::default();
    let csp = AppCsp {
        connect_domains: vec!["http://127.0.0.1:8080".to_owned()],
        ..AppCsp::default()
    };
    let strict = views.get(&views.register("<p>", &csp)).unwrap();
    assert!(strict.csp.contains("connect-src 'none';"), "{}", strict.csp);
    let allowed = views
        .get(&views.register_allowing("<p>", &csp, true))
        .unwrap();
    assert!(
        allowed.csp.contains("connect-src http://127.0.0.1:8080;"),
        "{}",
        allowed.csp
    );
}

#[test]
fn public_origins_are_still_accepted() {
    for source in [
        "https://a.com",
        "https://CDN.Example.org.",
        "wss://c.io",
        "https://*.b.org/x",
    ] {
        assert!(valid_source(source), "{source} was refused");
    }
}

#[test]
fn allow_private_is_read_kept_and_exported_for_remote_servers() {
    let doc = r#"{"mcpServers": {"lan": {"url": "https://mcp.example.com/mcp", "allowPrivate": true},
        "web": {"url": "https://mcp.example.com/mcp"}}}"#;
    let configs = switchboard_engine::mcp::parse_config(doc).unwrap();
    let flags: Vec<(&str, bool)> = configs
        .iter()
        .map(|c| (c.name.as_str(), c.allows_private()))
        .collect();
    assert_eq!(flags, [("lan", true), ("web", false)]);
    let exported = switchboard_engine::mcp::export_config(&configs);
    let again = switchboard_engine::mcp::parse_config(&exported).unwrap();
    assert_eq!(again, configs);
}
