//! Fuzzes registry answers as the engine's public types read them: any JSON as a server entry
//! or a listing page must parse or be refused, and every entry's install options must be made
//! without panicking (ids unique, one per package and remote). The registry's wire shapes
//! (`GET /v0/servers`, `parse_one`) are crate-private, so the public `RegistryEntry` and
//! `RegistryPage` are what is fuzzed.

#![no_main]

use libfuzzer_sys::fuzz_target;
use switchboard_engine::mcp::{RegistryEntry, RegistryPage, install_options};

fuzz_target!(|data: &[u8]| {
    let mut entries: Vec<RegistryEntry> = Vec::new();
    if let Ok(entry) = serde_json::from_slice::<RegistryEntry>(data) {
        entries.push(entry);
    }
    if let Ok(page) = serde_json::from_slice::<RegistryPage>(data) {
        entries.extend(page.entries);
    }
    for entry in &entries {
        let options = install_options(entry);
        assert_eq!(options.len(), entry.packages.len() + entry.remotes.len());
        let mut ids: Vec<&str> = options.iter().map(|o| o.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), options.len());
        let _ = entry.transports();
        let _ = serde_json::to_vec(entry);
    }
});
