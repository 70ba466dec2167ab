//! The built-in model's measured generation speed. Every answer it streams is timed from the
//! outside ([`Timed`], around the [`Provider`]): from its first streamed piece (the prompt is
//! evaluated by then) to its end, against the generated tokens its usage reports. A long enough
//! answer ([`MIN_TOKENS`], [`MIN_SPAN`]) updates the profile's setting [`SPEED`] — per model
//! file, its size and a running average of tokens per second — and the catalogue scales the
//! newest measurement by file size to each model it lists ([`Providers::model_catalogue`]).

use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Providers;
use crate::local::ModelsDir;
use crate::local::catalogue::{self, CatalogueModel, Speed};
use crate::provider::{
    ChatRequest, EventStream, ModelInfo, Provider, ProviderError, ProviderEvent,
};
use crate::store::{Store, StoreError, now_ms};

/// The setting: the measured speeds, by model file name ([`Measured`]).
pub(crate) const SPEED: &str = "local.generation_speed";
/// Fewer generated tokens than this are too few to time.
pub(crate) const MIN_TOKENS: u64 = 16;
/// A shorter generation than this is too short to time.
pub(crate) const MIN_SPAN: Duration = Duration::from_millis(250);
/// How many answers the running average weighs (a newer one counts at least 1/this).
const AVERAGE_OVER: u32 = 5;

/// One model's measured speed, as kept in [`SPEED`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Measured {
    /// The model file's size in bytes.
    pub bytes: u64,
    /// Generated tokens per second (a running average).
    pub tokens_per_second: f64,
    /// How many answers it averages (capped at [`AVERAGE_OVER`]).
    pub answers: u32,
    /// When it was last measured, Unix milliseconds.
    pub at: i64,
}

impl Measured {
    /// The average with one more answer at `tokens_per_second`.
    fn with(self, tokens_per_second: f64, bytes: u64, at: i64) -> Self {
        let answers = (self.answers + 1).min(AVERAGE_OVER);
        let weight = 1.0 / f64::from(answers);
        Self {
            bytes,
            tokens_per_second: self.tokens_per_second * (1.0 - weight) + tokens_per_second * weight,
            answers,
            at,
        }
    }
}

/// The generation rate of `tokens` generated in `span` after the first (which came at the
/// span's start), when long enough to tell.
pub(crate) fn rate(tokens: u64, span: Duration) -> Option<f64> {
    (tokens >= MIN_TOKENS && span >= MIN_SPAN).then(|| (tokens - 1) as f64 / span.as_secs_f64())
}

/// A provider whose answers are timed and kept as the measured speed of their model.
pub(crate) struct Timed<P> {
    inner: P,
    store: Store,
    models: ModelsDir,
}

impl<P> Timed<P> {
    /// Times the answers of `inner`, whose models are in `models`, into `store`.
    pub(crate) fn new(inner: P, store: Store, models: ModelsDir) -> Self {
        Self {
            inner,
            store,
            models,
        }
    }
}

