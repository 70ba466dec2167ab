//! Fuzzes install-link parsing through the public preview (`Installer::preview_install_link`,
//! over a real temporary database): any text as a link must be previewed or refused, never
//! panic, and a preview never grants what a link cannot (approval `ask`, no private network,
//! no inherited environment, no working folder).

#![no_main]

use std::sync::{Arc, OnceLock};

use base64::Engine as _;
use libfuzzer_sys::fuzz_target;
use switchboard_engine::logging::Redactor;
use switchboard_engine::mcp::{INSTALL_LINK_SCHEME, Installer, McpHost};
use switchboard_engine::secrets::{KeyringSecrets, Secrets};
use switchboard_engine::store::Store;

struct World {
    rt: tokio::runtime::Runtime,
    installer: Installer,
    _dir: tempfile::TempDir,
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
            rt,
            installer,
            _dir: dir,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let w = world();
    // Half the inputs are the link's JSON config (base64'd into a link, so the parser past
    // the encoding is reached), half a whole link.
    let link = if mode & 1 == 1 {
        let name = if mode & 2 == 2 { "fuzz" } else { "" };
        let config = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(rest);
        format!("{INSTALL_LINK_SCHEME}://mcp/install?name={name}&config={config}")
    } else {
        text.to_owned()
    };
    if let Ok(shown) = w.rt.block_on(w.installer.preview_install_link(&link)) {
        assert_eq!(
            serde_json::to_value(shown.approval).unwrap(),
            serde_json::json!("ask"),
            "{link}"
        );
        assert!(!shown.allow_private, "{link}");
        assert!(shown.inherit_env.is_empty(), "{link}");
        assert!(shown.cwd.is_none(), "{link}");
    }
});
