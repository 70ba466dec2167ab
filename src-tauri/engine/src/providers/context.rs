//! What a provider says about a model — its context window and whether it sees images — asked
//! in one request (Ollama's `/api/show`, the model list of OpenRouter and other
//! OpenAI-compatible servers, Gemini's model) once per model and kept for the life of the
//! service; and a model's context window from where it is known best: the built-in model's
//! file; what the provider says; else a table of known models kept as data
//! (`context_windows.json`, matched by the longest prefix of the model id).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use serde::Deserialize;

use super::Providers;
use crate::provider::{ModelFacts, ProviderError};
use crate::store::ProviderRecord;

/// What providers said, per (provider id, model).
pub(super) type Facts = Arc<Mutex<HashMap<(String, String), ModelFacts>>>;

/// The longest a provider is waited for when asked about a model.
const ASK_LIMIT: Duration = Duration::from_secs(5);

/// One row of the table of known models.
#[derive(Debug, Deserialize)]
struct Known {
    prefix: String,
    tokens: u32,
}

fn table() -> &'static [Known] {
    static TABLE: OnceLock<Vec<Known>> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(include_str!("context_windows.json")).unwrap_or_default()
    })
}

/// The context window the table gives `model`: the row with the longest prefix of its id,
/// compared without case and without a `vendor/` part (OpenRouter's `openai/gpt-4o`).
pub(crate) fn known_window(model: &str) -> Option<u32> {
    let id = model.rsplit('/').next().unwrap_or(model).to_lowercase();
    table()
        .iter()
        .filter(|k| id.starts_with(&k.prefix))
        .max_by_key(|k| k.prefix.len())
        .map(|k| k.tokens)
}

impl Providers {
    /// The context window of a provider's model, when it is known: the built-in model's
    /// trained context (capped by `local.max_context`); what the provider says; else the table
    /// of known models. `None` leaves the conversation's setting or the default.
    pub async fn context_window(&self, record: &ProviderRecord, model: &str) -> Option<u32> {
        #[cfg(feature = "local")]
        if record.kind == crate::vocab::ProviderKind::Local {
            return self.local.context_window(self.store(), model).await;
        }
        let said = self.model_facts(record, model).await.context_window;
        said.or_else(|| known_window(model))
    }

    /// What the provider says of `model` (its context window, whether it sees images), asked
    /// once. A provider that answered without saying, or that has no such question (a 4xx
    /// other than for credentials or rate, an answer that is not JSON), is not asked again: a
    /// server without `/models` was otherwise asked before every turn. A question that failed
    /// on the way (network, timeout, 5xx, credentials, rate limit) is asked again next time.
    pub(super) async fn model_facts(&self, record: &ProviderRecord, model: &str) -> ModelFacts {
        let key = (record.id.clone(), model.to_owned());
        if let Some(known) = self.cached(&key) {
            return known;
        }
        let Ok(client) = self.http_provider(record.clone()).await else {
            return ModelFacts::default();
        };
        match tokio::time::timeout(ASK_LIMIT, client.model_facts(model)).await {
            Ok(Ok(facts)) => {
                self.remember(key, facts);
                facts
            }
            Ok(Err(e)) => {
                tracing::debug!(model, error = %e, "the provider did not say what the model is");
                if never_says(&e) {
                    self.remember(key, ModelFacts::default());
                }
                ModelFacts::default()
            }
            Err(_) => ModelFacts::default(),
        }
    }

    fn remember(&self, key: (String, String), facts: ModelFacts) {
        let mut known = self.facts.lock().unwrap_or_else(PoisonError::into_inner);
        known.insert(key, facts);
    }

    fn cached(&self, key: &(String, String)) -> Option<ModelFacts> {
        let known = self.facts.lock().unwrap_or_else(PoisonError::into_inner);
        known.get(key).copied()
    }
}

/// Whether an error answering the model question means asking again would get the same: the
/// provider answered, but has no such question or no answer to it.
fn never_says(e: &ProviderError) -> bool {
    matches!(
        e,
        ProviderError::ModelNotFound { .. }
            | ProviderError::BadRequest { .. }
            | ProviderError::MalformedStream(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_definite_answer_without_a_window_is_kept() {
        let bad = |status| ProviderError::BadRequest {
            status,
            message: String::new(),
        };
        assert!(never_says(&bad(405)));
        assert!(never_says(&ProviderError::MalformedStream("html".into())));
        assert!(!never_says(&ProviderError::Network("refused".into())));
        assert!(!never_says(&ProviderError::Timeout(ASK_LIMIT)));
        let auth = ProviderError::Auth {
            status: 401,
            message: String::new(),
        };
        assert!(!never_says(&auth));
        let server = ProviderError::Server {
            status: 503,
            message: String::new(),
        };
        assert!(!never_says(&server));
    }

    #[test]
    fn the_table_matches_the_longest_prefix_without_case_or_vendor() {
        assert_eq!(known_window("gpt-4o-mini-2024-07-18"), Some(128_000));
        assert_eq!(known_window("gpt-4-0613"), Some(8192));
        assert_eq!(known_window("openai/GPT-4.1-mini"), Some(1_047_576));
        assert_eq!(known_window("llama3.1:8b"), Some(131_072));
        assert_eq!(known_window("llama3:8b"), Some(8192));
        assert_eq!(known_window("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(known_window("my-own-finetune"), None);
    }

    #[test]
    fn every_row_of_the_table_reads() {
        assert!(table().len() > 30, "the table did not parse");
        assert!(
            table()
                .iter()
                .all(|k| k.tokens >= 4096 && !k.prefix.is_empty())
        );
    }
}
