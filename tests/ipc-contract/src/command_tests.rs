//! Commands read from their Rust functions: names, keys, injected arguments, raw bodies.

use super::*;
use crate::error::TypeProblem;
use crate::types::{Alias, Resolve};

struct Exports(&'static [&'static str]);

impl Resolve for Exports {
    fn exported(&self, name: &str) -> bool {
        self.0.contains(&name)
    }

    fn alias(&self, _: &str) -> Result<Option<Alias>, TypeProblem> {
        Ok(None)
    }
}

const USES: &str = "use tauri::{AppHandle, Runtime, State, WebviewWindow};
                    use tauri::ipc::{Channel, Request}; use super::CmdResult;";

/// The command in `source` (one function, `use`s from [`USES`]).
fn command(source: &str) -> Result<Command, ContractError> {
    let file: syn::File = syn::parse_str(&format!("{USES}\n{source}")).unwrap();
    let uses = UseMap::of_items(&file.items);
    let function = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Fn(f) => Some(f.clone()),
            _ => None,
        })
        .unwrap();
    let resolve = Exports(&["Conversation", "PreparedFile", "ChatEvent"]);
    let origin = Origin {
        registered: "commands::test::it".into(),
        file: "src-tauri/src/commands/test.rs".into(),
        cfg: Vec::new(),
    };
    read(&function, &uses, &Mapper::new(&resolve), origin)
}

fn keys(command: &Command) -> Vec<(String, String, bool)> {
    let Input::Arguments(args) = &command.input else {
        panic!("{} takes a raw body", command.name);
    };
    args.iter()
        .map(|a| (a.key.clone(), a.ty.render(), a.optional))
        .collect()
}

fn key_list(list: &[(&str, &str, bool)]) -> Vec<(String, String, bool)> {
    list.iter()
        .map(|(k, t, o)| ((*k).to_owned(), (*t).to_owned(), *o))
        .collect()
}

#[test]
fn snake_case_argument_names_travel_as_lower_camel_case() {
    let read = command(
        "/// Renames it.
         #[tauri::command]
         pub async fn rename_conversation(engine: State<'_, Engine>, conversation_id: String,
             new_title: String, sha256: Option<String>) -> CmdResult<Conversation> { todo!() }",
    )
    .unwrap();
    assert_eq!(read.name, "rename_conversation");
    assert_eq!(read.docs, ["Renames it."]);
    assert_eq!(read.output.render(), "Conversation");
    assert_eq!(
        keys(&read),
        key_list(&[
            ("conversationId", "string", false),
            ("newTitle", "string", false),
            ("sha256", "string | null", true),
        ])
    );
}

#[test]
fn rename_all_snake_case_keeps_the_names_and_rename_changes_the_command_name() {
    let read = command(
        "#[tauri::command(rename_all = \"snake_case\", rename = \"renamed\")]
         pub fn it(conversation_id: String) {}",
    )
    .unwrap();
    assert_eq!(read.name, "renamed");
    assert_eq!(
        keys(&read),
        key_list(&[("conversation_id", "string", false)])
    );
    assert_eq!(read.output, TsType::Void);

    let camel = command(
        "#[tauri::command(async, rename_all = \"camelCase\")]
         pub fn it(on_event: Channel<Vec<ChatEvent>>) {}",
    )
    .unwrap();
    assert_eq!(
        keys(&camel),
        key_list(&[("onEvent", "Channel<ChatEvent[]>", false)])
    );

    let wrong = command("#[tauri::command(rename_all = \"kebab-case\")] pub fn it() {}");
    assert!(
        matches!(&wrong, Err(ContractError::Signature { message, .. }) if message.contains("kebab-case")),
        "{wrong:?}"
    );
}

#[test]
fn arguments_tauri_fills_in_are_not_sent() {
    let read = command(
        "#[tauri::command]
         pub fn it<R: Runtime>(app: AppHandle<R>, engine: State<'_, Engine>,
             window: tauri::WebviewWindow<R>, r#type: bool) -> bool { true }",
    )
    .unwrap();
    assert_eq!(keys(&read), key_list(&[("type", "boolean", false)]));
    assert_eq!(read.output.render(), "boolean");
}

#[test]
fn a_request_argument_makes_a_raw_body_command() {
    let read = command(
        "#[tauri::command]
         pub async fn attach_bytes(engine: State<'_, Engine>, request: Request<'_>)
             -> CmdResult<PreparedFile> { todo!() }",
    )
    .unwrap();
    assert_eq!(read.input, Input::Raw);
    assert_eq!(read.output.render(), "PreparedFile");

    let mixed = command("#[tauri::command] pub fn it(request: Request<'_>, name: String) {}");
    assert!(
        matches!(&mixed, Err(ContractError::Signature { message, .. }) if message.contains("`name`")),
        "{mixed:?}"
    );
}

#[test]
fn an_unknown_type_fails_naming_the_type_the_argument_and_the_command() {
    let error = command(
        "#[tauri::command] pub fn set_secret(engine: State<'_, Engine>, secret: Secret) {}",
    )
    .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("command `set_secret`"), "{message}");
    assert!(message.contains("argument `secret`"), "{message}");
    assert!(
        message.contains("type `Secret` is not exported by ui/src/bindings.ts"),
        "{message}"
    );

    let result = command("#[tauri::command] pub fn it() -> CmdResult<Secret> { todo!() }")
        .unwrap_err()
        .to_string();
    assert!(result.contains("its result: type `Secret`"), "{result}");
}

#[test]
fn a_function_without_the_command_attribute_is_refused() {
    let error = command("pub fn it() {}").unwrap_err();
    assert!(
        matches!(error, ContractError::NotACommand { .. }),
        "{error:?}"
    );
}
