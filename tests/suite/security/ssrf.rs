//! The address classifier behind the fetch server's SSRF guard and the OAuth endpoints a
//! server chooses: each range issue 17 named is not public, directly and in the IPv6 forms that
//! carry a private IPv4 address; and the fetch built-in refuses them before connecting.

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_engine::mcp::BuiltinServer;
use switchboard_engine::mcp::{IgnoreNotifications, McpClient};
use switchboard_engine::netguard::{is_local_host, is_public};
use switchboard_engine::vocab::mcp::ResultPart;
use tokio_util::sync::CancellationToken;

fn public(ip: &str) -> bool {
    is_public(ip.parse().unwrap())
}

fn assert_not_public(ips: &[&str]) {
    let public: Vec<&&str> = ips.iter().filter(|ip| public(ip)).collect();
    assert!(public.is_empty(), "counted as public: {public:?}");
}

#[test]
fn ipv4_compatible_addresses_of_private_v4_are_not_public() {
    assert_not_public(&[
        "::127.0.0.1",
        "::10.0.0.1",
        "::192.168.1.1",
        "::169.254.169.254",
    ]);
}

#[test]
fn ipv4_mapped_addresses_of_private_v4_are_not_public() {
    assert_not_public(&["::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:198.18.0.1"]);
}

#[test]
fn nat64_addresses_of_private_v4_are_not_public() {
    assert_not_public(&["64:ff9b::7f00:1", "64:ff9b::10.0.0.1", "64:ff9b::a9fe:a9fe"]);
}

#[test]
fn six_to_four_addresses_of_private_v4_are_not_public() {
    assert_not_public(&["2002:7f00:0001::1", "2002:0a00:0001::", "2002:c0a8:0101::1"]);
}

#[test]
fn site_local_ipv6_addresses_are_not_public() {
    assert_not_public(&["fec0::1", "feff:ffff::1", "fed0::10"]);
}

#[test]
fn the_benchmarking_range_is_not_public() {
    assert_not_public(&["198.18.0.1", "198.19.255.254"]);
    assert!(public("198.20.0.1"));
}

#[test]
fn the_reserved_class_e_range_is_not_public() {
    assert_not_public(&["240.0.0.1", "250.1.2.3", "255.255.255.254"]);
}

#[test]
fn hosts_naming_these_ranges_are_local() {
    for host in [
        "[::ffff:10.0.0.1]",
        "[64:ff9b::7f00:1]",
        "[fec0::1]",
        "198.18.0.1",
        "240.0.0.1",
    ] {
        assert!(is_local_host(host), "{host}");
    }
}

async fn fetch(client: &McpClient, url: &str) -> String {
    let args = json!({ "url": url });
    let Value::Object(args) = args else {
        unreachable!()
    };
    let cancel = CancellationToken::new();
    let result = client
        .call_tool("fetch", args, Duration::from_secs(20), cancel)
        .await
        .unwrap();
    assert!(result.is_error, "{url} was fetched");
    result
        .content
        .iter()
        .map(|part| match part {
            ResultPart::Text { text } => text.clone(),
            _ => String::new(),
        })
        .collect()
}

#[tokio::test]
async fn the_fetch_server_refuses_every_new_range_before_connecting() {
    let server = BuiltinServer::Fetch {
        allow_private: false,
    };
    let client = McpClient::connect(&server.spec(), IgnoreNotifications)
        .await
        .unwrap();
    for url in [
        "http://[::127.0.0.1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[2002:7f00:1::1]/",
        "http://[fec0::1]/",
        "http://198.18.0.1/",
        "http://240.0.0.1/",
    ] {
        let text = fetch(&client, url).await;
        assert!(text.contains("Refusing to fetch"), "{url}: {text}");
    }
    client.shutdown().await;
}
