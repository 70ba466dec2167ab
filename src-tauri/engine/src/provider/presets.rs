//! Provider presets as data (`presets.json`): the wire format, default base URL and the
//! environment variable that carries each one's API key.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::ProviderKind;

/// A ready-made provider configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Preset {
    /// Stable id, e.g. `ollama`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The wire format.
    pub kind: ProviderKind,
    /// The default base URL; empty when the user must give one.
    pub base_url: String,
    /// The environment variable honoured for the key, if any.
    pub key_env: Option<String>,
    /// Whether the provider refuses requests without a key.
    pub needs_key: bool,
}

/// Every preset, in display order.
pub fn presets() -> &'static [Preset] {
    static PRESETS: OnceLock<Vec<Preset>> = OnceLock::new();
    PRESETS.get_or_init(|| serde_json::from_str(include_str!("presets.json")).unwrap_or_default())
}

/// The preset with this id.
pub fn preset(id: &str) -> Option<&'static Preset> {
    presets().iter().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_and_ollama_is_local() {
        assert_eq!(presets().len(), 11);
        assert_eq!(preset("local").unwrap().kind, ProviderKind::Local);
        let ollama = preset("ollama").unwrap();
        assert_eq!(
            (ollama.kind, ollama.base_url.as_str()),
            (ProviderKind::Ollama, "http://127.0.0.1:11434")
        );
        assert_eq!(
            preset("openai").unwrap().key_env.as_deref(),
            Some("OPENAI_API_KEY")
        );
    }
}
