//! The engine's dependency rule (docs/architecture.md): each top-level module of
//! `src-tauri/engine/src` may name only the modules listed for it in [`ALLOWED`], so the parts
//! stay layered and no two of them import each other. The test reads every `crate::…` path in
//! the code (comments left out), including `use crate::{a, b::c}` groups and the crate root's
//! re-exports, and fails naming each file and import that breaks the rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which top-level modules each top-level module may import. `lib` (the file that defines
/// `Engine`) may import everything and is not listed.
const ALLOWED: &[(&str, &[&str])] = &[
    ("vocab", &[]),
    ("profile_lock", &[]),
    ("local_ollama", &[]),
    ("logging", &["vocab"]),
    ("paths", &["vocab"]),
    ("secrets", &["vocab", "logging"]),
    ("store", &["vocab"]),
    ("provider", &["vocab"]),
    ("local", &["vocab", "provider"]),
    ("export", &["vocab", "store"]),
    (
        "error",
        &[
            "vocab", "store", "paths", "logging", "provider", "secrets", "export",
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
        ],
    ),
    (
        "mcp",
        &["vocab", "error", "store", "secrets", "logging", "paths"],
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
