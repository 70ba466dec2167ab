//! `switchboard runtimes` through the real binary: the index setting, and clear refusals (an
//! unknown runtime, an index that is not a URL, an index that is down). Fetching and unpacking
//! against a local index are the engine's tests (`runtimes/tests.rs`).

use super::mcp_serve_http::cli;

#[test]
fn the_index_is_set_and_shown_and_bad_names_urls_and_an_index_that_is_down_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (ok, said) = cli(dir, &["runtimes", "index"]);
    assert!(ok && said.contains("come from https://pypi.org"), "{said}");
    let mirror = "https://pypi.tuna.tsinghua.edu.cn";
    let (ok, said) = cli(dir, &["runtimes", "index", mirror]);
    assert!(ok && said.contains(mirror), "{said}");
    let (ok, said) = cli(dir, &["runtimes", "index", "ftp://mirror"]);
    assert!(!ok && said.contains("not an http(s) URL"), "{said}");
    let (ok, said) = cli(dir, &["runtimes", "index", "--default"]);
    assert!(ok && said.contains("https://pypi.org"), "{said}");

    let (ok, said) = cli(dir, &["runtimes", "install", "ruby"]);
    assert!(
        !ok && said.contains("not a runtime Switchboard brings"),
        "{said}"
    );
    let down = [
        "runtimes",
        "install",
        "uvx",
        "--index",
        "http://127.0.0.1:9",
    ];
    let (ok, said) = cli(dir, &down);
    assert!(
        !ok && said.contains("cannot read uv from the package index"),
        "{said}"
    );
    let (ok, said) = cli(dir, &["runtimes", "list"]);
    assert!(ok && said.contains("no runtimes installed"), "{said}");
}

#[test]
fn the_window_reads_the_runtimes_and_sets_where_packages_come_from_over_ipc() {
    let h = super::ipc::harness();
    let invoke = |cmd: &str, args: serde_json::Value| super::ipc::invoke(&h, cmd, args);
    let overview = invoke("runtimes_overview", serde_json::json!({})).unwrap();
    assert_eq!(overview["installed"], serde_json::json!([]));
    assert_eq!(overview["index"], "https://pypi.org");
    // Only refusals and clearing here: a source set in this process would reach every server
    // the other tests start meanwhile (the values themselves are the CLI's test, in
    // security/env.rs, in a process of its own).
    let bad = invoke(
        "set_package_sources",
        serde_json::json!({ "proxy": "file:///x" }),
    );
    assert_eq!(bad.unwrap_err()["kind"], "invalid_input");
    let bad = invoke(
        "set_package_sources",
        serde_json::json!({ "index": "not a url" }),
    );
    assert_eq!(bad.unwrap_err()["kind"], "invalid_input");
    let cleared = invoke("set_package_sources", serde_json::json!({})).unwrap();
    assert_eq!(cleared["index"], "https://pypi.org");
    assert_eq!(cleared["npmRegistry"], serde_json::Value::Null);
    assert_eq!(cleared["proxy"], serde_json::Value::Null);
    let unknown = invoke("install_runtime", serde_json::json!({ "name": "ruby" }));
    assert_eq!(unknown.unwrap_err()["kind"], "invalid_input");
    assert_eq!(
        invoke("remove_runtime", serde_json::json!({ "name": "node" })),
        Ok(serde_json::Value::Null)
    );
}
