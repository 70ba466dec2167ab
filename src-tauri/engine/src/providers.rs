//! The engine's provider service: add providers from presets, keep their keys in the secret
//! store (never in SQLite), list them with a masked key status, list their models, test the
//! connection, build a client for the agent loop, and probe how a model calls tools
//! (`providers/probe.rs`).

use std::collections::BTreeMap;
use std::time::Instant;

use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

mod context;
mod default_model;
mod embedder;
pub use embedder::ProviderEmbedder;
#[cfg(feature = "local")]
mod local;
#[cfg(feature = "local")]
mod local_models;
#[cfg(feature = "local")]
mod local_speed;
#[cfg(feature = "local")]
pub use local_models::ModelDownloadProgress;
mod prices;
mod probe;
mod probe_script;
mod vision;
pub use prices::{ModelPrice, PriceTable, builtin as builtin_prices};
pub use vision::known as known_vision;

use crate::EngineError;
use crate::provider::presets::{self, Preset};
use crate::provider::{Endpoint, HttpOptions, HttpProvider, ModelInfo, Provider, ProviderError};
use crate::secrets::KeySource;
use crate::secrets::{Secrets, blocking};
use crate::store::Store;
use crate::store::{ProviderRecord, ProviderSettings, StoreError};

/// What the user fills in to add a provider.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NewProvider {
    /// Unique display name.
    pub name: String,
    /// A preset id (see `list_presets`).
    pub preset: String,
    /// The base URL; the preset's when absent.
    #[serde(default)]
    #[ts(optional)]
    pub base_url: Option<String>,
    /// The API key, stored in the keychain (never returned).
    #[serde(default)]
    #[ts(optional)]
    pub api_key: Option<String>,
    /// Extra headers.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
}

/// Whether a provider has a key, and where from; the key itself never leaves the engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct KeyStatus {
    /// Where the key comes from, if there is one.
    pub source: Option<KeySource>,
    /// The last four characters, e.g. `••••1a2b`.
    pub masked: Option<String>,
}

/// A provider as the UI and CLI see it.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderView {
    /// The stored configuration.
    pub provider: ProviderRecord,
    /// Its key's status.
    pub key: KeyStatus,
}

/// The outcome of "test connection".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionTest {
    /// How many models the provider listed.
    pub models: u32,
    /// Round-trip time, milliseconds.
    pub latency_ms: u32,
}

fn account(id: &str) -> String {
    format!("provider:{id}")
}

fn mask(key: &SecretString) -> String {
    let k = key.expose_secret();
    let tail: String = k
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("••••{tail}")
}

fn invalid(msg: String) -> EngineError {
    EngineError::Store(StoreError::Invalid(msg))
}

/// The preset named `id`, or an error listing the known ones.
fn find_preset(id: &str) -> Result<&'static Preset, EngineError> {
    presets::preset(id).ok_or_else(|| {
        let known: Vec<&str> = presets::presets().iter().map(|p| p.id.as_str()).collect();
        invalid(format!(
            "unknown preset {id:?}; known presets: {}",
            known.join(", ")
        ))
    })
}

/// Checks a base URL is an absolute http(s) URL.
fn check_url(url: &str) -> Result<String, EngineError> {
    let url = url.trim().trim_end_matches('/');
    match reqwest::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Ok(url.to_owned()),
        _ => Err(invalid(format!(
            "{url:?} is not an http(s) URL; give the provider's base URL, e.g. http://127.0.0.1:11434"
        ))),
    }
}

/// The configured model providers of one profile (cheap to clone: every part is shared).
#[derive(Clone, Debug)]
pub struct Providers {
    store: Store,
    secrets: Secrets,
    /// The HTTP client every provider shares (built on first use).
    http: std::sync::Arc<std::sync::OnceLock<reqwest::Client>>,
    /// What providers said of their models (context window, vision), per provider id and model.
    facts: context::Facts,
    /// The tool-use probes running now.
    probes: probe::Probes,
    /// The built-in model's folder and runtime (started on first use).
    #[cfg(feature = "local")]
    local: crate::providers::local::Local,
}

impl Providers {
    /// The providers configured in `store`, their keys in `secrets`.
    pub fn new(store: Store, secrets: Secrets) -> Self {
        Self {
            store,
            secrets,
            http: Default::default(),
            facts: Default::default(),
            probes: Default::default(),
            #[cfg(feature = "local")]
            local: local::Local::new(std::path::PathBuf::from("models")),
        }
    }

