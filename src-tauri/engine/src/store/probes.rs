//! The `model_probes` table: what the tool-use probe (`providers/probe.rs`) found of each
//! provider's model — one row per provider and model, replaced by each new probe and deleted
//! with its provider.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Store, StoreError};

/// How a model calls tools, as the probe found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolSupport {
    /// Structured tool calls from the provider, unasked.
    Native,
    /// Calls only with the tools in the prompt (prompt mode), written as text, or — for the
    /// built-in model — held to a grammar.
    Prompt,
    /// No call, however it was asked.
    None,
    /// The probe could not tell (a network error, a refused key, a timeout): the note says why.
    Unknown,
}

impl ToolSupport {
    fn as_str(self) -> &'static str {
        match self {
            Self::Native => "native",
            Self::Prompt => "prompt",
            Self::None => "none",
            Self::Unknown => "unknown",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "native" => Self::Native,
            "prompt" => Self::Prompt,
            "none" => Self::None,
            "unknown" => Self::Unknown,
            _ => return None,
        })
    }
}

/// One probe's result for one model of one provider.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelProbe {
    /// The provider's id.
    pub provider_id: String,
    /// The model id as the provider knows it.
    pub model: String,
    /// What the probe found.
    pub support: ToolSupport,
    /// What it saw, in words: the error when `unknown`, else how the call came.
    pub note: Option<String>,
    /// How long the probe took, milliseconds.
    pub duration_ms: u32,
    /// When it ran, Unix milliseconds.
    pub checked_at: i64,
}

type Row = (String, String, String, Option<String>, i64, i64);

const COLUMNS: &str = "provider_id, model, support, note, duration_ms, checked_at";

fn probe_of(row: Row) -> Result<ModelProbe, StoreError> {
    let (provider_id, model, support, note, duration_ms, checked_at) = row;
    let support = ToolSupport::parse(&support).ok_or_else(|| {
        StoreError::Invalid(format!(
            "probe of {model} has an unknown result {support:?}"
        ))
    })?;
    Ok(ModelProbe {
        provider_id,
        model,
        support,
        note,
        duration_ms: u32::try_from(duration_ms).unwrap_or(u32::MAX),
        checked_at,
    })
}

impl Store {
    /// Keeps `probe`, replacing the last one of its provider and model.
    pub async fn save_model_probe(&self, probe: &ModelProbe) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO model_probes (provider_id, model, support, note, duration_ms, checked_at) \
             VALUES (?, ?, ?, ?, ?, ?) \
             ON CONFLICT (provider_id, model) DO UPDATE SET support = excluded.support, \
             note = excluded.note, duration_ms = excluded.duration_ms, \
             checked_at = excluded.checked_at",
        )
        .bind(&probe.provider_id)
        .bind(&probe.model)
        .bind(probe.support.as_str())
        .bind(&probe.note)
        .bind(i64::from(probe.duration_ms))
        .bind(probe.checked_at)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// The last probe of `model` of provider `provider_id`, if it was probed.
    pub async fn model_probe(
        &self,
        provider_id: &str,
        model: &str,
    ) -> Result<Option<ModelProbe>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM model_probes WHERE provider_id = ? AND model = ?");
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(provider_id)
            .bind(model)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        row.map(probe_of).transpose()
    }

    /// The last probe of every probed model of provider `provider_id`, by model id.
    pub async fn model_probes(&self, provider_id: &str) -> Result<Vec<ModelProbe>, StoreError> {
        let sql =
            format!("SELECT {COLUMNS} FROM model_probes WHERE provider_id = ? ORDER BY model");
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(provider_id)
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        rows.into_iter().map(probe_of).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::ProviderKind;

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
        (dir, store)
    }

    fn probe(provider_id: &str, model: &str, support: ToolSupport) -> ModelProbe {
        ModelProbe {
            provider_id: provider_id.into(),
            model: model.into(),
            support,
            note: Some("a note".into()),
            duration_ms: 1200,
            checked_at: 1_700_000_000_000,
        }
    }

    #[tokio::test]
    async fn a_probe_is_kept_replaced_by_the_next_and_gone_with_its_provider() {
        let (_dir, store) = store().await;
        let p = store
            .insert_provider(
                "fake",
                ProviderKind::Openai,
                "http://127.0.0.1:1",
                &Default::default(),
                &Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(store.model_probe(&p.id, "m").await.unwrap(), None);

        store
            .save_model_probe(&probe(&p.id, "m", ToolSupport::Unknown))
            .await
            .unwrap();
        let again = ModelProbe {
            note: None,
            ..probe(&p.id, "m", ToolSupport::Prompt)
        };
        store.save_model_probe(&again).await.unwrap();
        store
            .save_model_probe(&probe(&p.id, "a", ToolSupport::Native))
            .await
            .unwrap();

        assert_eq!(store.model_probe(&p.id, "m").await.unwrap(), Some(again));
        let all = store.model_probes(&p.id).await.unwrap();
        let models: Vec<(&str, ToolSupport)> =
            all.iter().map(|p| (p.model.as_str(), p.support)).collect();
        assert_eq!(
            models,
            vec![("a", ToolSupport::Native), ("m", ToolSupport::Prompt)]
        );

        store.delete_provider(&p.id).await.unwrap();
        assert_eq!(store.model_probes(&p.id).await.unwrap(), Vec::new());
    }

    #[tokio::test]
    async fn a_probe_of_an_unknown_provider_is_refused() {
        let (_dir, store) = store().await;
        let err = store
            .save_model_probe(&probe("nobody", "m", ToolSupport::None))
            .await;
        assert!(err.is_err(), "{err:?}");
    }
}
