//! Tests of `config`: a table of documents and what they parse to (configs, or the exact list
//! of error messages), and the export round trip.

use std::collections::BTreeMap;
use std::time::Duration;

use super::*;

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn stdio(name: &str, command: &str, args: &[&str]) -> ServerConfig {
    ServerConfig::new(
        name,
        Transport::Stdio {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: BTreeMap::new(),
            cwd: None,
        },
    )
}

fn http(name: &str, url: &str, headers: &[(&str, &str)]) -> ServerConfig {
    let headers = map(headers);
    ServerConfig::new(
        name,
        Transport::Http {
            url: url.into(),
            headers,
        },
    )
}

fn sse(name: &str, url: &str) -> ServerConfig {
    let headers = BTreeMap::new();
    ServerConfig::new(
        name,
        Transport::Sse {
            url: url.into(),
            headers,
        },
    )
}

fn builtin(name: &str, server: &str, allow_private: bool, folders: &[&str]) -> ServerConfig {
    ServerConfig::new(
        name,
        Transport::Builtin {
            server: server.into(),
            allow_private,
            folders: folders.iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            settings: BTreeMap::new(),
        },
    )
}

fn with_env(mut c: ServerConfig, pairs: &[(&str, &str)], dir: Option<&str>) -> ServerConfig {
    if let Transport::Stdio { env, cwd, .. } = &mut c.transport {
        *env = map(pairs);
        *cwd = dir.map(Into::into);
    }
    c
}

/// Claude Desktop's documented example (modelcontextprotocol.io, "Connect to local MCP
/// servers"), with the rest of the file around it.
const CLAUDE_DESKTOP: &str = r#"{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/username/Desktop",
        "/Users/username/Downloads"
      ]
    },
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>" }
    }
  }
}"#;

type Expected = Result<Vec<ServerConfig>, Vec<&'static str>>;

