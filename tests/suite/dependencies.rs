//! The engine's dependency rule (docs/architecture.md): each top-level module of
//! `src-tauri/engine/src` may name only the modules listed for it in [`ALLOWED`], so the parts
//! stay layered and no two of them import each other. The test reads every `crate::…` path in
//! the code (comments left out), including `use crate::{a, b::c}` groups and the crate root's
//! re-exports, and fails naming each file and import that breaks the rule.
//!
//! A second table, [`MCP_ROOMS`], holds the one-way order of the rooms inside `mcp/`
//! (builtin ← client ← supervisor ← host ← install, and host ← serve): every `crate::mcp::…` path and every
//! `super::…` / `super::super::…` path that leaves a room is resolved to the room it names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which top-level modules each top-level module may import. `lib` (the file that defines
/// `Engine`) may import everything and is not listed.
const ALLOWED: &[(&str, &[&str])] = &[
    ("vocab", &[]),
    ("netguard", &[]),
    ("profile_lock", &[]),
    ("local_ollama", &[]),
    ("logging", &["vocab"]),
    ("paths", &["vocab"]),
    ("secrets", &["vocab", "logging"]),
    ("store", &["vocab"]),
    ("provider", &["vocab"]),
    ("local", &["vocab", "provider"]),
    ("knowledge", &["vocab", "store", "local"]),
    (
        "engine_knowledge",
        &["vocab", "error", "store", "knowledge", "mcp", "lib"],
    ),
    ("export", &["vocab", "store"]),
    ("backups", &["store", "paths"]),
    ("runtimes", &["store"]),
    ("sync", &["store", "secrets"]),
    (
        "error",
        &[
            "vocab",
            "backups",
            "runtimes",
            "sync",
            "store",
            "paths",
            "logging",
            "provider",
            "secrets",
            "export",
            "knowledge",
        ],
    ),
    (
        "providers",
        &[
            "vocab",
            "error",
            "store",
            "secrets",
            "provider",
            "local",
            "local_ollama",
            "knowledge",
        ],
    ),
    (
        "mcp",
        &[
            "vocab",
            "error",
            "store",
            "secrets",
            "logging",
            "paths",
            "netguard",
            "knowledge",
            "provider",
        ],
    ),
    (
        "openai_api",
        &[
            "vocab",
            "error",
            "store",
            "provider",
            "providers",
            "mcp",
            "agent",
            "knowledge",
        ],
    ),
    (
        "agent",
        &[
            "vocab",
            "error",
            "store",
            "provider",
            "providers",
            "mcp",
            "logging",
            "knowledge",
        ],
    ),
];

/// The crate root's own items and re-exports, by the module that owns them.
const ROOT_ITEMS: &[(&str, &str)] = &[
    ("Engine", "lib"),
    ("AppInfo", "lib"),
    ("VERSION", "lib"),
    ("EngineError", "error"),
    ("ErrorKind", "error"),
    ("Redactor", "logging"),
    ("Paths", "paths"),
    ("Secrets", "secrets"),
    ("Store", "store"),
];

fn engine_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/engine/src")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`lib` for `lib.rs`).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_owned()
}

/// `text` without `//` comments (line and doc comments); string contents are kept, which only
/// errs towards reporting more.
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first segments named after `crate::` in `code`: `crate::x::…` gives `x`, and
/// `crate::{a::b, c}` gives `a` and `c` (top-level entries of the group only).
fn crate_imports(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue; // e.g. `switchboard_engine::` or `$crate::`
        }
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            found.extend(group_heads(group));
        } else {
            found.push(ident(rest).to_owned());
        }
    }
    found
}

