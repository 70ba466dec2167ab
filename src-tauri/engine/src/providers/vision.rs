//! Whether a provider's model can see images, asked before a message with images is sent:
//! Ollama tells in `/api/show` (`capabilities` lists `"vision"`); the built-in model cannot;
//! for the others a table of known models (data, `vision_models.json`) answers, and a model
//! it does not know is given the benefit of the doubt.

use std::sync::OnceLock;
use std::time::Duration;

use serde::Deserialize;

use super::Providers;
use crate::store::ProviderRecord;
use crate::vocab::ProviderKind;

/// How long Ollama is given to say what a model can do.
const SHOW_TIMEOUT: Duration = Duration::from_secs(3);

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

/// What Ollama listed as each model's capabilities, per (provider id, model).
pub(super) type Capabilities = std::sync::Arc<
    std::sync::Mutex<std::collections::HashMap<(String, String), Option<Vec<String>>>>,
>;

#[derive(Deserialize)]
struct Show {
    capabilities: Option<Vec<String>>,
}

impl Providers {
    /// Whether `model` of `record` can see images, when the provider or the table tells.
    pub async fn sees_images(&self, record: &ProviderRecord, model: &str) -> Option<bool> {
        match record.kind {
            ProviderKind::Local => Some(false),
            ProviderKind::Ollama => match self.ollama_capabilities(record, model).await {
                Some(caps) => Some(caps.iter().any(|c| c == "vision")),
                None => known(model),
            },
            ProviderKind::Openai
            | ProviderKind::Anthropic
            | ProviderKind::Gemini
            | ProviderKind::Dashscope => known(model),
        }
    }

    /// The `capabilities` Ollama's `/api/show` lists for `model` (none from older Ollamas);
    /// an answer is kept for the life of the service, so a send with images asks once per
    /// model (a failed question is asked again next time).
    async fn ollama_capabilities(
        &self,
        record: &ProviderRecord,
        model: &str,
    ) -> Option<Vec<String>> {
        let key = (record.id.clone(), model.to_owned());
        let cached = (self.capabilities.lock())
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(known) = cached {
            return known;
        }
        let asked = self.ask_ollama_capabilities(record, model).await?;
        (self.capabilities.lock())
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, asked.clone());
        asked
    }

    /// Asks `/api/show`; `None` when it could not be asked or read, `Some(None)` when it
    /// answered without capabilities.
    async fn ask_ollama_capabilities(
        &self,
        record: &ProviderRecord,
        model: &str,
    ) -> Option<Option<Vec<String>>> {
        let client = self.http_client().ok()?;
        let url = format!("{}/api/show", record.base_url.trim_end_matches('/'));
        let mut request = client
            .post(url)
            .timeout(SHOW_TIMEOUT)
            .json(&serde_json::json!({ "model": model }));
        for (k, v) in &record.headers {
            request = request.header(k, v);
        }
        let response = request.send().await.ok()?.error_for_status().ok()?;
        Some(response.json::<Show>().await.ok()?.capabilities)
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
