//! Install links: good links give the exact command or URL; hostile ones are refused with
//! a clear reason.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

use std::collections::BTreeMap;

use super::{LinkPreview, MAX_LINK_BYTES, parse, parse_to_install};
use crate::vocab::server::{Approval, Transport};

fn link(name: &str, config: &str) -> String {
    let name: String = url::form_urlencoded::byte_serialize(name.as_bytes()).collect();
    let config: String =
        url::form_urlencoded::byte_serialize(STANDARD.encode(config).as_bytes()).collect();
    format!("switchboard://mcp/install?name={name}&config={config}")
}

fn refused(link: &str) -> String {
    parse(link).unwrap_err().to_string()
}

#[test]
fn a_command_link_shows_the_exact_command_arguments_env_values_and_grants() {
    let config = r#"{"command":"npx","args":["-y","@modelcontextprotocol/server-everything@2026.8.31"],"env":{"API_KEY":"sk-secret","MODE":"fast"}}"#;
    let text = link("everything", config);
    let (shown, saved) = parse(&text).unwrap();
    let env = BTreeMap::from([
        ("API_KEY".to_owned(), "sk-secret".to_owned()),
        ("MODE".to_owned(), "fast".to_owned()),
    ]);
    assert_eq!(
        shown,
        LinkPreview {
            link: text.clone(),
            name: "everything".to_owned(),
            transport: "stdio".to_owned(),
            command: Some("npx".to_owned()),
            args: vec![
                "-y".to_owned(),
                "@modelcontextprotocol/server-everything@2026.8.31".to_owned()
            ],
            env: env.clone(),
            url: None,
            headers: BTreeMap::new(),
            approval: Approval::Ask,
            allow_private: false,
            inherit_env: vec![],
            cwd: None,
            risky_env: vec![],
        }
    );
    let Transport::Stdio { env: saved_env, .. } = &saved.transport else {
        panic!("{saved:?}")
    };
    assert_eq!(saved_env, &env, "what is saved is what is shown");
}

#[test]
fn a_link_with_hidden_env_values_shows_them_and_warns_of_loader_variables() {
    let config = r#"{"command":"npx","args":["-y","@modelcontextprotocol/server-everything@1"],"env":{"NODE_OPTIONS":"--import=data:text/javascript,evil()","npm_config_registry":"https://evil.example"}}"#;
    let (shown, _) = parse(&link("everything", config)).unwrap();
    assert_eq!(
        shown.env["NODE_OPTIONS"],
        "--import=data:text/javascript,evil()"
    );
    assert_eq!(shown.env["npm_config_registry"], "https://evil.example");
    assert_eq!(shown.risky_env, ["NODE_OPTIONS", "npm_config_registry"]);
    let json = serde_json::to_value(&shown).unwrap();
    assert_eq!(json["riskyEnv"][0], "NODE_OPTIONS");
    assert_eq!(
        json["env"]["NODE_OPTIONS"],
        "--import=data:text/javascript,evil()"
    );
}