fn cases() -> Vec<(&'static str, &'static str, Expected)> {
    let fs = stdio(
        "filesystem",
        "npx",
        &[
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/Users/username/Desktop",
            "/Users/username/Downloads",
        ],
    );
    let github = with_env(
        stdio(
            "github",
            "npx",
            &["-y", "@modelcontextprotocol/server-github"],
        ),
        &[("GITHUB_PERSONAL_ACCESS_TOKEN", "<YOUR_TOKEN>")],
        None,
    );
    let mut disabled = stdio("x", "uvx", &["mcp-server-time"]);
    disabled.enabled = false;
    let mut extras = stdio("slow", "python", &["server.py"]);
    extras.startup_timeout = Duration::from_millis(120_000);
    extras.call_timeout = Duration::from_millis(5_000);
    extras.auto_start = false;
    extras.approval = Approval::Allow;
    vec![
        (
            "Claude Desktop's documented example",
            CLAUDE_DESKTOP,
            Ok(vec![fs, github]),
        ),
        (
            "env and cwd",
            r#"{"mcpServers": {"py": {"command": "uv", "args": ["run", "server.py"],
                "env": {"PORT": "3000", "TOKEN": "abc"}, "cwd": "/srv/py"}}}"#,
            Ok(vec![with_env(
                stdio("py", "uv", &["run", "server.py"]),
                &[("PORT", "3000"), ("TOKEN", "abc")],
                Some("/srv/py"),
            )]),
        ),
        (
            "a remote server without a type is streamable HTTP",
            r#"{"mcpServers": {"remote": {"url": "https://example.com/mcp",
                "headers": {"Authorization": "Bearer t0k3n"}}}}"#,
            Ok(vec![http(
                "remote",
                "https://example.com/mcp",
                &[("Authorization", "Bearer t0k3n")],
            )]),
        ),
        (
            "a remote server typed sse",
            r#"{"mcpServers": {"legacy": {"type": "sse", "url": "http://127.0.0.1:3001/events"}}}"#,
            Ok(vec![sse("legacy", "http://127.0.0.1:3001/events")]),
        ),
        (
            "a remote server whose path ends in /sse",
            r#"{"mcpServers": {"legacy": {"url": "http://127.0.0.1:3001/sse"}}}"#,
            Ok(vec![sse("legacy", "http://127.0.0.1:3001/sse")]),
        ),
        (
            "a declared type wins over the /sse path, and transport is read like type",
            r#"{"mcpServers": {"a": {"type": "streamableHttp", "url": "http://h/sse"},
                "b": {"transport": "streamable-http", "url": "http://h/mcp"},
                "c": {"type": "http", "url": "http://h/mcp"}}}"#,
            Ok(vec![
                http("a", "http://h/sse", &[]),
                http("b", "http://h/mcp", &[]),
                http("c", "http://h/mcp", &[]),
            ]),
        ),
        (
            "a disabled server",
            r#"{"mcpServers": {"x": {"command": "uvx", "args": ["mcp-server-time"], "disabled": true}}}"#,
            Ok(vec![disabled]),
        ),
        (
            "our extra fields",
            r#"{"mcpServers": {"slow": {"command": "python", "args": ["server.py"],
                "startupTimeoutMs": 120000, "callTimeoutMs": 5000, "autoStart": false,
                "approval": "allow"}}}"#,
            Ok(vec![extras]),
        ),
        (
            "a bare map of servers",
            r#"{"time": {"command": "uvx", "args": ["mcp-server-time"]}}"#,
            Ok(vec![stdio("time", "uvx", &["mcp-server-time"])]),
        ),
        (
            "one pasted entry without braces, trailing comma and all",
            "\"time\": {\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]},\n",
            Ok(vec![stdio("time", "uvx", &["mcp-server-time"])]),
        ),
        ("an empty mcpServers", r#"{"mcpServers": {}}"#, Ok(vec![])),
        (
            "broken JSON reports the line and column",
            "{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"npx\",}\n  }\n}",
            Err(vec!["invalid JSON at line 3, column 29: trailing comma"]),
        ),
        (
            "a top-level array",
            r#"[{"command": "npx"}]"#,
            Err(vec![
                "the document must be a JSON object of MCP servers, e.g. {\"mcpServers\": {...}}",
            ]),
        ),
        (
            "mcpServers that is not an object",
            r#"{"mcpServers": []}"#,
            Err(vec!["\"mcpServers\" must be an object of servers"]),
        ),
        (
            "one entry without its name",
            r#"{"command": "npx", "args": ["-y", "x"]}"#,
            Err(vec![
                "this is one server entry without a name; paste it as {\"name\": {...}}",
            ]),
        ),
        (
            "an empty command and an entry with neither command nor url",
            r#"{"mcpServers": {"fs": {"command": "  "}, "nothing": {"args": []}}}"#,
            Err(vec![
                "server \"fs\": \"command\" must be a non-empty string",
                "server \"nothing\": needs a \"command\" (a local server) or a \"url\" (a remote one)",
            ]),
        ),
        (
            "both command and url",
            r#"{"mcpServers": {"both": {"command": "npx", "url": "http://h/mcp"}}}"#,
            Err(vec![
                "server \"both\": give either \"command\" or \"url\", not both",
            ]),
        ),
        (
            "urls that are not http(s)",
            r#"{"mcpServers": {"remote": {"url": "ftp://h/mcp"}, "r2": {"url": "example.com/mcp"},
                "r3": {"url": 42}}}"#,
            Err(vec![
                "server \"remote\": \"url\" is not an http(s) URL",
                "server \"r2\": \"url\" is not an http(s) URL",
                "server \"r3\": \"url\" must be a non-empty string",
            ]),
        ),
        (
            "env and header values that are not strings",
            r#"{"mcpServers": {"py": {"command": "uv", "env": {"PORT": 3000, "DEBUG": true}},
                "r": {"url": "http://h/mcp", "headers": {"X-Retry": 3}}}}"#,
            Err(vec![
                "server \"py\": \"env\" value of \"DEBUG\" must be a string",
                "server \"py\": \"env\" value of \"PORT\" must be a string",
                "server \"r\": \"headers\" value of \"X-Retry\" must be a string",
            ]),
        ),
        (
            "an empty name and one too long",
            r#"{"": {"command": "npx"},
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": {"command": "npx"}}"#,
            Err(vec![
                "server \"\": the name cannot be empty",
                "server \"aaaaaaaaaaaaaaaaaaaa…\": the name is longer than 64 characters",
            ]),
        ),
        (
            "a name repeated in one document",
            r#"{"mcpServers": {"fs": {"command": "a"}, "fs": {"command": "b"}, "fs": {"command": "c"}}}"#,
            Err(vec!["server \"fs\": the name appears more than once"]),
        ),
        (
            "unknown and contradictory transport types",
            r#"{"mcpServers": {"ws": {"type": "websocket", "url": "http://h/ws"},
                "n": {"type": 1, "command": "npx"},
                "s": {"type": "sse", "command": "npx"},
                "t": {"transport": "stdio", "url": "http://h/mcp"}}}"#,
            Err(vec![
                "server \"ws\": \"type\" \"websocket\" is not a known transport; use \"stdio\", \"http\", \"streamable-http\", \"streamableHttp\", \"sse\" or \"builtin\"",
                "server \"n\": \"type\" must be one of \"stdio\", \"http\", \"streamable-http\", \"streamableHttp\", \"sse\" or \"builtin\"",
                "server \"s\": \"type\" is a remote transport but the entry has a \"command\"",
                "server \"t\": \"transport\" is \"stdio\" but the entry has a \"url\"",
            ]),
        ),
        (
            "bad values of our own fields and of args, cwd and disabled",
            r#"{"x": {"command": "npx", "args": "-y", "cwd": "", "disabled": "yes",
                "startupTimeoutMs": -1, "callTimeoutMs": 1.5, "autoStart": 1, "approval": "maybe"}}"#,
            Err(vec![
                "server \"x\": \"args\" must be an array of strings",
                "server \"x\": \"cwd\" must be a non-empty string",
                "server \"x\": \"disabled\" must be true or false",
                "server \"x\": \"startupTimeoutMs\" must be a positive whole number of milliseconds",
                "server \"x\": \"callTimeoutMs\" must be a positive whole number of milliseconds",
                "server \"x\": \"autoStart\" must be true or false",
                "server \"x\": \"approval\" must be \"ask\", \"allow\" or \"deny\"",
            ]),
        ),
        (
            "built-in servers, by \"builtin\" or by \"type\"",
            r#"{"mcpServers": {
                "clock": {"builtin": "time"},
                "web": {"type": "builtin", "builtin": "fetch", "allowPrivate": true},
                "files": {"builtin": "filesystem", "folders": ["/srv/notes"], "autoStart": false},
                "search": {"builtin": "web", "env": {"SEARCH_PROVIDER": "Brave", "BRAVE_API_KEY": "k"}}
            }}"#,
            Ok(vec![
                builtin("clock", "time", false, &[]),
                builtin("web", "fetch", true, &[]),
                ServerConfig {
                    auto_start: false,
                    ..builtin("files", "filesystem", false, &["/srv/notes"])
                },
                ServerConfig::new(
                    "search",
                    Transport::Builtin {
                        server: "web".into(),
                        allow_private: false,
                        folders: Vec::new(),
                        env: map(&[("BRAVE_API_KEY", "k")]),
                        settings: map(&[("SEARCH_PROVIDER", "Brave")]),
                    },
                ),
            ]),
        ),
        (
            "web settings the web server does not know, a provider it does not have, env elsewhere",
            r#"{"mcpServers": {
                "a": {"builtin": "web", "env": {"BING_KEY": "k"}},
                "b": {"builtin": "web", "env": {"SEARCH_PROVIDER": "bing"}},
                "c": {"builtin": "time", "env": {"TZ": "UTC"}},
                "d": {"builtin": "fetch", "settings": {"A": "1"}},
                "e": {"builtin": "knowledge", "settings": {"BASE": "Notes", "X": "1"}},
                "f": {"builtin": "knowledge", "env": {"BASE": "Notes"}},
                "g": {"builtin": "knowledge"}
            }}"#,
            Err(vec![
                "server \"a\": \"env\" \"BING_KEY\" is not a setting of the web server; use SEARCH_PROVIDER, SEARXNG_URL, BRAVE_API_KEY, TAVILY_API_KEY, GOOGLE_API_KEY, GOOGLE_CSE_ID, SEARCH_ENDPOINT, SEARCH_TIMEOUT_SECS",
                "server \"b\": \"env\" SEARCH_PROVIDER \"bing\" is not a search provider; use searxng, brave, tavily or google",
                "server \"c\": \"env\" is only for the \"web\" and \"knowledge\" built-in servers",
                "server \"d\": \"settings\" is only for the \"web\" and \"knowledge\" built-in servers",
                "server \"e\": \"settings\" \"X\" is not a setting of the knowledge server; use BASE",
                "server \"f\": \"env\" is not used by the \"knowledge\" built-in server",
                "server \"f\": \"settings\" needs BASE, the knowledge base the server searches",
                "server \"g\": \"settings\" needs BASE, the knowledge base the server searches",
            ]),
        ),
        (
            "a built-in entry with an unknown name, a command, or another transport",
            r#"{"mcpServers": {
                "a": {"builtin": "weather"},
                "b": {"builtin": "time", "command": "node"},
                "c": {"type": "sse", "builtin": "time"}
            }}"#,
            Err(vec![
                "server \"a\": \"builtin\" \"weather\" is not a built-in server; use \"time\", \"fetch\", \"filesystem\", \"web\" or \"knowledge\"",
                "server \"b\": \"command\" cannot be given for a built-in server",
                "server \"c\": \"builtin\" names a built-in server but the entry declares another transport",
            ]),
        ),
        (
            "an entry that is not an object",
            r#"{"mcpServers": {"fs": "npx -y server-filesystem"}}"#,
            Err(vec!["server \"fs\": the entry must be an object"]),
        ),
    ]
}

