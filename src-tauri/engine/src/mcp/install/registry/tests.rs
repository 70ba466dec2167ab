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

/// An npm entry with `package` merged into its one package.
fn npm_entry(package: serde_json::Value) -> RegistryEntry {
    let mut p =
        serde_json::json!({"registryType": "npm", "identifier": "@a/ok", "version": "1.0.0"});
    p.as_object_mut()
        .unwrap()
        .extend(package.as_object().unwrap().clone());
    let json =
        serde_json::json!({"name": "io.github.a/hostile", "version": "1.0.0", "packages": [p]});
    serde_json::from_value(json).unwrap()
}

fn refusal(package: serde_json::Value) -> String {
    let entry = npm_entry(package);
    build(&entry, "https://r.example", &InstallRequest::default())
        .map(|(plan, _)| format!("planned: {}", plan.command_line))
        .unwrap_err_or_string()
}

trait ErrText {
    fn unwrap_err_or_string(self) -> String;
}

impl ErrText for Result<String, crate::vocab::error::InstallError> {
    fn unwrap_err_or_string(self) -> String {
        match self {
            Ok(planned) => panic!("not refused: {planned}"),
            Err(e) => e.to_string(),
        }
    }
}

#[test]
fn a_runtime_hint_that_is_not_the_packages_runner_is_refused() {
    let error = refusal(serde_json::json!({"runtimeHint": "sh"}));
    assert!(
        error.contains("its runtimeHint \"sh\" is not the runner of npm packages (npx)"),
        "{error}"
    );
    let ok = npm_entry(serde_json::json!({"runtimeHint": "npx"}));
    assert!(build(&ok, "https://r.example", &InstallRequest::default()).is_ok());
}

#[test]
fn identifiers_and_versions_a_runner_would_read_as_options_or_paths_are_refused() {
    for (package, expected) in [
        (
            serde_json::json!({"identifier": "--call=touch /tmp/x"}),
            "its package identifier \"--call=touch /tmp/x\" is not a plain npm package name (it starts with '-'",
        ),
        (
            serde_json::json!({"identifier": "user/repo"}),
            "its package identifier \"user/repo\" is not a plain npm package name",
        ),
        (
            serde_json::json!({"version": "--foo"}),
            "its version \"--foo\" is not a plain version (it starts with '-'",
        ),
        (
            serde_json::json!({"version": "https://evil.example/x.tgz"}),
            "its version \"https://evil.example/x.tgz\" is not a plain version",
        ),
    ] {
        let error = refusal(package);
        assert!(error.contains(expected), "{error}");
    }
    let pypi = serde_json::json!({"name": "x/y", "version": "1", "packages": [
        {"registryType": "pypi", "identifier": "-e", "version": "1.0"}]});
    let entry: RegistryEntry = serde_json::from_value(pypi).unwrap();
    let error = build(&entry, "https://r.example", &InstallRequest::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("\"-e\" is not a plain pypi package name"),
        "{error}"
    );
}

#[test]
fn runtime_arguments_that_load_code_and_values_starting_with_a_dash_are_refused() {
    let node_options = serde_json::json!({"runtimeArguments": [
        {"type": "named", "name": "--node-options", "value": "--require=/tmp/evil.js"}]});
    let error = refusal(node_options);
    assert!(
        error.contains("a runtime argument is --node-options, which makes npx load or run"),
        "{error}"
    );
    let dashed = serde_json::json!({"packageArguments": [
        {"type": "positional", "value": "--inspect=0.0.0.0:9229"}]});
    let error = refusal(dashed);
    assert!(
        error
            .contains("a package argument (positional) \"--inspect=0.0.0.0:9229\" starts with '-'"),
        "{error}"
    );
    let glued = serde_json::json!({"runtimeArguments": [
        {"type": "named", "name": "--node-options=--require=/tmp/x", "value": "1"}]});
    assert!(refusal(glued).contains("which is not a plain flag"));
    // Before the package, a positional value or a flag taking none is read as what to run.
    let other = serde_json::json!({"runtimeArguments": [
        {"type": "positional", "value": "evil-package"}]});
    let error = refusal(other);
    assert!(
        error.contains("a runtime argument \"evil-package\" is positional, which npx would read as the package or image to run"),
        "{error}"
    );
    let yes = serde_json::json!({"runtimeArguments": [
        {"type": "named", "name": "--yes", "value": "evil-package"}]});
    let error = refusal(yes);
    assert!(
        error.contains("is --yes, which is not one of the runtime flags this app passes to npx (--registry, --cache, --loglevel)"),
        "{error}"
    );
    // A value the user types is held to the same rule.
    let typed = npm_entry(serde_json::json!({"packageArguments": [
        {"type": "positional", "valueHint": "dir", "isRequired": true}]}));
    let request = InstallRequest {
        values: [("dir".to_owned(), "-rf".to_owned())].into(),
        ..Default::default()
    };
    let error = build(&typed, "https://r.example", &request)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("the value of dir \"-rf\" starts with '-'"),
        "{error}"
    );
}

#[test]
fn env_and_header_names_that_are_not_plain_names_are_refused() {
    for name in ["NODE_OPTIONS=--require=/tmp/x", "A\nB", "1X", ""] {
        let error = refusal(serde_json::json!({"environmentVariables": [
            {"name": name, "value": "v"}]}));
        assert!(
            error.contains("is not a plain variable name"),
            "{name:?}: {error}"
        );
    }
    let json = serde_json::json!({"name": "x/r", "version": "1", "remotes": [{
        "type": "sse", "url": "https://r.example/sse",
        "headers": [{"name": "X-A: b\r\nX-C", "value": "v"}]}]});
    let entry: RegistryEntry = serde_json::from_value(json).unwrap();
    let error = build(&entry, "https://r.example", &InstallRequest::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("is not an HTTP header name"), "{error}");
}

#[test]
fn the_entrys_own_values_are_shown_and_typed_values_masked() {
    let entry = npm_entry(serde_json::json!({"environmentVariables": [
        {"name": "NODE_OPTIONS", "value": "--import=data:text/javascript,evil"},
        {"name": "REGION", "default": "eu"},
        {"name": "API_KEY", "isSecret": true, "isRequired": true}]}));
    let request = InstallRequest {
        values: [("API_KEY".to_owned(), "k-123456".to_owned())].into(),
        ..Default::default()
    };
    let (plan, config) = build(&entry, "https://r.example", &request).unwrap();
    assert_eq!(
        plan.env["NODE_OPTIONS"],
        "--import=data:text/javascript,evil"
    );
    assert_eq!(plan.env["REGION"], "eu");
    assert_eq!(plan.env["API_KEY"], crate::vocab::server::SECRET_MASK);
    assert!(
        plan.command_line.starts_with(
            "API_KEY=•••• NODE_OPTIONS=--import=data:text/javascript,evil REGION=eu npx"
        ),
        "{}",
        plan.command_line
    );
    assert!(!serde_json::to_string(&plan).unwrap().contains("k-123456"));
    let Transport::Stdio { env, .. } = &config.transport else {
        panic!()
    };
    assert_eq!(env["API_KEY"], "k-123456");
    // The digest is the same for the same plan and changes with what is shown.
    let (again, _) = build(&entry, "https://r.example", &request).unwrap();
    assert_eq!(plan.digest, again.digest);
    assert!(plan.digest.starts_with("sha256:"));
    let other = npm_entry(serde_json::json!({"version": "1.0.1"}));
    let (changed, _) = build(&other, "https://r.example", &InstallRequest::default()).unwrap();
    assert_ne!(plan.digest, changed.digest);
}
