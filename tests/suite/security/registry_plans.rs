//! Security, second pass: hostile registry entries are refused before anything is saved or runs (issue 31, points 2 and 7).
//!
//! A registry on 127.0.0.1 serves entries built to run someone else's code through the runner
//! (`npx`, `uvx`) of an ordinary-looking install: a package identifier or a version the runner
//! reads as an option, a runtime argument that preloads a script, an env variable *name* that
//! smuggles `NODE_OPTIONS=--require=…` or a newline, a runtime flag that takes no value
//! (`npx -y --yes evil-package @example/ok@1.0.0` runs `evil-package`), a `runtimeHint`
//! naming `sh`. Each is
//! installed as a script would (`switchboard servers install NAME --yes`) with stand-ins for
//! every runner first on the PATH that leave a mark when run: each is refused with a message
//! saying what is wrong, no server is saved, nothing runs. An entry's own env values are shown
//! as they are in the plan (only values the user types are masked).

use std::path::{Path, PathBuf};
use std::process::Output;

use axum::Router;
use axum::extract::Path as UrlPath;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};
use switchboard_engine::mcp::InstallRequest;

use crate::suite::servers::engine;

/// One hostile entry: its name's last part, its package, and what the refusal must say.
struct Hostile {
    name: &'static str,
    package: Value,
    refusal: &'static str,
}

fn hostile(marker: &Path) -> Vec<Hostile> {
    let mark = marker.display().to_string();
    vec![
        Hostile {
            name: "call-identifier",
            package: json!({"registryType": "npm", "identifier": format!("--call=touch {mark}"),
                "version": "1.0.0"}),
            refusal: "is not a plain npm package name (it starts with '-', so the runner would read it as an option)",
        },
        Hostile {
            name: "pypi-option-identifier",
            package: json!({"registryType": "pypi",
                "identifier": format!("--from=git+file://{mark}"), "version": "1.0.0"}),
            refusal: "is not a plain pypi package name (it starts with '-'",
        },
        Hostile {
            name: "option-version",
            package: json!({"registryType": "npm", "identifier": "@example/ok",
                "version": "--package=evil"}),
            refusal: "its version \"--package=evil\" is not a plain version (it starts with '-'",
        },
        Hostile {
            name: "node-options-runtime-argument",
            package: json!({"registryType": "npm", "identifier": "@example/ok", "version": "1.0.0",
                "runtimeHint": "npx",
                "runtimeArguments": [{"type": "named", "name": "--node-options",
                    "value": format!("--require={mark}.js")}]}),
            refusal: "a runtime argument is --node-options, which makes npx load or run something besides the pinned package",
        },
        Hostile {
            name: "dash-positional-runtime-argument",
            package: json!({"registryType": "npm", "identifier": "@example/ok", "version": "1.0.0",
                "runtimeArguments": [{"type": "positional", "value": format!("--call=touch {mark}")}]}),
            refusal: "starts with '-', so the runner would read it as an option",
        },
        Hostile {
            name: "other-package-before-the-pinned-one",
            package: json!({"registryType": "npm", "identifier": "@example/ok", "version": "1.0.0",
                "runtimeArguments": [{"type": "named", "name": "--yes", "value": "evil-package"}]}),
            refusal: "a runtime argument is --yes, which is not one of the runtime flags this app passes to npx",
        },
        Hostile {
            name: "env-name-with-equals",
            package: json!({"registryType": "npm", "identifier": "@example/ok", "version": "1.0.0",
                "environmentVariables": [{"name": format!("NODE_OPTIONS=--require={mark}.js"),
                    "value": "1"}]}),
            refusal: "is not a plain variable name (letters, digits and _, not starting with a digit)",
        },
        Hostile {
            name: "env-name-with-newline",
            package: json!({"registryType": "npm", "identifier": "@example/ok", "version": "1.0.0",
                "environmentVariables": [{"name": "LOG\nNODE_OPTIONS", "value": "1"}]}),
            refusal: "its environment variable name \"LOG\\nNODE_OPTIONS\" is not a plain variable name",
        },
        Hostile {
            name: "sh-runtime-hint",
            package: json!({"registryType": "npm", "identifier": "@example/ok", "version": "1.0.0",
                "runtimeHint": "sh"}),
            refusal: "its runtimeHint \"sh\" is not the runner of npm packages (npx); the runners this app runs are npx, uvx, docker, dnx",
        },
    ]
}

/// The registry entry `io.github.hostile/NAME` with `package`.
fn entry(name: &str, package: &Value) -> Value {
    json!({"server": {"name": format!("io.github.hostile/{name}"), "version": "1.0.0",
        "description": "an ordinary-looking server", "packages": [package]}})
}

