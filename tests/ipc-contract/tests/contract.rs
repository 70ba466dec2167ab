//! `ui/src/api/commands.ts` must match the Rust commands it wraps; and the generator, run on a
//! small repository of its own, reads what Tauri reads.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use similar::TextDiff;
use switchboard_ipc_contract::{BLESS_ENV, ContractError, GENERATED, generate, repository_root};

/// A unified diff of the committed file against a fresh generation, cut short when long.
fn diff(committed: &str, fresh: &str) -> String {
    let text = TextDiff::from_lines(committed, fresh)
        .unified_diff()
        .context_radius(2)
        .header(
            &format!("{GENERATED} (committed)"),
            "generated from the Rust commands",
        )
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 80 {
        return text;
    }
    format!(
        "{}\n… {} more lines of diff",
        lines[..80].join("\n"),
        lines.len() - 80
    )
}

#[test]
fn the_generated_ipc_wrappers_match_the_rust_commands() {
    let root = repository_root();
    let fresh = match generate(&root) {
        Ok(text) => text,
        Err(error) => panic!("cannot generate {GENERATED} from the Rust commands:\n{error}"),
    };
    let path = root.join(GENERATED);
    if std::env::var_os(BLESS_ENV).is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{GENERATED} does not match the Rust commands (a command, argument or type changed).\n\
         Regenerate it with `make bless` (or `{BLESS_ENV}=1 cargo test -p \
         switchboard-ipc-contract`), then fix the UI where `cd ui && npm run check` fails.\n\n{}",
        diff(&committed, &fresh)
    );
}

/// Writes `files` (path, text) under a fresh folder.
fn repository(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const LIB: &str = "pub mod commands;
pub fn with_commands<R: tauri::Runtime>(b: tauri::Builder<R>) -> tauri::Builder<R> {
    b.invoke_handler(tauri::generate_handler![
        commands::notes::rename_note,
        commands::notes::attach,
        #[cfg(feature = \"extra\")]
        commands::prices::prices,
    ])
}";

const NOTES: &str = "use tauri::State;
use tauri::ipc::{Channel, Request};
use super::CmdResult;

/// Renames a note.
#[tauri::command]
pub async fn rename_note(engine: State<'_, Engine>, note_id: String, new_title: Option<String>,
    on_progress: Channel<Progress>) -> CmdResult<Note> { todo!() }

/// Attaches bytes.
#[tauri::command(rename_all = \"snake_case\")]
pub fn attach(request: Request<'_>) -> CmdResult<()> { todo!() }
";

const PRICES: &str = "use std::collections::BTreeMap;
use tauri::State;
use crate::table::PriceTable;
#[tauri::command]
pub fn prices(engine: State<'_, Engine>) -> Vec<PriceTable> { todo!() }
";

const TABLE: &str = "use std::collections::BTreeMap;
pub type PriceTable = BTreeMap<String, Price>;";

const BINDINGS: &str = "export type Note = { id: string };\nexport type Progress = { done: number };\n\
                        export type Price = { input: number };\nexport type JsonValue = null;\n";

#[test]
fn a_small_repository_generates_the_expected_wrappers() {
    let dir = repository(&[
        ("src-tauri/src/lib.rs", LIB),
        (
            "src-tauri/src/commands/mod.rs",
            "pub mod notes; pub mod prices;",
        ),
        ("src-tauri/src/commands/notes.rs", NOTES),
        ("src-tauri/src/commands/prices/mod.rs", PRICES),
        ("src-tauri/engine/src/table.rs", TABLE),
        ("ui/src/bindings.ts", BINDINGS),
    ]);
    let text = generate(dir.path()).unwrap();
    for expected in [
        "import type { Channel } from '@tauri-apps/api/core';\nimport type {\n  Note,\n  Price,\n  Progress,\n} from '../bindings';\nimport { call } from './ipc';\n",
        "// src-tauri/src/commands/notes.rs\n\n/**\n * Renames a note.\n *\n * Command `rename_note`.\n */\n",
        "export function renameNote(args: {\n  noteId: string;\n  newTitle?: string | null;\n  onProgress: Channel<Progress>;\n}): Promise<Note> {\n  return call<Note>('rename_note', args);\n}\n",
        "export async function attach(body: Uint8Array | ArrayBuffer, headers: Record<string, string>): Promise<void> {\n  await call<null>('attach', body, { headers });\n}\n",
        "// src-tauri/src/commands/prices/mod.rs\n",
        "Command `prices`, only in builds with `feature = \"extra\"`.",
        "export function prices(): Promise<Record<string, Price>[]> {\n  return call<Record<string, Price>[]>('prices');\n}\n",
    ] {
        assert!(text.contains(expected), "missing:\n{expected}\nin:\n{text}");
    }
}

#[test]
fn a_type_missing_from_the_bindings_fails_naming_the_command_and_the_type() {
    let bindings = BINDINGS.replace("export type Progress = { done: number };\n", "");
    let dir = repository(&[
        ("src-tauri/src/lib.rs", LIB),
        ("src-tauri/src/commands/notes.rs", NOTES),
        ("ui/src/bindings.ts", &bindings),
    ]);
    let error = generate(dir.path()).unwrap_err();
    assert!(matches!(error, ContractError::Type { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        "command `rename_note` (src-tauri/src/commands/notes.rs), argument `on_progress`: type \
         `Progress` is not exported by ui/src/bindings.ts: derive `ts_rs::TS` for it, add it to \
         src-tauri/src/bindings.rs and run `make bless`"
    );
}

#[test]
fn a_registered_command_that_does_not_exist_fails_naming_it() {
    let lib = LIB.replace("rename_note", "rename_gone");
    let dir = repository(&[
        ("src-tauri/src/lib.rs", &lib),
        ("src-tauri/src/commands/notes.rs", NOTES),
        ("ui/src/bindings.ts", BINDINGS),
    ]);
    let error = generate(dir.path()).unwrap_err().to_string();
    assert_eq!(
        error,
        "command `commands::notes::rename_gone`: src-tauri/src/commands/notes.rs has no top-level \
         `fn rename_gone`"
    );
}