impl<P: Provider> Provider for Timed<P> {
    fn stream(&self, req: ChatRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
        Box::pin(async move {
            let model = req.model.clone();
            let events = self.inner.stream(req).await?;
            Ok(timed(
                events,
                self.store.clone(),
                self.models.clone(),
                model,
            ))
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        self.inner.list_models()
    }
}

/// `events`, timed: at their end, a long enough answer's rate is kept (on a task of its own,
/// so the stream ends at once).
fn timed(events: EventStream, store: Store, models: ModelsDir, model: String) -> EventStream {
    let mut first: Option<Instant> = None;
    let mut tokens: Option<u64> = None;
    Box::pin(events.inspect(move |item| match item {
        Ok(ProviderEvent::Usage { usage }) => tokens = Some(usage.output_tokens),
        Ok(ProviderEvent::Finish { .. }) => {
            let measured = first.zip(tokens).and_then(|(f, n)| rate(n, f.elapsed()));
            if let Some(tokens_per_second) = measured {
                let (store, models, model) = (store.clone(), models.clone(), model.clone());
                tokio::spawn(async move {
                    if let Err(error) = record(&store, &models, &model, tokens_per_second).await {
                        tracing::warn!(%error, "cannot keep the built-in model's speed");
                    }
                });
            }
        }
        Ok(_) => {
            first.get_or_insert_with(Instant::now);
        }
        Err(_) => {}
    }))
}

/// Every measured speed, by model file name.
async fn load(store: &Store) -> Result<serde_json::Map<String, Value>, StoreError> {
    Ok(match store.setting(SPEED).await? {
        Some(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    })
}

/// Adds one answer of `model` at `tokens_per_second` to its measured speed.
pub(crate) async fn record(
    store: &Store,
    models: &ModelsDir,
    model: &str,
    tokens_per_second: f64,
) -> Result<(), StoreError> {
    let Ok(path) = models.resolve(model) else {
        return Ok(());
    };
    let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
        return Ok(());
    };
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    if bytes == 0 {
        return Ok(());
    }
    let mut all = load(store).await?;
    let before = all
        .get(&name)
        .and_then(|v| serde_json::from_value::<Measured>(v.clone()).ok())
        .filter(|m| m.bytes == bytes);
    let now = now_ms();
    let measured = match before {
        Some(m) => m.with(tokens_per_second, bytes, now),
        None => Measured {
            bytes,
            tokens_per_second,
            answers: 1,
            at: now,
        },
    };
    tracing::debug!(
        model = name,
        tokens_per_second,
        average = measured.tokens_per_second,
        "measured the built-in model's speed"
    );
    all.insert(name, serde_json::to_value(measured).unwrap_or(Value::Null));
    store.set_setting(SPEED, &Value::Object(all)).await
}

/// The newest measured speed, if any answer was measured.
pub(crate) async fn measured(store: &Store) -> Result<Option<Speed>, StoreError> {
    let all = load(store).await?;
    let newest = all
        .values()
        .filter_map(|v| serde_json::from_value::<Measured>(v.clone()).ok())
        .filter(|m| m.bytes > 0 && m.tokens_per_second > 0.0)
        .max_by_key(|m| m.at);
    Ok(newest.map(|m| Speed::measured(m.tokens_per_second, m.bytes)))
}

impl Providers {
    /// The recommended models for this machine: each with the speed to expect here — scaled
    /// from the built-in model's newest measured speed, else estimated from the CPU — and
    /// the one that suits the machine's memory and speed marked.
    pub async fn model_catalogue(&self) -> Result<Vec<CatalogueModel>, crate::EngineError> {
        let speed = measured(self.store())
            .await?
            .unwrap_or_else(|| catalogue::estimated_speed(catalogue::cpu_threads()));
        Ok(catalogue::for_machine(catalogue::total_memory(), speed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_needs_enough_tokens_and_time_and_leaves_out_the_first_token() {
        assert_eq!(rate(21, Duration::from_secs(2)), Some(10.0));
        assert_eq!(rate(MIN_TOKENS - 1, Duration::from_secs(2)), None);
        assert_eq!(rate(100, Duration::from_millis(100)), None);
    }

    #[test]
    fn the_running_average_weighs_the_newer_answers_more_as_they_come() {
        let first = Measured {
            bytes: 100,
            tokens_per_second: 10.0,
            answers: 1,
            at: 1,
        };
        let second = first.with(20.0, 100, 2);
        assert_eq!(second.tokens_per_second, 15.0);
        assert_eq!(second.answers, 2);
        let mut m = second;
        for at in 3..20 {
            m = m.with(30.0, 100, at);
        }
        assert_eq!(m.answers, AVERAGE_OVER);
        assert!((m.tokens_per_second - 30.0).abs() < 0.5, "{m:?}");
    }

    #[tokio::test]
    async fn the_newest_measurement_is_the_machines_speed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
        let models_dir = dir.path().join("models");
        std::fs::create_dir_all(&models_dir).unwrap();
        std::fs::write(models_dir.join("small.gguf"), vec![0u8; 1000]).unwrap();
        std::fs::write(models_dir.join("large.gguf"), vec![0u8; 4000]).unwrap();
        let models = ModelsDir::new(&models_dir);
        assert_eq!(measured(&store).await.unwrap(), None);

        record(&store, &models, "small.gguf", 40.0).await.unwrap();
        let speed = measured(&store).await.unwrap().unwrap();
        assert!(speed.measured);
        assert_eq!(speed.tokens_per_second(4000), 10.0);

        // A later answer (a later millisecond) of another model.
        tokio::time::sleep(Duration::from_millis(3)).await;
        record(&store, &models, "large", 5.0).await.unwrap();
        let speed = measured(&store).await.unwrap().unwrap();
        assert_eq!(speed.tokens_per_second(1000), 20.0);
        record(&store, &models, "missing.gguf", 5.0).await.unwrap();
        assert_eq!(measured(&store).await.unwrap(), Some(speed));
    }
}