#[test]
fn each_document_parses_to_its_configs_or_to_every_error_it_contains() {
    let cases = cases();
    assert!(cases.len() >= 15);
    for (what, doc, expected) in cases {
        let got = parse(doc).map_err(|e| e.errors);
        let expected = expected.map_err(|e| e.into_iter().map(String::from).collect());
        assert_eq!(got, expected, "case: {what}");
    }
}

#[test]
fn an_export_parses_back_to_the_same_configs() {
    let mut all = Vec::new();
    for (_, doc, expected) in cases() {
        if expected.is_ok() {
            all.extend(parse(doc).unwrap());
        }
    }
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all.dedup_by(|a, b| a.name == b.name);
    let exported = export(&all);
    assert_eq!(parse(&exported).unwrap(), all);
    assert_eq!(export(&parse(&exported).unwrap()), exported);
}

#[test]
fn an_export_writes_claude_desktop_fields_and_ours_only_when_not_default() {
    let mut slow = stdio("slow", "python", &["server.py"]);
    slow.call_timeout = Duration::from_millis(5_000);
    slow.enabled = false;
    let configs = vec![
        slow,
        http("remote", "https://example.com/mcp", &[("X-Key", "k")]),
        sse("legacy", "http://127.0.0.1:3001/sse"),
    ];
    let exported: serde_json::Value = serde_json::from_str(&export(&configs)).unwrap();
    assert_eq!(
        exported,
        serde_json::json!({"mcpServers": {
            "slow": {"command": "python", "args": ["server.py"], "disabled": true,
                     "callTimeoutMs": 5000},
            "remote": {"type": "http", "url": "https://example.com/mcp",
                       "headers": {"X-Key": "k"}},
            "legacy": {"type": "sse", "url": "http://127.0.0.1:3001/sse"}
        }})
    );
}

