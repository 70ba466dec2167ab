//! `switchboard runtimes` through the real binary: the index setting, and clear refusals (an
//! unknown runtime, an index that is not a URL, an index that is down). Fetching and unpacking
//! against a local index are the engine's tests (`runtimes/tests.rs`).

use super::mcp_serve_http::cli;

#[test]
fn the_index_is_set_and_shown_and_bad_names_urls_and_an_index_that_is_down_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let (ok, said) = cli(dir, &["runtimes", "index"]);
    assert!(
        ok && said.contains("runtimes come from https://pypi.org"),
        "{said}"
    );
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
