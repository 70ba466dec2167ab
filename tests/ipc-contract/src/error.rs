//! What can go wrong while reading the commands and mapping their types to TypeScript. Every
//! message names the file, and where there is one the command, so that a failing check says
//! what to change.

use std::path::PathBuf;

/// Why `ui/src/api/commands.ts` could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum ContractError {
    /// A source file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A source file is not valid Rust.
    #[error("cannot parse {path} as Rust: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// `lib.rs` has no `generate_handler!` list, or more than one.
    #[error(
        "{path} has {count} `tauri::generate_handler![...]` lists; the contract reads exactly one"
    )]
    HandlerCount {
        /// The file searched (`src-tauri/src/lib.rs`).
        path: PathBuf,
        /// How many lists were found.
        count: usize,
    },
    /// The `generate_handler!` list is not a list of paths (with optional `#[cfg]`s).
    #[error("the `generate_handler!` list in {path} is not a list of command paths: {message}")]
    HandlerList {
        /// The file (`src-tauri/src/lib.rs`).
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A registered command's module has no file where Rust would look for it.
    #[error("command `{command}`: no file for module `{module}` (looked for {looked})")]
    NoModule {
        /// The path as registered.
        command: String,
        /// The module path.
        module: String,
        /// The files tried.
        looked: String,
    },
    /// A registered command's module file has no such top-level function.
    #[error("command `{command}`: {path} has no top-level `fn {function}`")]
    NoFunction {
        /// The path as registered.
        command: String,
        /// The module file.
        path: PathBuf,
        /// The function name.
        function: String,
    },
    /// A registered function is not marked `#[tauri::command]`.
    #[error("command `{command}`: `fn {function}` in {path} is not marked `#[tauri::command]`")]
    NotACommand {
        /// The path as registered.
        command: String,
        /// The module file.
        path: PathBuf,
        /// The function name.
        function: String,
    },
    /// A command's signature or `#[tauri::command(...)]` options cannot be turned into a call.
    #[error("command `{command}` ({path}): {message}")]
    Signature {
        /// The invoked name.
        command: String,
        /// The module file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// An argument or result type has no TypeScript counterpart.
    #[error("command `{command}` ({path}), {place}: {problem}")]
    Type {
        /// The invoked name.
        command: String,
        /// The module file.
        path: PathBuf,
        /// "argument `title`" or "its result".
        place: String,
        /// What is wrong with the type.
        problem: Box<TypeProblem>,
    },
    /// Two registered commands are invoked under the same name, or wrapped by the same function.
    #[error("`{name}` is generated twice: for {first} and for {second}")]
    Duplicate {
        /// The clashing name.
        name: String,
        /// The first command's path.
        first: String,
        /// The second command's path.
        second: String,
    },
}

/// Why one Rust type has no TypeScript counterpart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypeProblem {
    /// A named type that `ui/src/bindings.ts` does not export (and that is no type alias).
    #[error(
        "type `{name}` is not exported by ui/src/bindings.ts: derive `ts_rs::TS` for it, add it \
         to src-tauri/src/bindings.rs and run `make bless`"
    )]
    NotExported {
        /// The type's name.
        name: String,
    },
    /// A type that cannot cross IPC as an argument or result (a reference to a trait, a
    /// function pointer, an injected Tauri type inside another type, …).
    #[error("`{ty}` has no TypeScript counterpart: {why}")]
    Unsupported {
        /// The type as written.
        ty: String,
        /// Why.
        why: String,
    },
    /// A type alias the contract could not follow.
    #[error("type alias `{name}`: {message}")]
    Alias {
        /// The alias's name.
        name: String,
        /// What went wrong.
        message: String,
    },
}
