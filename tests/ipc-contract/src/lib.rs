//! The IPC contract between the app's Tauri commands and the UI. Reads the command list of
//! `src-tauri/src/lib.rs` (`tauri::generate_handler![…]`) and each command's Rust signature
//! (source files only: this crate depends on neither the app nor the engine), and writes
//! `ui/src/api/commands.ts`, one typed TypeScript function per command. The test in
//! `tests/contract.rs` fails when the committed file differs from a fresh generation;
//! `SWITCHBOARD_BLESS=1` (`make bless`) rewrites it.
//!
//! What crosses IPC, and how it is written in TypeScript:
//! - the command's name is the function's, or its `#[tauri::command(rename = "…")]`;
//! - each argument travels under its name in lowerCamelCase (`conversation_id` →
//!   `conversationId`), or as written with `rename_all = "snake_case"`;
//! - arguments Tauri fills in (`State`, `AppHandle`, `Window`, `Webview`, `WebviewWindow`,
//!   `CommandScope`, `GlobalScope` of `tauri`) are not sent;
//! - an `Option` argument may be left out;
//! - a command taking `tauri::ipc::Request` reads the raw request: its wrapper takes a `body`
//!   (sent as it is, not as JSON) and `headers`, and the command may take no other argument;
//! - `CmdResult<T>`/`Result<T, _>` resolves to `T`, `()` to `void`;
//! - the types themselves follow [`types`]; a named type must be exported by
//!   `ui/src/bindings.ts` or be a type alias declared under `src-tauri/`.

pub mod command;
pub mod error;
pub mod paths;
pub mod render;
pub mod source;
pub mod types;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use syn::ext::IdentExt;

pub use crate::command::Command;
use crate::command::Origin;
pub use crate::error::{ContractError, TypeProblem};
use crate::paths::UseMap;
use crate::source::{BINDINGS, LIB, Repository};
use crate::types::Mapper;

/// The generated file, relative to the repository root.
pub const GENERATED: &str = "ui/src/api/commands.ts";

/// The environment variable that makes the check rewrite the generated file.
pub const BLESS_ENV: &str = "SWITCHBOARD_BLESS";

/// The repository this crate belongs to (two folders above its manifest).
pub fn repository_root() -> PathBuf {
    // Cargo's run-time value first: a test binary built from another clone of the repository
    // with the same sources can be reused by cargo, and would read (and bless) that clone.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest.ancestors().nth(2).unwrap_or(&manifest).to_owned()
}

/// The text of `ui/src/api/commands.ts` for the repository at `root`.
pub fn generate(root: &Path) -> Result<String, ContractError> {
    Ok(render::file(&commands(root)?))
}

/// Every command registered in the repository at `root`, in the handler list's order.
pub fn commands(root: &Path) -> Result<Vec<Command>, ContractError> {
    let exported = source::exported_names(&source::read_text(root, BINDINGS)?);
    let repository = Repository::new(root, exported);
    let mapper = Mapper::new(&repository);
    let lib = source::parse(root, LIB)?;
    let mut modules: HashMap<String, (syn::File, UseMap)> = HashMap::new();
    let mut commands = Vec::new();
    for entry in source::handler_entries(&lib, LIB)? {
        let registered = types::written(&entry.path);
        let mut segments: Vec<String> = entry
            .path
            .segments
            .iter()
            .map(|s| s.ident.unraw().to_string())
            .collect();
        if segments
            .first()
            .is_some_and(|s| s == "crate" || s == "self")
        {
            segments.remove(0);
        }
        let Some((function, module)) = segments.split_last() else {
            continue;
        };
        let file = source::module_file(root, module, &registered)?;
        if !modules.contains_key(&file) {
            let parsed = source::parse(root, &file)?;
            let uses = UseMap::of_items(&parsed.items);
            modules.insert(file.clone(), (parsed, uses));
        }
        let Some((parsed, uses)) = modules.get(&file) else {
            continue;
        };
        let item = parsed
            .items
            .iter()
            .find_map(|item| match item {
                syn::Item::Fn(f) if f.sig.ident.unraw() == function.as_str() => Some(f),
                _ => None,
            })
            .ok_or_else(|| ContractError::NoFunction {
                command: registered.clone(),
                path: file.clone().into(),
                function: function.clone(),
            })?;
        let origin = Origin {
            registered,
            file,
            cfg: entry.cfg,
        };
        commands.push(command::read(item, uses, &mapper, origin)?);
    }
    no_duplicates(&commands)?;
    Ok(commands)
}

/// Words a generated function cannot be named (JavaScript's reserved words).
const RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "let",
    "static",
    "implements",
    "interface",
    "package",
    "private",
    "protected",
    "public",
    "await",
];

/// Refuses two commands invoked under one name or wrapped by one function name, and function
/// names TypeScript does not allow.
fn no_duplicates(commands: &[Command]) -> Result<(), ContractError> {
    let mut seen: HashMap<String, &Command> = HashMap::new();
    for command in commands {
        let function = render::function_name(&command.name);
        if RESERVED.contains(&function.as_str()) {
            return Err(ContractError::Signature {
                command: command.name.clone(),
                path: command.file.clone().into(),
                message: format!(
                    "its wrapper would be called `{function}`, a reserved word in TypeScript; \
                     rename the command (`#[tauri::command(rename = \"…\")]` or the function)"
                ),
            });
        }
        let mut names = vec![command.name.clone(), function];
        names.dedup();
        for name in names {
            if let Some(first) = seen.insert(name.clone(), command) {
                return Err(ContractError::Duplicate {
                    name,
                    first: first.registered.clone(),
                    second: command.registered.clone(),
                });
            }
        }
    }
    Ok(())
}
