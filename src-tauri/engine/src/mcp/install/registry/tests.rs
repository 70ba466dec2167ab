//! Registry entries read from the API's JSON and the plans made from them.

use super::plan::{build, default_server_name};
use super::*;
use crate::vocab::server::Transport;

const LISTING: &str = r#"{
  "servers": [
    {"server": {"name": "io.github.a/one", "description": "One", "version": "1.0.0",
      "packages": [{"registryType": "npm", "identifier": "@a/one", "version": "1.0.0",
        "runtimeArguments": [{"type": "named", "name": "--registry", "value": "https://npm.example"}],
        "packageArguments": [{"type": "positional", "valueHint": "target_dir", "isRequired": true}],
        "transport": {"type": "stdio"}}]},
     "_meta": {"io.modelcontextprotocol.registry/official": {"status": "deprecated"}}},
    {"server": {"name": "io.github.a/two", "version": "2.0.0",
      "remotes": [{"type": "streamable-http", "url": "https://two.example/{tenant}/mcp",
        "headers": [{"name": "Authorization", "isRequired": true, "isSecret": true}]}]}}
  ],
  "metadata": {"nextCursor": "io.github.a/two", "count": 2}
}"#;

fn listing() -> (Vec<RegistryEntry>, Option<String>) {
    serde_json::from_str::<WireList>(LISTING)
        .unwrap()
        .into_parts()
}

#[test]
fn a_listing_page_gives_its_entries_their_status_and_the_next_cursor() {
    let (entries, next) = listing();
    assert_eq!(next.as_deref(), Some("io.github.a/two"));
    assert_eq!(entries[0].status.as_deref(), Some("deprecated"));
    assert_eq!(entries[0].transports(), ["stdio"]);
    assert_eq!(entries[1].transports(), ["streamable-http"]);
}

#[test]
fn an_npm_plan_puts_runtime_arguments_before_the_pinned_package_and_package_arguments_after() {
    let (entries, _) = listing();
    let request = InstallRequest {
        values: [("target_dir".to_owned(), "/srv".to_owned())].into(),
        ..Default::default()
    };
    let (plan, config) = build(&entries[0], "https://r.example", &request).unwrap();
    assert_eq!(
        plan.args,
        [
            "--registry",
            "https://npm.example",
            "-y",
            "@a/one@1.0.0",
            "/srv"
        ]
    );
    assert!(
        matches!(config.source, Some(crate::vocab::server::ServerSource::Registry { ref version, ref inputs, .. })
        if version == "1.0.0" && inputs["target_dir"] == "/srv")
    );
}

#[test]
fn a_remote_plan_fills_its_url_and_keeps_header_values_out_of_the_plan() {
    let (entries, _) = listing();
    let request = InstallRequest {
        values: [
            ("Authorization".to_owned(), "Bearer tok-123456".to_owned()),
            ("tenant".to_owned(), "acme".to_owned()),
        ]
        .into(),
        ..Default::default()
    };
    let (plan, config) = build(&entries[1], "https://r.example", &request).unwrap();
    assert_eq!(plan.url.as_deref(), Some("https://two.example/acme/mcp"));
    let no_tenant = InstallRequest {
        values: [("Authorization".to_owned(), "B".to_owned())].into(),
        ..Default::default()
    };
    let error = build(&entries[1], "https://r.example", &no_tenant)
        .unwrap_err()
        .to_string();
    assert_eq!(error, "tenant is required");
    assert_eq!(plan.header_names, ["Authorization"]);
    assert!(!serde_json::to_string(&plan).unwrap().contains("tok-123456"));
    let Transport::Http { headers, .. } = &config.transport else {
        panic!()
    };
    assert_eq!(headers["Authorization"], "Bearer tok-123456");
}

#[test]
fn a_server_name_comes_from_the_entry_names_last_part() {
    assert_eq!(
        default_server_name("io.github.user/weather.v2"),
        "weather-v2"
    );
    assert_eq!(default_server_name("x/"), "server");
}

#[test]
fn a_secret_arguments_value_is_neither_shown_nor_stored_in_the_arguments() {
    let json = r#"{"name": "io.github.a/three", "version": "1.0.0", "packages": [{
        "registryType": "pypi", "identifier": "three", "version": "1.0.0",
        "packageArguments": [{"type": "named", "name": "--token", "isSecret": true, "isRequired": true}]}]}"#;
    let entry: RegistryEntry = serde_json::from_str(json).unwrap();
    let request = InstallRequest {
        values: [("token".to_owned(), "tok-s3cr3t".to_owned())].into(),
        ..Default::default()
    };
    let (plan, config) = build(&entry, "https://r.example", &request).unwrap();
    let named = "${secret:SWITCHBOARD_SECRET_TOKEN}";
    assert_eq!(plan.args, ["three==1.0.0", "--token", named]);
    assert!(!plan.command_line.contains("tok-s3cr3t"));
    assert!(!serde_json::to_string(&plan).unwrap().contains("tok-s3cr3t"));
    let Transport::Stdio { args, env, .. } = &config.transport else {
        panic!()
    };
    // Stored: the argument names the value, which is kept with the env values (keychain).
    assert_eq!(args[2], named);
    assert_eq!(env["SWITCHBOARD_SECRET_TOKEN"], "tok-s3cr3t");
    let mut started = config.clone();
    crate::mcp::host::secret_args::fill_secret_args(&mut started);
    let Transport::Stdio { args, .. } = &started.transport else {
        panic!()
    };
    assert_eq!(args[2], "tok-s3cr3t", "the server still gets it");
}
