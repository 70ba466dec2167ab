//! The type mapping, one rule at a time.

use std::collections::HashMap;

use super::*;

/// bindings.ts exports `exported`; `aliases` are declared (without `use`s).
struct Fake {
    exported: Vec<&'static str>,
    aliases: HashMap<&'static str, &'static str>,
}

impl Resolve for Fake {
    fn exported(&self, name: &str) -> bool {
        self.exported.contains(&name)
    }

    fn alias(&self, name: &str) -> Result<Option<Alias>, TypeProblem> {
        Ok(self.aliases.get(name).map(|ty| Alias {
            ty: syn::parse_str(ty).unwrap(),
            uses: UseMap::default(),
        }))
    }
}

fn fake() -> Fake {
    Fake {
        exported: vec![
            "Conversation",
            "Page",
            "JsonValue",
            "ModelPrice",
            "ChatEvent",
        ],
        aliases: HashMap::from([
            ("PriceTable", "BTreeMap<String, ModelPrice>"),
            ("Loop", "Loop"),
        ]),
    }
}

const USES: &str =
    "use tauri::{State, AppHandle, WebviewWindow}; use tauri::ipc::{Channel, Request};
                    use serde_json::Value; use std::path::PathBuf;
                    use std::collections::{BTreeMap, HashMap};";

fn uses() -> UseMap {
    let file: syn::File = syn::parse_str(USES).unwrap();
    UseMap::of_items(&file.items)
}

/// `rust` as a value's TypeScript type.
fn ts(rust: &str) -> Result<String, TypeProblem> {
    let resolve = fake();
    let ty: Type = syn::parse_str(rust).unwrap();
    Mapper::new(&resolve)
        .value(&ty, &uses(), 0)
        .map(|t| t.render())
}

/// `rust` as an argument.
fn argument(rust: &str) -> Argument {
    let resolve = fake();
    let ty: Type = syn::parse_str(rust).unwrap();
    Mapper::new(&resolve).argument(&ty, &uses()).unwrap()
}

/// `-> rust` as a command's result.
fn result(rust: &str) -> String {
    let resolve = fake();
    let output: ReturnType = syn::parse_str(rust).unwrap();
    Mapper::new(&resolve)
        .result(&output, &uses())
        .unwrap()
        .render()
}

#[test]
fn strings_paths_numbers_and_booleans_map_to_their_primitives() {
    for (rust, expected) in [
        ("String", "string"),
        ("&str", "string"),
        ("&'a str", "string"),
        ("PathBuf", "string"),
        ("std::path::PathBuf", "string"),
        ("char", "string"),
        ("bool", "boolean"),
        ("u8", "number"),
        ("u32", "number"),
        ("i64", "number"),
        ("u64", "number"),
        ("usize", "number"),
        ("f64", "number"),
    ] {
        assert_eq!(ts(rust).as_deref(), Ok(expected), "{rust}");
    }
}

#[test]
fn options_sequences_maps_and_wrappers_map_to_their_typescript_shapes() {
    for (rust, expected) in [
        ("Option<String>", "string | null"),
        ("Option<Option<u32>>", "number | null"),
        ("Vec<String>", "string[]"),
        ("&[String]", "string[]"),
        ("[u8; 4]", "number[]"),
        ("Vec<Option<bool>>", "(boolean | null)[]"),
        ("Option<Vec<Conversation>>", "Conversation[] | null"),
        ("BTreeMap<String, ModelPrice>", "Record<string, ModelPrice>"),
        (
            "std::collections::HashMap<String, Vec<u32>>",
            "Record<string, number[]>",
        ),
        ("Box<Conversation>", "Conversation"),
        ("std::sync::Arc<str>", "string"),
        ("Cow<'static, str>", "string"),
        ("(String, u32)", "[string, number]"),
    ] {
        assert_eq!(ts(rust).as_deref(), Ok(expected), "{rust}");
    }
}

#[test]
fn json_values_channels_and_exported_types_keep_the_bindings_names() {
    assert_eq!(ts("Value").as_deref(), Ok("JsonValue"));
    assert_eq!(ts("serde_json::Value").as_deref(), Ok("JsonValue"));
    assert_eq!(
        ts("serde_json::Map<String, Value>").as_deref(),
        Ok("Record<string, JsonValue>")
    );
    assert_eq!(
        ts("Channel<Vec<ChatEvent>>").as_deref(),
        Ok("Channel<ChatEvent[]>")
    );
    assert_eq!(
        ts("switchboard_engine::store::Page<Conversation>").as_deref(),
        Ok("Page<Conversation>")
    );
}

#[test]
fn a_type_alias_is_followed_to_what_it_names() {
    assert_eq!(
        ts("PriceTable").as_deref(),
        Ok("Record<string, ModelPrice>")
    );
    assert_eq!(
        ts("Option<PriceTable>").as_deref(),
        Ok("Record<string, ModelPrice> | null")
    );
    assert!(
        matches!(ts("Loop"), Err(TypeProblem::Alias { name, .. }) if name == "Loop"),
        "an alias of itself ends with an error, not a stack overflow"
    );
}

#[test]
fn a_type_that_bindings_ts_does_not_export_is_an_error_naming_it() {
    let problem = ts("Vec<Secret>").unwrap_err();
    assert_eq!(
        problem,
        TypeProblem::NotExported {
            name: "Secret".into()
        }
    );
    assert!(
        problem
            .to_string()
            .contains("`Secret` is not exported by ui/src/bindings.ts")
    );
    assert!(problem.to_string().contains("make bless"));
}

#[test]
fn types_that_cannot_cross_ipc_are_errors() {
    for rust in [
        "()",
        "impl Fn()",
        "dyn Send",
        "Result<u32, String>",
        "Vec<State<'_, Engine>>",
    ] {
        assert!(
            matches!(ts(rust), Err(TypeProblem::Unsupported { .. })),
            "{rust}: {:?}",
            ts(rust)
        );
    }
}

#[test]
fn tauri_fills_in_state_handles_and_windows_and_request_is_the_raw_body() {
    for rust in [
        "State<'_, Engine>",
        "tauri::State<'_, Engine>",
        "AppHandle<R>",
        "WebviewWindow<R>",
        "tauri::WebviewWindow<R>",
        "tauri::Window<R>",
        "tauri::Webview<R>",
    ] {
        assert_eq!(argument(rust), Argument::Injected, "{rust}");
    }
    assert_eq!(argument("Request<'_>"), Argument::Request);
    assert_eq!(argument("tauri::ipc::Request<'_>"), Argument::Request);
    assert_eq!(
        argument("Option<String>"),
        Argument::Value(TsType::nullable(TsType::String))
    );
}

#[test]
fn a_local_type_named_like_a_tauri_one_is_not_taken_for_it() {
    let resolve = fake();
    let ty: Type = syn::parse_str("State").unwrap();
    let problem = Mapper::new(&resolve)
        .argument(&ty, &UseMap::default())
        .unwrap_err();
    assert_eq!(
        problem,
        TypeProblem::NotExported {
            name: "State".into()
        }
    );
}

#[test]
fn a_result_resolves_to_its_ok_type_and_unit_to_void() {
    assert_eq!(result(""), "void");
    assert_eq!(result("-> ()"), "void");
    assert_eq!(result("-> CmdResult<()>"), "void");
    assert_eq!(
        result("-> super::CmdResult<Page<Conversation>>"),
        "Page<Conversation>"
    );
    assert_eq!(
        result("-> Result<Option<String>, IpcError>"),
        "string | null"
    );
    assert_eq!(result("-> bool"), "boolean");
    assert_eq!(result("-> Vec<String>"), "string[]");
}
