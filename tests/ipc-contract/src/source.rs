//! The repository as the contract reads it: the one `generate_handler![…]` list in
//! `src-tauri/src/lib.rs`, the module file of each registered command (Rust's own rules:
//! `a/b.rs` or `a/b/mod.rs`; no `#[path]`, no inline modules), the names `ui/src/bindings.ts`
//! exports, and type aliases declared anywhere under `src-tauri/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Attribute, Item, Token};

use crate::error::{ContractError, TypeProblem};
use crate::paths::UseMap;
use crate::types::{Alias, Resolve};

/// The app crate's root module, which registers the commands.
pub const LIB: &str = "src-tauri/src/lib.rs";
/// The app crate's source folder (where module paths start).
pub const CRATE_SRC: &str = "src-tauri/src";
/// The TypeScript types ts-rs generates from the Rust ones.
pub const BINDINGS: &str = "ui/src/bindings.ts";
/// Where type aliases are looked for (the app and the engine).
pub const RUST_TREE: &str = "src-tauri";

/// The text of `relative` (to `root`).
pub fn read_text(root: &Path, relative: &str) -> Result<String, ContractError> {
    let path = root.join(relative);
    std::fs::read_to_string(&path).map_err(|source| ContractError::Read { path, source })
}

/// The Rust file `relative` (to `root`), parsed.
pub fn parse(root: &Path, relative: &str) -> Result<syn::File, ContractError> {
    let text = read_text(root, relative)?;
    syn::parse_file(&text).map_err(|e| ContractError::Parse {
        path: relative.into(),
        message: e.to_string(),
    })
}

/// One entry of the handler list: a command's path and the `#[cfg(…)]`s over it.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The path as written (`commands::app::app_info`).
    pub path: syn::Path,
    /// The conditions of its `#[cfg(…)]` attributes (`feature = "local"`).
    pub cfg: Vec<String>,
}

impl Parse for Entry {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let path = input.parse()?;
        let cfg = attrs
            .iter()
            .filter(|a| a.path().is_ident("cfg"))
            .filter_map(|a| a.meta.require_list().ok())
            .map(|list| list.tokens.to_string())
            .collect();
        Ok(Self { path, cfg })
    }
}

/// Finds the `generate_handler!` macros in a file.
#[derive(Default)]
struct Handlers(Vec<syn::Macro>);

impl<'ast> Visit<'ast> for Handlers {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "generate_handler")
        {
            self.0.push(mac.clone());
        }
        syn::visit::visit_macro(self, mac);
    }
}

/// The entries of the one `generate_handler!` list in `file` (read from `path`).
pub fn handler_entries(file: &syn::File, path: &str) -> Result<Vec<Entry>, ContractError> {
    let mut handlers = Handlers::default();
    handlers.visit_file(file);
    let [handler] = handlers.0.as_slice() else {
        return Err(ContractError::HandlerCount {
            path: path.into(),
            count: handlers.0.len(),
        });
    };
    let entries = handler
        .parse_body_with(Punctuated::<Entry, Token![,]>::parse_terminated)
        .map_err(|e| ContractError::HandlerList {
            path: path.into(),
            message: e.to_string(),
        })?;
    Ok(entries.into_iter().collect())
}

/// The file of module `module` (`["commands", "app"]`) of the app crate, relative to `root`.
pub fn module_file(root: &Path, module: &[String], command: &str) -> Result<String, ContractError> {
    let Some((last, parents)) = module.split_last() else {
        return Ok(LIB.to_owned());
    };
    let dir = parents
        .iter()
        .fold(CRATE_SRC.to_owned(), |d, m| format!("{d}/{m}"));
    let candidates = [format!("{dir}/{last}.rs"), format!("{dir}/{last}/mod.rs")];
    candidates
        .iter()
        .find(|c| root.join(c).is_file())
        .cloned()
        .ok_or_else(|| ContractError::NoModule {
            command: command.to_owned(),
            module: module.join("::"),
            looked: candidates.join(" and "),
        })
}

