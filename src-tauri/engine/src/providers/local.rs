//! The built-in model inside the providers service: its models folder, and one runtime for the
//! profile, started on first use with the profile's settings ([`KEEP_ALIVE`], [`MAX_CONTEXT`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::OnceCell;

use crate::EngineError;
use crate::local::{LocalProvider, LocalRuntime, ModelsDir, RuntimeOptions};
use crate::provider::ProviderError;
use crate::store::Store;

/// The setting: seconds a model stays loaded with no request (default 300, like Ollama).
pub(crate) const KEEP_ALIVE: &str = "local.keep_alive_seconds";
/// The setting: the largest context in tokens (default 8192; the model's own when smaller).
pub(crate) const MAX_CONTEXT: &str = "local.max_context";

/// The folder and the runtime (shared by every clone of the service).
#[derive(Clone, Debug)]
pub(super) struct Local {
    models: ModelsDir,
    runtime: Arc<OnceCell<LocalRuntime>>,
    /// The parent of every running download's cancel token (replaced when they are cancelled).
    downloads: Arc<std::sync::Mutex<tokio_util::sync::CancellationToken>>,
}

impl Local {
    /// Models in `dir`; no runtime yet.
    pub(crate) fn new(dir: PathBuf) -> Self {
        Self {
            models: ModelsDir::new(dir),
            runtime: Arc::default(),
            downloads: Arc::default(),
        }
    }

    /// The models folder.
    pub(crate) fn models(&self) -> &ModelsDir {
        &self.models
    }

    /// A cancel token for a new download (cancelled by [`Local::cancel_downloads`]).
    pub(crate) fn download_token(&self) -> tokio_util::sync::CancellationToken {
        match self.downloads.lock() {
            Ok(parent) => parent.child_token(),
            Err(poisoned) => poisoned.into_inner().child_token(),
        }
    }

    /// Cancels every running download.
    pub(crate) fn cancel_downloads(&self) {
        let fresh = tokio_util::sync::CancellationToken::new();
        let old = match self.downloads.lock() {
            Ok(mut parent) => std::mem::replace(&mut *parent, fresh),
            Err(poisoned) => std::mem::replace(&mut *poisoned.into_inner(), fresh),
        };
        old.cancel();
    }

    /// A provider on the profile's runtime (started now if it is not yet).
    pub(crate) async fn provider(&self, store: &Store) -> Result<LocalProvider, EngineError> {
        let runtime = self
            .runtime
            .get_or_try_init(|| async {
                let options = options(store).await?;
                LocalRuntime::start(options).map_err(|e| EngineError::from(ProviderError::from(e)))
            })
            .await?;
        Ok(LocalProvider::new(runtime.clone(), self.models.clone()))
    }
}

impl Local {
    /// The context the runtime gives `model`: its trained length capped by the setting.
    pub(crate) async fn context_window(&self, store: &Store, model: &str) -> Option<u32> {
        let path = self.models.resolve(model).ok()?;
        let info = tokio::task::spawn_blocking(move || crate::local::gguf::read_info(&path))
            .await
            .ok()?
            .ok()?;
        let cap = options(store).await.ok()?.max_context;
        info.context_length.map(|n| n.min(cap))
    }
}

/// The runtime's options from the profile's settings.
async fn options(store: &Store) -> Result<RuntimeOptions, EngineError> {
    let defaults = RuntimeOptions::default();
    let number = |v: Option<serde_json::Value>| v.as_ref().and_then(serde_json::Value::as_u64);
    let idle = number(store.setting(KEEP_ALIVE).await?).map_or(defaults.idle, Duration::from_secs);
    let max_context = number(store.setting(MAX_CONTEXT).await?)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(defaults.max_context);
    Ok(RuntimeOptions {
        idle,
        max_context,
        ..defaults
    })
}