#[test]
fn debug_output_and_the_secret_free_copy_never_show_env_or_header_values() {
    let github = parse(CLAUDE_DESKTOP).unwrap().remove(1);
    let remote = http("r", "https://h/mcp", &[("Authorization", "Bearer s3cr3t")]);
    for c in [&github, &remote] {
        let debug = format!("{c:?}");
        assert!(
            !debug.contains("<YOUR_TOKEN>") && !debug.contains("s3cr3t"),
            "{debug}"
        );
    }
    assert!(debug_has_names(&github, "GITHUB_PERSONAL_ACCESS_TOKEN"));
    assert_eq!(
        github.without_secrets().transport,
        Transport::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "@modelcontextprotocol/server-github".into()],
            env: map(&[("GITHUB_PERSONAL_ACCESS_TOKEN", "")]),
            cwd: None,
        }
    );
    assert_eq!(
        remote.secret_values().collect::<Vec<_>>(),
        vec!["Bearer s3cr3t"]
    );
}

fn debug_has_names(c: &ServerConfig, name: &str) -> bool {
    format!("{c:?}").contains(name)
}

#[test]
fn a_command_line_quotes_what_a_shell_would_split_and_masks_env_values() {
    let c = with_env(
        stdio(
            "fs",
            "npx",
            &["-y", "server", "/Users/me/My Documents", "it's"],
        ),
        &[("TOKEN", "secret-value")],
        None,
    );
    assert_eq!(
        c.command_line(),
        r"TOKEN=•••• npx -y server '/Users/me/My Documents' 'it'\''s'"
    );
    assert_eq!(
        http("r", "https://h/mcp", &[]).command_line(),
        "https://h/mcp (streamable HTTP)"
    );
    assert_eq!(
        sse("s", "http://h/sse").command_line(),
        "http://h/sse (SSE)"
    );
}

