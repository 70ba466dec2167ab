//! Fuzzes MCP Bundles through the public preview (`Installer::preview_bundle`): any bytes as a
//! `.mcpb` file (a zip with `manifest.json`) must be previewed or refused on one line, never
//! panic or allocate past the bundle limits. Unpacking (`bundle::unpack`) is crate-private and
//! reached publicly only by `install_bundle`, which also saves and starts the server, so the
//! preview — zip directory and manifest parsing, every check before unpacking — is what is
//! fuzzed. Inputs that are not zips are wrapped as a zip's `manifest.json` half of the time, so
//! the manifest parser is reached.

#![no_main]

use std::io::Write;
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use switchboard_engine::logging::Redactor;
use switchboard_engine::mcp::{Installer, McpHost};
use switchboard_engine::secrets::{KeyringSecrets, Secrets};
use switchboard_engine::store::Store;

struct World {
    _rt: tokio::runtime::Runtime,
    installer: Installer,
    dir: tempfile::TempDir,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let installer = rt.block_on(async {
            let store = Store::open(&dir.path().join("t.db")).await.unwrap();
            let redactor = Redactor::default();
            let keys = Arc::new(KeyringSecrets::mock().unwrap());
            let secrets = Secrets::new(keys, Arc::new(|_: &str| None), redactor.clone());
            let host = McpHost::new(store, secrets, redactor);
            Installer::new(host, Some(dir.path().join("bundles")))
        });
        World {
            _rt: rt,
            installer,
            dir,
        }
    })
}

/// `manifest` as the only file of a zip.
fn zipped(manifest: &[u8]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored);
    zip.start_file("manifest.json", options).unwrap();
    zip.write_all(manifest).unwrap();
    zip.finish().unwrap();
    out.into_inner()
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode & 1 == 1 && !rest.starts_with(b"PK") {
        zipped(rest)
    } else {
        rest.to_vec()
    };
    let w = world();
    let file = w.dir.path().join("fuzz.mcpb");
    std::fs::write(&file, &bytes).unwrap();
    match w.installer.preview_bundle(&file) {
        Ok(preview) => assert!(!preview.name.is_empty()),
        Err(e) => {
            let text = e.to_string();
            assert!(!text.contains('\n'), "{text}");
        }
    }
});
