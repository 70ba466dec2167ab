//! What `Auto` tool mode learns, kept in the database: the models of a provider that refused
//! native tools and so get prompt-mode tools (one setting per provider,
//! `tools.prompt_only.<provider id>`, a sorted list of model ids). A turn starts from what was
//! learned before, so after a restart such a model gets prompt-mode tools with no failed
//! request first.

use std::collections::HashSet;

use serde_json::Value;

use crate::provider::prompt_tools::PromptOnlyModels;
use crate::store::{Store, StoreError};

/// The settings key holding what was learned of `provider_id`'s models.
pub(crate) fn key(provider_id: &str) -> String {
    format!("tools.prompt_only.{provider_id}")
}

/// The models of `provider_id` known to need prompt mode.
pub(crate) async fn load(store: &Store, provider_id: &str) -> Result<HashSet<String>, StoreError> {
    let stored = store.setting(&key(provider_id)).await?;
    let list = stored.as_ref().and_then(Value::as_array);
    Ok(list
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect())
}

/// Whether `learned` holds more models than the `loaded` it held when loaded (the set only
/// grows): only then has a turn something to [`remember`].
pub(crate) fn grew(learned: &PromptOnlyModels, loaded: usize) -> bool {
    learned
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .len()
        > loaded
}

/// Adds what `learned` holds to what is stored for `provider_id`. `loaded` is how many models
/// it held when loaded: the set only grows, so while it holds no more, nothing is read or
/// written (this runs after every model call).
pub(crate) async fn remember(
    store: &Store,
    provider_id: &str,
    learned: &PromptOnlyModels,
    loaded: usize,
) -> Result<(), StoreError> {
    if !grew(learned, loaded) {
        return Ok(());
    }
    let learned: Vec<String> = {
        let set = learned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        set.iter().cloned().collect()
    };
    let mut stored = load(store, provider_id).await?;
    let before = stored.len();
    stored.extend(learned);
    if stored.len() == before {
        return Ok(());
    }
    let mut list: Vec<String> = stored.into_iter().collect();
    list.sort();
    tracing::info!(provider = provider_id, models = ?list, "remembered models that need prompt-mode tools");
    store
        .set_setting(&key(provider_id), &Value::from(list))
        .await
}