/// The top-level entries of a `{…}` use group (`group` starts after the `{`).
fn group_heads(group: &str) -> Vec<String> {
    let (mut depth, mut start, mut heads) = (0usize, 0usize, Vec::new());
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                heads.push(ident(group[start..i].trim()).to_owned());
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                heads.push(ident(group[start..i].trim()).to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    heads.retain(|h| !h.is_empty() && h != "self");
    heads
}

/// The module an imported name belongs to: a root item's owner, else the name itself.
fn owner(name: &str) -> String {
    ROOT_ITEMS
        .iter()
        .find(|(item, _)| *item == name)
        .map_or(name, |(_, owner)| owner)
        .to_owned()
}

/// Every import that breaks [`ALLOWED`]: (file, module imported).
fn violations() -> BTreeSet<(String, String)> {
    let root = engine_src();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut bad = BTreeSet::new();
    for file in files {
        let module = module_of(&root, &file);
        if module == "lib" {
            continue;
        }
        let may = allowed
            .get(module.as_str())
            .unwrap_or_else(|| panic!("module `{module}` has no row in ALLOWED"));
        let code = without_comments(&std::fs::read_to_string(&file).unwrap());
        for target in crate_imports(&code).iter().map(|n| owner(n)) {
            if target != module && !may.contains(&target.as_str()) {
                let rel = file.strip_prefix(&root).unwrap().display().to_string();
                bad.insert((rel, target));
            }
        }
    }
    bad
}

#[test]
fn every_engine_module_imports_only_what_the_table_allows() {
    let bad = violations();
    let lines: Vec<String> = bad
        .iter()
        .map(|(file, target)| format!("{file} imports crate::{target}"))
        .collect();
    assert!(
        lines.is_empty(),
        "imports the dependency rule forbids:\n{}",
        lines.join("\n")
    );
}

#[test]
fn the_allowed_table_has_no_circles() {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    fn reaches(
        from: &str,
        to: &str,
        table: &BTreeMap<&str, &[&str]>,
        seen: &mut Vec<String>,
    ) -> bool {
        if seen.iter().any(|s| s == from) {
            return false;
        }
        seen.push(from.to_owned());
        let next = table.get(from).copied().unwrap_or_default();
        next.iter().any(|n| *n == to || reaches(n, to, table, seen))
    }
    for (module, deps) in ALLOWED {
        for dep in *deps {
            assert!(
                !reaches(dep, module, &allowed, &mut Vec::new()),
                "`{module}` may import `{dep}`, which may import `{module}` back"
            );
        }
    }
}

#[test]
fn the_reader_finds_plain_grouped_and_root_imports() {
    let code = "use crate::store::Store;\nuse crate::{Engine, mcp::{a, b}, vocab};\n\
                fn f() { crate::agent::run(); } // crate::export::x\n";
    let found: Vec<String> = crate_imports(&without_comments(code))
        .iter()
        .map(|n| owner(n))
        .collect();
    assert_eq!(found, ["store", "lib", "mcp", "vocab", "agent"]);
}

#[test]
fn the_vocabulary_imports_nothing_else_from_the_crate() {
    let bad: Vec<_> = violations()
        .into_iter()
        .filter(|(file, _)| file.starts_with("vocab"))
        .collect();
    assert!(bad.is_empty(), "vocab imports {bad:?}");
}

/// The rooms of `mcp/` and the rooms each may import (docs/architecture.md). `mcp/mod.rs`
/// (the part's export list) and `mcp/tests/` (tests across rooms) are not rooms.
const MCP_ROOMS: &[(&str, &[&str])] = &[
    ("builtin", &[]),
    ("client", &["builtin"]),
    ("supervisor", &["client", "builtin"]),
    ("host", &["supervisor", "client", "builtin"]),
    ("install", &["host", "supervisor", "client", "builtin"]),
    ("serve", &["host", "supervisor", "client", "builtin"]),
];

/// The module path of `file` under the engine's `src` (`mcp/client/mod.rs` is
/// `["mcp", "client"]`, `mcp/client/oauth/net.rs` is `["mcp", "client", "oauth", "net"]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Every path into `mcp/` that `code` (in the module at `path`) names, resolved to absolute
/// module paths: `crate::mcp::a::…` and `crate::mcp::{a, b}` give `["mcp", "a"]`…; `super::x`
/// and `super::super::x` are resolved from `path`. Only the first segment past `mcp` is kept.
fn mcp_paths(code: &str, path: &[String]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (i, _) in code.match_indices("crate::mcp::") {
        if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + "crate::mcp::".len()..];
        let heads = match rest.strip_prefix('{') {
            Some(group) => group_heads(group),
            None => vec![ident(rest).to_owned()],
        };
        found.extend(heads.into_iter().map(|h| vec!["mcp".to_owned(), h]));
    }
    for (i, _) in code.match_indices("super::") {
        let before = &code[..i];
        if before.ends_with("super::")
            || before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
        {
            continue; // the second `super::` of a chain, or part of a longer path
        }
        let mut rest = &code[i..];
        // The module a `super::` is written in: its file's module, and the inline modules
        // (`mod tests { … }`) around it.
        let mut base = path.to_vec();
        base.extend(inline_modules_around(code, i));
        while let Some(next) = rest.strip_prefix("super::") {
            base.pop();
            rest = next;
        }
        let heads = match rest.strip_prefix('{') {
            Some(group) => group_heads(group),
            None => vec![ident(rest).to_owned()],
        };
        for head in heads {
            let mut resolved = base.clone();
            resolved.push(head);
            if resolved.first().is_some_and(|m| m == "mcp") && resolved.len() >= 2 {
                found.push(resolved[..2].to_vec());
            }
        }
    }
    found
}