#[test]
fn a_link_setting_a_loader_variable_installs_only_when_it_was_accepted() {
    let config = r#"{"command":"node","env":{"NODE_OPTIONS":"--require=/tmp/x.js","MODE":"a"}}"#;
    let text = link("n", config);
    let refused = parse_to_install(&text, &[]).unwrap_err().to_string();
    assert_eq!(
        refused,
        "the install link was refused: it sets NODE_OPTIONS, which can make the server run other \
         code; accept it in the preview first"
    );
    let other = parse_to_install(&text, &["LD_PRELOAD".to_owned()]).unwrap_err();
    assert!(other.to_string().contains("it sets NODE_OPTIONS"));
    let saved = parse_to_install(&text, &["NODE_OPTIONS".to_owned()]).unwrap();
    assert_eq!(saved.name, "n");
    assert!(parse_to_install(&link("m", r#"{"command":"node"}"#), &[]).is_ok());
}

#[test]
fn a_link_giving_a_grant_or_any_field_but_the_six_is_refused_naming_the_field() {
    for (field, value) in [
        ("approval", r#""allow""#),
        ("allowPrivate", "true"),
        ("inheritEnv", r#"["HOME"]"#),
        ("cwd", r#""/tmp""#),
        ("oauth", r#"{"clientId":"x"}"#),
        ("autoStart", "false"),
        ("startupTimeoutMs", "1"),
        ("disabled", "true"),
        ("transport", r#""stdio""#),
    ] {
        let config = format!(r#"{{"command":"echo",{field:?}:{value}}}"#);
        assert_eq!(
            refused(&link("a", &config)),
            format!(
                "the install link was refused: it sets {field:?}, which a link may not; it may \
                 give only type, command, args, env, url, headers"
            )
        );
    }
    assert!(
        parse(&link(
            "a",
            r#"{"type":"stdio","command":"echo","args":[],"env":{}}"#
        ))
        .is_ok()
    );
}

#[test]
fn a_link_with_bidi_or_zero_width_characters_in_what_runs_is_refused() {
    for config in [
        "{\"command\":\"np\u{202e}x\"}",
        "{\"command\":\"npx\",\"args\":[\"-y\",\"pkg\u{200b}\"]}",
        "{\"command\":\"npx\",\"env\":{\"A\u{2066}B\":\"1\"}}",
        "{\"url\":\"https://example.com\",\"headers\":{\"X\u{feff}Key\":\"1\"}}",
    ] {
        let why = refused(&link("a", config));
        assert!(why.contains("the hidden character U+"), "{config}: {why}");
    }
    let newline = refused(&link(
        "a",
        r#"{"command":"npx","env":{"NODE_OPTIONS=--require=x":"1","A\nB":"2"}}"#,
    ));
    assert!(
        why_has(
            &newline,
            "\"NODE_OPTIONS=--require=x\" is not a variable name"
        ),
        "{newline}"
    );
}

fn why_has(why: &str, part: &str) -> bool {
    why.contains(part)
}

#[test]
fn a_url_link_shows_the_url_and_header_names_and_url_safe_unpadded_base64_is_read() {
    let config = r#"{"url":"https://example.com/mcp","headers":{"Authorization":"Bearer x"}}"#;
    let text = format!(
        "switchboard://mcp/install?name=remote&config={}",
        URL_SAFE_NO_PAD.encode(config)
    );
    let (shown, _) = parse(&text).unwrap();
    assert_eq!(
        (shown.transport.as_str(), shown.url.as_deref()),
        ("http", Some("https://example.com/mcp"))
    );
    assert_eq!(
        shown.headers["Authorization"], "Bearer x",
        "the value is shown"
    );
    assert_eq!(shown.command, None);
}

#[test]
fn links_of_another_scheme_or_route_are_refused() {
    let config = STANDARD.encode(r#"{"command":"echo"}"#);
    assert_eq!(
        refused(&format!(
            "cursor://anysphere.cursor-deeplink/mcp/install?name=a&config={config}"
        )),
        "the install link was refused: it is not a switchboard:// link"
    );
    assert_eq!(
        refused(&format!("switchboard://mcp/remove?name=a&config={config}")),
        "the install link was refused: switchboard://mcp/remove is not an install link"
    );
    assert!(refused("not a url at all").contains("it is not a URL"));
}

#[test]
fn a_link_without_a_name_or_config_or_with_either_twice_is_refused() {
    let config = STANDARD.encode(r#"{"command":"echo"}"#);
    assert!(
        refused(&format!("switchboard://mcp/install?config={config}")).ends_with("no server name")
    );
    assert!(
        refused(&format!(
            "switchboard://mcp/install?name=%20&config={config}"
        ))
        .ends_with("no server name")
    );
    assert!(refused("switchboard://mcp/install?name=a").ends_with("it has no config"));
    assert!(
        refused(&format!(
            "switchboard://mcp/install?name=a&name=b&config={config}"
        ))
        .ends_with("it gives name more than once")
    );
}

#[test]
fn a_config_that_is_not_base64_json_of_one_server_is_refused() {
    assert!(
        refused("switchboard://mcp/install?name=a&config=***")
            .ends_with("its config is not base64")
    );
    let not_json = STANDARD.encode("{command: echo");
    assert!(
        refused(&format!(
            "switchboard://mcp/install?name=a&config={not_json}"
        ))
        .contains("its config is not JSON")
    );
    assert!(refused(&link("a", r#"["echo"]"#)).ends_with("its config is not a JSON object"));
    assert!(refused(&link("a", r#"{"args":["x"]}"#)).contains("its config is not a server"));
    assert!(refused(&link("a", r#"{"command":""}"#)).contains("its config is not a server"));
}

#[test]
fn a_link_may_not_configure_a_builtin_server_or_a_name_with_control_characters_or_too_long() {
    let builtin = refused(&link("fs", r#"{"builtin":"filesystem","folders":["/"]}"#));
    assert!(
        builtin.ends_with("it sets \"builtin\", which a link may not; it may give only type, command, args, env, url, headers"),
        "{builtin}"
    );
    let typed = refused(&link("fs", r#"{"type":"builtin"}"#));
    assert!(typed.ends_with("it must describe one server"), "{typed}");
    assert!(
        refused(&link("a\u{1b}[2Jb", r#"{"command":"echo"}"#))
            .ends_with("its name has control characters")
    );
    assert!(refused(&link(&"n".repeat(200), r#"{"command":"echo"}"#)).contains("not a server"));
}

#[test]
fn a_huge_link_is_refused_before_it_is_decoded() {
    let args: Vec<String> = (0..4000).map(|i| format!("arg{i}")).collect();
    let config = serde_json::json!({ "command": "echo", "args": args }).to_string();
    let text = link("big", &config);
    assert!(text.len() > MAX_LINK_BYTES);
    assert_eq!(
        refused(&text),
        format!("the install link was refused: it is longer than {MAX_LINK_BYTES} bytes")
    );
}
