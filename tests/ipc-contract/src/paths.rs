//! Names as a module sees them: its `use` declarations, so that `State` reads as `tauri::State`
//! and `Value` as `serde_json::Value` (glob imports are not followed).

use std::collections::HashMap;

use syn::ext::IdentExt;
use syn::{Item, UseTree};

/// The names a module's top-level `use` declarations bring in, each with its full path.
#[derive(Debug, Default, Clone)]
pub struct UseMap(HashMap<String, Vec<String>>);

impl UseMap {
    /// The `use` declarations among `items` (a file's or an inline module's).
    pub fn of_items(items: &[Item]) -> Self {
        let mut names = HashMap::new();
        for item in items {
            if let Item::Use(declaration) = item {
                let mut prefix = Vec::new();
                if declaration.leading_colon.is_some() {
                    prefix.push(String::new());
                }
                flatten(&declaration.tree, &mut prefix, &mut names);
            }
        }
        Self(names)
    }

    /// The full path `path` names here: its first segment through the `use`s (when one brings
    /// it in), the rest as written. `Option` stays `["Option"]`; `State` becomes
    /// `["tauri", "State"]` after `use tauri::State`.
    pub fn full_path(&self, path: &syn::Path) -> Vec<String> {
        let mut segments = path.segments.iter().map(|s| s.ident.unraw().to_string());
        let Some(first) = segments.next() else {
            return Vec::new();
        };
        let mut full = match self.0.get(&first) {
            Some(imported) if path.leading_colon.is_none() => imported.clone(),
            _ => vec![first],
        };
        full.extend(segments);
        full
    }
}

/// Adds the names `tree` brings in (below `prefix`) to `out`.
fn flatten(tree: &UseTree, prefix: &mut Vec<String>, out: &mut HashMap<String, Vec<String>>) {
    match tree {
        UseTree::Path(path) => {
            prefix.push(path.ident.unraw().to_string());
            flatten(&path.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(name) => {
            let ident = name.ident.unraw().to_string();
            if ident == "self" {
                if let Some(last) = prefix.last() {
                    out.insert(last.clone(), prefix.clone());
                }
            } else {
                let mut full = prefix.clone();
                full.push(ident.clone());
                out.insert(ident, full);
            }
        }
        UseTree::Rename(rename) => {
            let ident = rename.ident.unraw().to_string();
            let mut full = prefix.clone();
            if ident != "self" {
                full.push(ident);
            }
            out.insert(rename.rename.unraw().to_string(), full);
        }
        UseTree::Glob(_) => {}
        UseTree::Group(group) => {
            for tree in &group.items {
                flatten(tree, prefix, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses(source: &str) -> UseMap {
        let file: syn::File = syn::parse_str(source).unwrap();
        UseMap::of_items(&file.items)
    }

    fn full(map: &UseMap, path: &str) -> String {
        map.full_path(&syn::parse_str(path).unwrap()).join("::")
    }

    #[test]
    fn a_used_name_reads_as_its_full_path_and_others_as_written() {
        let map = uses(
            "use tauri::State; use tauri::ipc::{self, Channel}; use serde_json::Value as Json;
             use std::collections::BTreeMap;",
        );
        assert_eq!(full(&map, "State"), "tauri::State");
        assert_eq!(full(&map, "Channel"), "tauri::ipc::Channel");
        assert_eq!(full(&map, "ipc::Request"), "tauri::ipc::Request");
        assert_eq!(full(&map, "Json"), "serde_json::Value");
        assert_eq!(full(&map, "BTreeMap"), "std::collections::BTreeMap");
        assert_eq!(full(&map, "Option"), "Option");
        assert_eq!(full(&map, "tauri::WebviewWindow"), "tauri::WebviewWindow");
    }
}
