//! The built-in model's models folder as the UI uses it: list the models with their facts,
//! import a `.gguf` from disk (a file llama.cpp could not read is refused with the engine's
//! clear error), remove one, download one with throttled progress and a cancel, and make one
//! the built-in provider's default (adding the provider first when there is none).

use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{ProviderView, Providers};
use crate::EngineError;
use crate::local::download::{DownloadRequest, Progress, download};
use crate::local::{LocalError, LocalModel};
use crate::provider::ProviderError;
use crate::store::ProviderSettings;

/// How far a model download has come (sent to the UI about every 1%).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelDownloadProgress {
    /// Bytes on disk.
    pub received: u64,
    /// The file's size, when the server said.
    pub total: Option<u64>,
}

/// Without a known size, progress is reported every this many bytes.
const UNKNOWN_STEP: u64 = 1 << 20;

/// Whether `now` is worth telling the UI, `last` being what it was told last.
fn worth_reporting(last: Option<Progress>, now: Progress) -> bool {
    let Some(last) = last else {
        return true;
    };
    match now.total {
        Some(total) if total > 0 => {
            now.received >= total || now.received * 100 / total != last.received * 100 / total
        }
        _ => now.received >= last.received + UNKNOWN_STEP,
    }
}

fn local(e: LocalError) -> EngineError {
    EngineError::from(ProviderError::from(e))
}

/// Runs a blocking folder operation off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, LocalError> + Send + 'static,
) -> Result<T, EngineError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| local(LocalError::Backend(e.to_string())))?
        .map_err(local)
}

impl Providers {
    /// The models in the models folder, with what their headers say.
    pub async fn list_models(&self) -> Result<Vec<LocalModel>, EngineError> {
        let models = self.models_dir();
        blocking(move || models.list()).await
    }

    /// Copies the `.gguf` file at `path` into the models folder. A file whose header cannot be
    /// read is refused, naming the file.
    pub async fn import_model(&self, path: &Path) -> Result<LocalModel, EngineError> {
        let models = self.models_dir();
        let source = path.to_path_buf();
        blocking(move || {
            crate::local::gguf::read_info(&source)?;
            models.import(&source)
        })
        .await
    }

    /// Deletes the model `name` from the models folder.
    pub async fn remove_model(&self, name: &str) -> Result<(), EngineError> {
        let models = self.models_dir();
        let name = name.to_owned();
        blocking(move || models.remove(&name)).await
    }

    /// Downloads `url` (checked against `sha256` when given) into the models folder, telling
    /// `progress` about every 1%; [`Providers::cancel_model_downloads`] stops it.
    pub async fn download_model(
        &self,
        url: &str,
        sha256: Option<&str>,
        mut progress: impl FnMut(ModelDownloadProgress) + Send,
    ) -> Result<LocalModel, EngineError> {
        let client = self.http_client()?;
        let cancel = self.local.download_token();
        let request = DownloadRequest {
            url: url.to_owned(),
            sha256: sha256
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        };
        let mut last: Option<Progress> = None;
        let report = |now: Progress| {
            if worth_reporting(last, now) {
                last = Some(now);
                progress(ModelDownloadProgress {
                    received: now.received,
                    total: now.total,
                });
            }
        };
        download(&client, &self.models_dir(), &request, &cancel, report)
            .await
            .map_err(local)
    }

    /// Cancels every running model download (each leaves nothing behind).
    pub fn cancel_model_downloads(&self) {
        self.local.cancel_downloads();
    }

    /// Makes the model `name` of the models folder the built-in provider's default, adding
    /// the provider first when there is none.
    pub async fn set_default_local_model(&self, name: &str) -> Result<ProviderView, EngineError> {
        let path = self.models_dir().resolve(name).map_err(local)?;
        let file = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(name)
            .to_owned();
        let view = self.ensure_local_provider().await?;
        let settings = ProviderSettings {
            default_model: Some(file),
            ..view.provider.settings.clone()
        };
        self.set_provider_settings(&view.provider.id, settings)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(received: u64, total: Option<u64>) -> Progress {
        Progress { received, total }
    }

    #[test]
    fn progress_is_reported_about_every_percent_and_at_the_end() {
        let total = 1_000_000;
        let mut last = None;
        let mut told = 0;
        for received in (0..=total).step_by(1000) {
            let now = at(received, Some(total));
            if worth_reporting(last, now) {
                last = Some(now);
                told += 1;
            }
        }
        assert_eq!(told, 101);
    }

    #[test]
    fn progress_of_an_unknown_size_is_reported_every_megabyte() {
        assert!(worth_reporting(None, at(0, None)));
        assert!(!worth_reporting(Some(at(0, None)), at(1000, None)));
        assert!(worth_reporting(Some(at(0, None)), at(UNKNOWN_STEP, None)));
    }
}