    /// The same providers, with the built-in model's GGUF files in `dir` (the profile's
    /// `models/` folder).
    #[cfg(feature = "local")]
    pub fn with_models_dir(mut self, dir: std::path::PathBuf) -> Self {
        self.local = local::Local::new(dir);
        self
    }

    /// The built-in model's folder.
    #[cfg(feature = "local")]
    pub fn models_dir(&self) -> crate::local::ModelsDir {
        self.local.models().clone()
    }

    fn store(&self) -> &Store {
        &self.store
    }

    fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// The HTTP client shared by every provider (connections are reused across turns).
    pub fn http_client(&self) -> Result<reqwest::Client, EngineError> {
        if let Some(c) = self.http.get() {
            return Ok(c.clone());
        }
        let client = HttpProvider::client(&HttpOptions::default())?;
        Ok(self.http.get_or_init(|| client).clone())
    }

    /// A local Ollama on 127.0.0.1:11434, if one answers (see [`crate::local_ollama`]).
    pub async fn detect_ollama(&self) -> Option<crate::local_ollama::LocalOllama> {
        crate::local_ollama::detect().await
    }

    /// Every preset.
    pub fn presets(&self) -> &'static [Preset] {
        presets::presets()
    }

    /// Adds a provider; its key goes to the secret store.
    pub async fn add_provider(&self, new: NewProvider) -> Result<ProviderView, EngineError> {
        let preset = find_preset(&new.preset)?;
        let base_url = match preset.kind {
            crate::vocab::ProviderKind::Local => String::new(),
            _ => check_url(new.base_url.as_deref().unwrap_or(&preset.base_url))?,
        };
        let settings = ProviderSettings {
            preset: Some(preset.id.clone()),
            key_env: preset.key_env.clone(),
            strict_tools: preset.id == "openai",
            ..Default::default()
        };
        let record = self
            .store()
            .insert_provider(&new.name, preset.kind, &base_url, &new.headers, &settings)
            .await?;
        if let Some(key) = new.api_key.filter(|k| !k.trim().is_empty()) {
            let stored = self
                .store_key(&record.id, SecretString::from(key.trim().to_owned()))
                .await;
            if let Err(e) = stored {
                self.store().delete_provider(&record.id).await?;
                return Err(e);
            }
        }
        self.view(record).await
    }

    /// The built-in model's provider: the first one of kind `local`, else a new one named
    /// after its preset, "On this computer".
    #[cfg(feature = "local")]
    pub async fn ensure_local_provider(&self) -> Result<ProviderView, EngineError> {
        let all = self.store().list_providers().await?;
        if let Some(record) = all
            .into_iter()
            .find(|r| r.kind == crate::vocab::ProviderKind::Local)
        {
            return self.view(record).await;
        }
        let preset = find_preset("local")?;
        self.add_provider(NewProvider {
            name: preset.name.clone(),
            preset: preset.id.clone(),
            ..Default::default()
        })
        .await
    }

    /// The first-run default: when the models folder holds no model, `source` (a small GGUF
    /// the set-up fetched) is put there, the built-in provider added, and the model made its
    /// default. Returns the model when it did so.
    #[cfg(feature = "local")]
    pub async fn provide_default_model(
        &self,
        source: &std::path::Path,
    ) -> Result<Option<crate::local::LocalModel>, EngineError> {
        let models = self.models_dir();
        let local = |e: crate::local::LocalError| EngineError::from(ProviderError::from(e));
        if !source.is_file() || !models.list().map_err(local)?.is_empty() {
            return Ok(None);
        }
        let src = source.to_path_buf();
        let model = tokio::task::spawn_blocking(move || models.link_or_import(&src))
            .await
            .map_err(|e| local(crate::local::LocalError::Backend(e.to_string())))?
            .map_err(local)?;
        let view = self.ensure_local_provider().await?;
        if view.provider.settings.default_model.is_none() {
            let settings = ProviderSettings {
                default_model: Some(model.name.clone()),
                ..view.provider.settings.clone()
            };
            self.set_provider_settings(&view.provider.id, settings)
                .await?;
        }
        Ok(Some(model))
    }

    /// Every provider with its key status.
    pub async fn list_providers(&self) -> Result<Vec<ProviderView>, EngineError> {
        let mut views = Vec::new();
        for record in self.store().list_providers().await? {
            views.push(self.view(record).await?);
        }
        Ok(views)
    }

    /// Sets (or with `None`, forgets) a provider's key.
    pub async fn set_provider_key(
        &self,
        id_or_name: &str,
        key: Option<String>,
    ) -> Result<ProviderView, EngineError> {
        let record = self.store().find_provider(id_or_name).await?;
        match key.filter(|k| !k.trim().is_empty()) {
            Some(k) => {
                self.store_key(&record.id, SecretString::from(k.trim().to_owned()))
                    .await?
            }
            None => {
                let secrets = self.secrets().clone();
                let account = account(&record.id);
                blocking(move || secrets.delete_key(&account)).await?;
            }
        }
        self.view(record).await
    }

    /// Replaces a provider's model settings (default model, tool mode per model, strict tools).
    /// Its preset and the environment variable of its key stay as they were: they are not the
    /// UI's to change.
    pub async fn set_provider_settings(
        &self,
        id_or_name: &str,
        settings: ProviderSettings,
    ) -> Result<ProviderView, EngineError> {
        let record = self.store().find_provider(id_or_name).await?;
        let settings = ProviderSettings {
            preset: record.settings.preset.clone(),
            key_env: record.settings.key_env.clone(),
            ..settings
        };
        let updated = self
            .store()
            .update_provider_settings(&record.id, &settings)
            .await?;
        self.view(updated).await
    }

    /// Removes a provider and its stored key.
    pub async fn remove_provider(&self, id_or_name: &str) -> Result<(), EngineError> {
        let record = self.store().find_provider(id_or_name).await?;
        let secrets = self.secrets().clone();
        let acct = account(&record.id);
        blocking(move || secrets.delete_key(&acct)).await?;
        Ok(self.store().delete_provider(&record.id).await?)
    }

    /// A client for a provider, with its key (the built-in model needs none).
    pub async fn provider_client(
        &self,
        id_or_name: &str,
    ) -> Result<Box<dyn Provider>, EngineError> {
        let record = self.store().find_provider(id_or_name).await?;
        self.client_of(record).await
    }

    /// [`Providers::provider_client`] for a provider already read from the store.
    pub async fn client_of(
        &self,
        record: ProviderRecord,
    ) -> Result<Box<dyn Provider>, EngineError> {
        if record.kind == crate::vocab::ProviderKind::Local {
            #[cfg(feature = "local")]
            return Ok(Box::new(local_speed::Timed::new(
                self.local.provider(self.store()).await?,
                self.store().clone(),
                self.models_dir(),
            )));
            #[cfg(not(feature = "local"))]
            return Err(ProviderError::Local(
                "this build of Switchboard has no built-in model (the `local` feature is off)"
                    .into(),
            )
            .into());
        }
        Ok(Box::new(self.http_provider(record).await?))
    }

    /// The HTTP client of a provider reached over HTTP, with its key.
    async fn http_provider(&self, record: ProviderRecord) -> Result<HttpProvider, EngineError> {
        let key = self.key_of(&record).await?.map(|(k, _)| k);
        let endpoint = Endpoint {
            kind: record.kind,
            base_url: record.base_url,
            headers: record.headers,
            strict_tools: record.settings.strict_tools,
        };
        let options = HttpOptions::default();
        Ok(HttpProvider::with_client(
            endpoint,
            key,
            options,
            self.http_client()?,
        ))
    }

    /// The models a provider offers.
    pub async fn provider_models(&self, id_or_name: &str) -> Result<Vec<ModelInfo>, EngineError> {
        let client = self.provider_client(id_or_name).await?;
        Ok(client.list_models().await?)
    }

    /// Checks a provider answers with its credentials by listing its models.
    pub async fn test_provider(&self, id_or_name: &str) -> Result<ConnectionTest, EngineError> {
        let started = Instant::now();
        let models = self.provider_models(id_or_name).await?;
        Ok(ConnectionTest {
            models: u32::try_from(models.len()).unwrap_or(u32::MAX),
            latency_ms: u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX),
        })
    }

    async fn store_key(&self, id: &str, key: SecretString) -> Result<(), EngineError> {
        let secrets = self.secrets().clone();
        let account = account(id);
        Ok(blocking(move || secrets.set_key(&account, &key)).await?)
    }

    async fn key_of(
        &self,
        record: &ProviderRecord,
    ) -> Result<Option<(SecretString, KeySource)>, EngineError> {
        let secrets = self.secrets().clone();
        let account = account(&record.id);
        let env = record.settings.key_env.clone();
        Ok(blocking(move || secrets.key(&account, env.as_deref())).await?)
    }

    async fn view(&self, provider: ProviderRecord) -> Result<ProviderView, EngineError> {
        let key = self.key_of(&provider).await?;
        Ok(ProviderView {
            key: KeyStatus {
                source: key.as_ref().map(|(_, s)| *s),
                masked: key.as_ref().map(|(k, _)| mask(k)),
            },
            provider,
        })
    }
}
