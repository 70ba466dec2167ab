//! The tool-use probe as the providers service runs it: for one provider and model, the script
//! of [`super::probe_script`] on a task of its own (a chat never waits for it; a caller that
//! goes away does not stop it), bounded in time ([`HTTP_LIMIT`], [`LOCAL_LIMIT`] per request),
//! one at a time per model (a second ask joins the running one), its result kept in the
//! store (`model_probes`) for the model's card and for auto tool mode.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};

use super::Providers;
use super::probe_script::{self, Asking, Finding};
use crate::EngineError;
use crate::store::{ModelProbe, ProviderRecord, now_ms};
use crate::vocab::ProviderKind;

/// How long one probe request to a provider over HTTP may take: a hosted model answers a
/// one-line question in a few seconds; a busy local server may queue it a while.
pub(crate) const HTTP_LIMIT: Duration = Duration::from_secs(30);
/// How long one probe request to the built-in model may take: on a slow CPU the prompt (the
/// template's tool instructions, some 300 tokens) alone takes tens of seconds for a large model.
pub(crate) const LOCAL_LIMIT: Duration = Duration::from_secs(90);

type Running = Shared<BoxFuture<'static, ModelProbe>>;

/// The probes running now, per provider id and model (shared by every clone of the service).
#[derive(Clone, Debug, Default)]
pub(crate) struct Probes {
    running: Arc<Mutex<HashMap<(String, String), Running>>>,
}

impl Probes {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Running>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Providers {
    /// Runs the tool-use probe of `model` of provider `id_or_name` (or joins the one running)
    /// and returns what it found, which is kept. A probe that fails (network, key, timeout)
    /// finds `unknown`, with the reason in its note.
    pub async fn probe_model(
        &self,
        id_or_name: &str,
        model: &str,
    ) -> Result<ModelProbe, EngineError> {
        let record = self.store().find_provider(id_or_name).await?;
        let key = (record.id.clone(), model.to_owned());
        let running = {
            let mut running = self.probes.lock();
            match running.get(&key) {
                Some(probe) => probe.clone(),
                None => {
                    let probe = self.spawn_probe(record, model.to_owned());
                    running.insert(key, probe.clone());
                    probe
                }
            }
        };
        Ok(running.await)
    }

    /// The last probe of every probed model of provider `id_or_name`.
    pub async fn model_probes(&self, id_or_name: &str) -> Result<Vec<ModelProbe>, EngineError> {
        let record = self.store().find_provider(id_or_name).await?;
        Ok(self.store().model_probes(&record.id).await?)
    }

    /// The probe on a task of its own; it leaves the running list and is kept when it ends.
    fn spawn_probe(&self, record: ProviderRecord, model: String) -> Running {
        let this = self.clone();
        let key = (record.id.clone(), model.clone());
        let (provider_id, model_of_failure) = key.clone();
        let task = tokio::spawn(async move {
            let probe = this.probe_now(&record, &model).await;
            if let Err(error) = this.store().save_model_probe(&probe).await {
                tracing::warn!(%error, model, "cannot keep the tool-use probe's result");
            }
            this.probes.lock().remove(&key);
            probe
        });
        async move {
            task.await.unwrap_or_else(|e| ModelProbe {
                provider_id,
                model: model_of_failure,
                support: crate::store::ToolSupport::Unknown,
                note: Some(format!("the probe stopped: {e}")),
                duration_ms: 0,
                checked_at: now_ms(),
            })
        }
        .boxed()
        .shared()
    }

    /// Probes `model` of `record` now.
    async fn probe_now(&self, record: &ProviderRecord, model: &str) -> ModelProbe {
        let started = Instant::now();
        let finding = match self.client_of(record.clone()).await {
            Ok(client) => {
                let (asking, limit) = self.asking(record, model).await;
                tracing::info!(provider = %record.name, model, ?asking, "probing tool use");
                probe_script::run(client.as_ref(), model, asking, limit).await
            }
            Err(e) => Finding::unknown(e.to_string()),
        };
        tracing::info!(provider = %record.name, model, support = ?finding.support, note = %finding.note, "tool-use probe done");
        ModelProbe {
            provider_id: record.id.clone(),
            model: model.to_owned(),
            support: finding.support,
            note: Some(finding.note),
            duration_ms: u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX),
            checked_at: now_ms(),
        }
    }

    /// How `model` of `record` is asked, and each request's time limit.
    async fn asking(&self, record: &ProviderRecord, model: &str) -> (Asking, Duration) {
        if record.kind != ProviderKind::Local {
            return (Asking::Http, HTTP_LIMIT);
        }
        #[cfg(feature = "local")]
        let native = {
            let path = self.models_dir().resolve(model).ok();
            let info = tokio::task::spawn_blocking(move || {
                path.and_then(|p| crate::local::gguf::read_info(&p).ok())
            })
            .await
            .ok()
            .flatten();
            info.is_some_and(|i| i.supports_tools)
        };
        #[cfg(not(feature = "local"))]
        let native = false;
        (Asking::Local { native }, LOCAL_LIMIT)
    }
}
