//! `ui/src/bindings.ts` must match the Rust types it mirrors.

use std::path::Path;

#[test]
fn the_typescript_bindings_match_the_rust_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings.ts");
    let fresh = switchboard_app::bindings::typescript();
    if std::env::var_os("SWITCHBOARD_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "ui/src/bindings.ts is stale: run `SWITCHBOARD_BLESS=1 cargo test --test all bindings`\n\
         --- expected ---\n{fresh}"
    );
}