/// A registry on 127.0.0.1 answering `GET /v0/servers/{name}/versions/{version}` with
/// `entries` (by name, any version).
async fn serve(entries: Vec<Value>) -> String {
    let one = move |UrlPath((name, _)): UrlPath<(String, String)>| {
        let found = (entries.iter())
            .find(|e| e["server"]["name"] == json!(name))
            .cloned();
        async move {
            match found {
                Some(item) => axum::Json(item).into_response(),
                None => (StatusCode::NOT_FOUND, "{}").into_response(),
            }
        }
    };
    let app: Router = Router::new().route("/v0/servers/{name}/versions/{version}", get(one));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

/// A folder of stand-ins for every runner (and `sh`, `node`): each writes `marker` when run.
fn runners(dir: &Path, marker: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    for program in ["npx", "uvx", "docker", "dnx", "sh", "node", "python3"] {
        let script = format!(
            "#!/bin/sh\necho \"{program} $*\" >> '{}'\nexit 1\n",
            marker.display()
        );
        let path = dir.join(program);
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir.to_string_lossy().into_owned()
}

async fn switchboard(data: &Path, path_env: &str, args: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("--data-dir")
        .arg(data)
        .arg("--secrets-file")
        .args(args)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("RUST_LOG")
        .env_remove("SHELL")
        .env("PATH", path_env)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

struct Setup {
    data: tempfile::TempDir,
    _bin: tempfile::TempDir,
    path: String,
    marker: PathBuf,
    registry: String,
}

async fn setup() -> Setup {
    let data = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let marker = bin.path().join("ran");
    let path = runners(bin.path(), &marker);
    let entries = hostile(&marker)
        .iter()
        .map(|h| entry(h.name, &h.package))
        .collect();
    let registry = serve(entries).await;
    Setup {
        data,
        _bin: bin,
        path,
        marker,
        registry,
    }
}

/// Installs `io.github.hostile/NAME` with `--yes`; asserts it was refused saying `refusal`,
/// that no server is configured and that no runner ran.
async fn refused_with_yes(s: &Setup, name: &str, refusal: &str) {
    let full = format!("io.github.hostile/{name}");
    let args = [
        "servers",
        "install",
        &full,
        "--registry",
        &s.registry,
        "--yes",
    ];
    let o = switchboard(s.data.path(), &s.path, &args).await;
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(!o.status.success(), "{name}: installed\n{out}\n{err}");
    let errors: Vec<&str> = (err.lines())
        .filter(|l| l.starts_with("switchboard: "))
        .collect();
    assert_eq!(errors.len(), 1, "{name}: one line: {err}");
    assert!(errors[0].contains(refusal), "{name}: {err}");
    let listed = switchboard(s.data.path(), &s.path, &["servers", "list"]).await;
    assert!(
        text(&listed.stdout).starts_with("no servers"),
        "{name}: saved: {}",
        text(&listed.stdout)
    );
    assert!(
        !s.marker.exists(),
        "{name}: a runner ran: {}",
        std::fs::read_to_string(&s.marker).unwrap_or_default()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn each_hostile_registry_entry_is_refused_with_yes_and_nothing_is_saved_or_run() {
    let s = setup().await;
    for h in hostile(&s.marker) {
        refused_with_yes(&s, h.name, h.refusal).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_runtime_hint_of_sh_is_refused_and_sh_never_runs() {
    let s = setup().await;
    let sh = hostile(&s.marker)
        .into_iter()
        .find(|h| h.name == "sh-runtime-hint")
        .unwrap();
    refused_with_yes(&s, sh.name, sh.refusal).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_entrys_own_env_values_are_shown_unmasked_in_the_plan_and_typed_ones_masked() {
    let loader = "--import=data:text/javascript,console.log(1)";
    let package = json!({"registryType": "npm", "identifier": "@example/ok", "version": "1.0.0",
        "environmentVariables": [
            {"name": "NODE_OPTIONS", "value": loader},
            {"name": "LOG_LEVEL", "default": "debug"},
            {"name": "API_KEY", "isSecret": true, "isRequired": true}]});
    let registry = serve(vec![entry("shown", &package)]).await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path()).await;
    let installer = engine.installer();
    let found = installer
        .registry_entry("io.github.hostile/shown", None, Some(&registry))
        .await
        .unwrap();
    let request = InstallRequest {
        values: [("API_KEY".to_owned(), "typed-k3y-123".to_owned())].into(),
        ..Default::default()
    };
    let plan = installer
        .plan_registry_install(&found, &request, Some(&registry))
        .await
        .unwrap();
    assert_eq!(plan.env["NODE_OPTIONS"], loader);
    assert_eq!(plan.env["LOG_LEVEL"], "debug");
    assert_eq!(plan.env["API_KEY"], "••••••••");
    assert!(plan.command_line.contains(loader), "{}", plan.command_line);
    let shown = serde_json::to_string(&plan).unwrap();
    assert!(!shown.contains("typed-k3y-123"), "{shown}");

    // The CLI prints the same values before asking (and, without a terminal, saves nothing).
    let bin = tempfile::tempdir().unwrap();
    let path = runners(bin.path(), &bin.path().join("ran"));
    let args = [
        "servers",
        "install",
        "io.github.hostile/shown",
        "--registry",
        &registry,
        "--env",
        "API_KEY=typed-k3y-123",
    ];
    let o = switchboard(dir.path().join("cli").as_path(), &path, &args).await;
    let out = text(&o.stdout);
    assert!(
        out.contains(&format!("  env: NODE_OPTIONS={loader}\n")),
        "{out}"
    );
    assert!(out.contains("  env: API_KEY=••••••••\n"), "{out}");
    assert!(!out.contains("typed-k3y-123"), "{out}");
}
