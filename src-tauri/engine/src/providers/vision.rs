//! Whether a provider's model can see images, asked before a message with images is sent:
//! Ollama tells in `/api/show` (`capabilities` lists `"vision"`) and OpenRouter in its model
//! list (`architecture.input_modalities`); the built-in model cannot; otherwise a table of
//! known models (data, `vision_models.json`) answers, and a model it does not know is given
//! the benefit of the doubt.

use std::sync::OnceLock;

use serde::Deserialize;

use super::Providers;
use crate::store::ProviderRecord;
use crate::vocab::ProviderKind;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Known {
    vision: Vec<String>,
    text_only: Vec<String>,
}

fn table() -> &'static Known {
    static TABLE: OnceLock<Known> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(include_str!("vision_models.json")).unwrap_or_default()
    })
}

/// What the table of known models says of `model`: `Some(true)` sees images, `Some(false)`
/// does not, `None` unknown.
pub fn known(model: &str) -> Option<bool> {
    let name = model.to_ascii_lowercase();
    let name = name.rsplit('/').next().unwrap_or(&name);
    if table().vision.iter().any(|v| name.contains(v.as_str())) {
        return Some(true);
    }
    if table()
        .text_only
        .iter()
        .any(|t| name.starts_with(t.as_str()))
    {
        return Some(false);
    }
    None
}

impl Providers {
    /// Whether `model` of `record` can see images, when the provider or the table tells: what
    /// the provider says of the model (Ollama's `capabilities`, OpenRouter's
    /// `input_modalities`; asked once with the context window), else the table.
    pub async fn sees_images(&self, record: &ProviderRecord, model: &str) -> Option<bool> {
        if record.kind == ProviderKind::Local {
            return Some(false);
        }
        let said = self.model_facts(record, model).await.vision;
        said.or_else(|| known(model))
    }
}

#[cfg(test)]
mod tests {
    use super::known;

    #[test]
    fn the_table_knows_vision_text_only_and_unknown_models() {
        assert_eq!(known("gpt-4o-mini"), Some(true));
        assert_eq!(known("qwen-vl-max"), Some(true));
        assert_eq!(known("deepseek/deepseek-chat"), Some(false));
        assert_eq!(known("deepseek-reasoner"), Some(false));
        assert_eq!(known("some-new-model"), None);
    }
}