/// The type names `bindings.ts` exports (`export type Name…`, `export interface Name…`).
pub fn exported_names(bindings: &str) -> BTreeSet<String> {
    bindings
        .lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("export type ")
                .or_else(|| line.strip_prefix("export interface "))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// What [`crate::types::Mapper`] asks about named types, answered from the repository.
pub struct Repository {
    root: PathBuf,
    exported: BTreeSet<String>,
}

impl Repository {
    /// The repository at `root`, whose bindings.ts exports `exported`.
    pub fn new(root: &Path, exported: BTreeSet<String>) -> Self {
        Self {
            root: root.to_owned(),
            exported,
        }
    }
}

impl Resolve for Repository {
    fn exported(&self, name: &str) -> bool {
        self.exported.contains(name)
    }

    fn alias(&self, name: &str) -> Result<Option<Alias>, TypeProblem> {
        let problem = |message: String| TypeProblem::Alias {
            name: name.to_owned(),
            message,
        };
        let mut files = Vec::new();
        rust_files(&self.root.join(RUST_TREE), &mut files).map_err(problem)?;
        let needle = format!("type {name}");
        let mut found: Vec<(PathBuf, Alias)> = Vec::new();
        for path in files {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| problem(format!("cannot read {}: {e}", path.display())))?;
            if !text.contains(&needle) {
                continue;
            }
            let file = syn::parse_file(&text)
                .map_err(|e| problem(format!("cannot parse {}: {e}", path.display())))?;
            let shown = path.strip_prefix(&self.root).unwrap_or(&path).to_owned();
            aliases_in(&file.items, name, &shown, &mut found).map_err(problem)?;
        }
        match found.len() {
            0 => Ok(None),
            1 => Ok(found.pop().map(|(_, alias)| alias)),
            _ => Err(problem(format!(
                "declared more than once ({}); the contract cannot tell which one is meant",
                found
                    .iter()
                    .map(|(p, _)| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }
}

/// Adds the type aliases called `name` among `items` (and their inline modules) to `found`.
fn aliases_in(
    items: &[Item],
    name: &str,
    path: &Path,
    found: &mut Vec<(PathBuf, Alias)>,
) -> Result<(), String> {
    let uses = UseMap::of_items(items);
    for item in items {
        match item {
            Item::Type(alias) if alias.ident == name => {
                if !alias.generics.params.is_empty() {
                    return Err(format!(
                        "{} declares it with generic parameters, which are not followed",
                        path.display()
                    ));
                }
                found.push((
                    path.to_owned(),
                    Alias {
                        ty: (*alias.ty).clone(),
                        uses: uses.clone(),
                    },
                ));
            }
            Item::Mod(module) => {
                if let Some((_, inner)) = &module.content {
                    aliases_in(inner, name, path, found)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Every `.rs` file under `dir`, sorted (build output and hidden folders skipped).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                rust_files(&path, out)?;
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handler_list_is_read_with_its_cfg_conditions() {
        let file = syn::parse_file(
            "pub fn with_commands(b: Builder) -> Builder {
                 b.invoke_handler(tauri::generate_handler![
                     commands::app::app_info,
                     #[cfg(feature = \"local\")]
                     commands::models::list_models,
                 ])
             }",
        )
        .unwrap();
        let entries = handler_entries(&file, LIB).unwrap();
        let shown: Vec<(String, Vec<String>)> = entries
            .iter()
            .map(|e| (crate::types::written(&e.path), e.cfg.clone()))
            .collect();
        assert_eq!(
            shown,
            [
                ("commands::app::app_info".into(), vec![]),
                (
                    "commands::models::list_models".into(),
                    vec!["feature = \"local\"".into()]
                ),
            ]
        );
    }

    #[test]
    fn a_file_without_exactly_one_handler_list_is_an_error() {
        let file = syn::parse_file("fn main() {}").unwrap();
        assert!(matches!(
            handler_entries(&file, LIB),
            Err(ContractError::HandlerCount { count: 0, .. })
        ));
    }

    #[test]
    fn exported_names_are_read_from_type_and_interface_declarations() {
        let names = exported_names(
            "// header\nexport type Page<T> = { rows: Array<T> };\nexport type ErrorKind = \"io\";\n\
             export interface Old { a: string }\n/** export type NotThis */\n",
        );
        assert_eq!(
            names.into_iter().collect::<Vec<_>>(),
            ["ErrorKind", "Old", "Page"]
        );
    }
}