/// The names of the inline modules (`mod name { … }`) that enclose byte `at` of `code`,
/// outermost first.
fn inline_modules_around(code: &str, at: usize) -> Vec<String> {
    let mut open: Vec<(usize, Option<String>)> = Vec::new(); // (depth, module name)
    let mut pending: Option<String> = None;
    let mut depth = 0usize;
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < at {
        let c = bytes[i];
        if code.is_char_boundary(i)
            && code[i..].starts_with("mod ")
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'))
        {
            let name = ident(&code[i + 4..]);
            let after = code[i + 4 + name.len()..].trim_start();
            if !name.is_empty() && after.starts_with('{') {
                pending = Some(name.to_owned());
            }
        }
        match c {
            b'{' => {
                depth += 1;
                open.push((depth, pending.take()));
            }
            b'}' => {
                open.retain(|(d, _)| *d < depth);
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        i += 1;
    }
    open.into_iter().filter_map(|(_, name)| name).collect()
}

/// The room-rule breaks of one file's `code` at `rel` (relative to the engine's `src`): each
/// as "file imports mcp::room".
fn room_violations_in(rel: &Path, code: &str) -> Vec<String> {
    let path = module_path(rel);
    let Some(room) = path.get(1).filter(|_| path[0] == "mcp") else {
        return Vec::new();
    };
    if room == "tests" {
        return Vec::new();
    }
    let rooms: BTreeMap<&str, &[&str]> = MCP_ROOMS.iter().copied().collect();
    let may = rooms
        .get(room.as_str())
        .unwrap_or_else(|| panic!("mcp/{room} is neither a room in MCP_ROOMS nor mcp/mod.rs"));
    let mut bad = Vec::new();
    for target in mcp_paths(code, &path) {
        let name = target[1].as_str();
        let known = rooms.contains_key(name);
        if name == room || (known && may.contains(&name)) {
            continue;
        }
        let why = if known {
            ""
        } else {
            " (not a room: import it from its room)"
        };
        bad.push(format!("{} imports mcp::{name}{why}", rel.display()));
    }
    bad
}

/// Every import in `mcp/` that breaks [`MCP_ROOMS`].
fn room_violations() -> BTreeSet<String> {
    let root = engine_src();
    let mut files = Vec::new();
    rust_files(&root.join("mcp"), &mut files);
    let mut bad = BTreeSet::new();
    for file in files {
        let rel = file.strip_prefix(&root).unwrap();
        let code = without_comments(&std::fs::read_to_string(&file).unwrap());
        bad.extend(room_violations_in(rel, &code));
    }
    bad
}

#[test]
fn every_mcp_room_imports_only_the_rooms_before_it() {
    let bad = room_violations();
    let lines: Vec<&str> = bad.iter().map(String::as_str).collect();
    assert!(
        lines.is_empty(),
        "imports between mcp rooms the order forbids:\n{}",
        lines.join("\n")
    );
}

#[test]
fn a_planted_back_import_between_mcp_rooms_is_caught_in_each_way_of_writing_it() {
    let client = Path::new("mcp/client/oauth/net.rs");
    let planted = "use crate::mcp::host::McpHost;\n\
                   use super::super::super::supervisor::Supervisor;\n\
                   use crate::mcp::{install::Installer, client::McpClient};\n\
                   fn f() { crate::mcp::McpHost::new(); }\n";
    let mut found = room_violations_in(client, &without_comments(planted));
    found.sort();
    assert_eq!(
        found,
        [
            "mcp/client/oauth/net.rs imports mcp::McpHost (not a room: import it from its room)",
            "mcp/client/oauth/net.rs imports mcp::host",
            "mcp/client/oauth/net.rs imports mcp::install",
            "mcp/client/oauth/net.rs imports mcp::supervisor",
        ]
    );
}

#[test]
fn imports_inside_a_room_and_down_the_order_are_allowed() {
    let host = Path::new("mcp/host/config/mod.rs");
    let fine = "use super::McpHost;\nuse super::super::client::McpClient;\n\
                use crate::mcp::supervisor::Supervisor;\nuse crate::mcp::builtin::spec;\n\
                mod tests { use super::super::servers::x; }\n";
    assert_eq!(
        room_violations_in(host, &without_comments(fine)),
        Vec::<String>::new()
    );
}