#[test]
fn a_config_built_in_a_form_is_checked_like_a_parsed_one() {
    let mut bad = stdio("", "", &[]);
    assert_eq!(
        bad.validate().unwrap_err().errors,
        vec!["server \"\": the name cannot be empty"]
    );
    bad.name = "fs".into();
    assert_eq!(
        bad.validate().unwrap_err().errors,
        vec!["server \"fs\": \"command\" must be a non-empty string"]
    );
    assert_eq!(
        http("r", "file:///etc/passwd", &[])
            .validate()
            .unwrap_err()
            .errors,
        vec!["server \"r\": \"url\" is not an http(s) URL"]
    );
    assert_eq!(stdio("ok", "npx", &[]).validate(), Ok(()));
}

#[test]
fn a_spec_carries_the_transport_and_timeouts() {
    let mut c = sse("s", "http://h/sse");
    c.startup_timeout = Duration::from_secs(5);
    assert_eq!(
        c.spec(),
        ServerSpec {
            name: "s".into(),
            transport: c.transport.clone(),
            startup_timeout: Duration::from_secs(5),
            call_timeout: ServerSpec::CALL_TIMEOUT,
            oauth: Default::default(),
            inherit_env: Vec::new(),
            allow_private: false,
            credentials: "s".into(),
        }
    );
    c.id = Some("0192-abc".into());
    assert_eq!(
        c.spec().credentials,
        "id:0192-abc",
        "a stored server's tokens follow its id"
    );
}

