//! A configured provider's embedding endpoint as a knowledge base's [`Embedder`]: the
//! provider's wire format, base URL, headers and key (from the keychain, as for chat), one
//! embedding model. Made by [`Providers::embedder`], which asks for one vector first to learn
//! the width and to fail early with the provider's own error (wrong model, bad key, no
//! endpoint).

use std::sync::Arc;

use futures::future::BoxFuture;

use super::Providers;
use crate::EngineError;
use crate::knowledge::embedder::{Embedder, Purpose, RemoteEmbedders};
use crate::provider::{EmbedPurpose, HttpProvider, ProviderError, embeddings};
use crate::vocab::ProviderKind;

/// The longest text sent in one piece; chunks are cut to fit. Providers take more (OpenAI
/// 8,191 tokens), but passages of this size retrieve better and cost less.
const MAX_TOKENS: usize = 512;

/// One provider's embedding model.
pub struct ProviderEmbedder {
    client: Arc<HttpProvider>,
    provider: String,
    model: String,
    dimensions: usize,
}

impl std::fmt::Debug for ProviderEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderEmbedder")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

impl Providers {
    /// The embedding model `model` of provider `id_or_name`, checked by embedding one text.
    pub async fn embedder(
        &self,
        id_or_name: &str,
        model: &str,
    ) -> Result<ProviderEmbedder, EngineError> {
        let model = model.trim();
        if model.is_empty() {
            return Err(ProviderError::Config("name the embedding model".into()).into());
        }
        let record = self.store().find_provider(id_or_name).await?;
        if record.kind == ProviderKind::Local || embeddings::batch_limit(record.kind).is_none() {
            return Err(ProviderError::Config(format!(
                "{} has no embedding endpoint; choose an OpenAI-compatible, Ollama, Gemini or \
                 DashScope provider, or the built-in embedder",
                record.name
            ))
            .into());
        }
        let provider = record.id.clone();
        let client = Arc::new(self.http_provider(record).await?);
        let probe = client
            .embed(model, &["dimensions".to_owned()], EmbedPurpose::Query)
            .await?;
        let dimensions = probe.first().map_or(0, Vec::len);
        Ok(ProviderEmbedder {
            client,
            provider,
            model: model.to_owned(),
            dimensions,
        })
    }
}

impl RemoteEmbedders for Providers {
    fn embedder(
        &self,
        provider: &str,
        model: &str,
    ) -> BoxFuture<'static, Result<Arc<dyn Embedder>, String>> {
        let (this, provider, model) = (self.clone(), provider.to_owned(), model.to_owned());
        Box::pin(async move {
            Providers::embedder(&this, &provider, &model)
                .await
                .map(|e| Arc::new(e) as Arc<dyn Embedder>)
                .map_err(|e| e.to_string())
        })
    }
}

impl Embedder for ProviderEmbedder {
    fn id(&self) -> String {
        format!("provider:{}/{}", self.provider, self.model)
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn max_tokens(&self) -> usize {
        MAX_TOKENS
    }

    fn count_tokens(&self, text: &str) -> usize {
        // The provider's tokenizer is not at hand.
        crate::knowledge::chunk::estimated_tokens(text)
    }

    fn embed(
        &self,
        texts: Vec<String>,
        purpose: Purpose,
    ) -> BoxFuture<'static, Result<Vec<Vec<f32>>, String>> {
        let (client, model) = (self.client.clone(), self.model.clone());
        let purpose = match purpose {
            Purpose::Query => EmbedPurpose::Query,
            Purpose::Passage => EmbedPurpose::Document,
        };
        Box::pin(async move {
            client
                .embed(&model, &texts, purpose)
                .await
                .map_err(|e| e.to_string())
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::knowledge::chunk::estimated_tokens;

    #[test]
    fn estimates_count_chinese_characters_one_each_and_other_text_by_three() {
        assert_eq!(estimated_tokens(""), 2);
        assert_eq!(estimated_tokens("知识库"), 5);
        assert_eq!(estimated_tokens("abcdef"), 4);
        assert!(estimated_tokens(&"word ".repeat(300)) >= 300);
    }
}