#[test]
fn a_config_with_a_bidi_override_or_a_zero_width_space_in_what_runs_is_refused() {
    let errors = |c: ServerConfig| c.validate().unwrap_err().errors;
    assert_eq!(
        errors(stdio("s", "np\u{202e}x", &[])),
        vec![
            "server \"s\": \"command\" has the hidden character U+202E, which can make it look \
             like something else"
        ]
    );
    assert_eq!(
        errors(stdio("s", "npx", &["-y", "pkg\u{200b}"])),
        vec![
            "server \"s\": \"args\" item 2 has the hidden character U+200B, which can make it \
             look like something else"
        ]
    );
    let env = with_env(stdio("s", "npx", &[]), &[("A\u{2067}B", "1")], None);
    assert!(
        errors(env)[0].contains("\"env\" name \"A\\u{2067}B\" has the hidden character U+2067")
    );
    let cwd = with_env(stdio("s", "npx", &[]), &[], Some("/tmp/\u{feff}x"));
    assert!(errors(cwd)[0].contains("\"cwd\" has the hidden character U+FEFF"));
    let header = http("r", "https://h/mcp", &[("X-Key\u{200d}", "v")]);
    assert!(errors(header)[0].contains("\"headers\" name"));
    assert!(
        errors(stdio("a\u{202e}b", "npx", &[]))[0]
            .contains("the name has the hidden character U+202E")
    );
    let folders = builtin("fs", "filesystem", false, &["/home/\u{202e}x"]);
    assert!(errors(folders)[0].contains("\"folders\" item 1 has the hidden character"));
    let doc = r#"{"s":{"command":"npx","args":["ok\u2069"]}}"#;
    assert!(
        parse(doc).unwrap_err().errors[0].contains("U+2069"),
        "an import too"
    );
}

#[test]
fn env_names_must_be_identifiers_and_header_names_tokens_but_a_typed_loader_variable_is_allowed() {
    let errors = |c: ServerConfig| c.validate().unwrap_err().errors;
    let injected = with_env(
        stdio("s", "node", &[]),
        &[("NODE_OPTIONS=--require=x", "1")],
        None,
    );
    assert_eq!(
        errors(injected),
        vec![
            "server \"s\": \"env\" name \"NODE_OPTIONS=--require=x\" is not a variable name \
             (letters, digits and _, not starting with a digit)"
        ]
    );
    let newline = with_env(stdio("s", "node", &[]), &[("A\nB", "1")], None);
    assert!(errors(newline)[0].contains("\"env\" name \"A\\nB\" has the hidden character U+000A"));
    let digit = with_env(stdio("s", "node", &[]), &[("1A", "1")], None);
    assert!(errors(digit)[0].contains("is not a variable name"));
    let space = http("r", "https://h/mcp", &[("X Key", "v")]);
    assert!(errors(space)[0].contains("\"headers\" name \"X Key\" is not a header name"));
    let typed = with_env(
        stdio("s", "node", &[]),
        &[("NODE_OPTIONS", "--max-old-space-size=4096")],
        None,
    );
    assert_eq!(typed.validate(), Ok(()), "the user's own form may set it");
    assert_eq!(risky_env(&typed), ["NODE_OPTIONS"]);
}

#[test]
fn inherit_env_refuses_provider_keys_and_any_key_token_secret_or_password_name() {
    for name in [
        "OPENAI_API_KEY",
        "MY_PROVIDER_KEY",
        "HF_TOKEN",
        "DB_PASSWORD",
        "APP_SECRET",
    ] {
        let doc = format!(r#"{{"s":{{"command":"npx","inheritEnv":["LANG",{name:?}]}}}}"#);
        let errors = parse(&doc).unwrap_err().errors;
        assert!(
            errors[0].contains(&format!("{name:?} looks like a provider key")),
            "{errors:?}"
        );
    }
    let fine = parse(r#"{"s":{"command":"npx","inheritEnv":["LANG","HTTPS_PROXY"]}}"#);
    assert_eq!(fine.unwrap()[0].inherit_env, ["LANG", "HTTPS_PROXY"]);
}
