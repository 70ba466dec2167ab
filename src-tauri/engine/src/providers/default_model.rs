//! The model a provider answers with when a conversation names none: the one set on the
//! provider, else one chosen for the user — its only model, else the model last used with it,
//! else the first it lists — and kept as the provider's default, so the provider card shows it
//! and the user can change it.

use super::Providers;
use crate::store::{ProviderRecord, ProviderSettings};

/// Picks a model from a provider's list and the model last used with it.
pub(crate) fn choose(listed: &[String], last_used: Option<&str>) -> Option<String> {
    if let [only] = listed {
        return Some(only.clone());
    }
    match last_used {
        Some(last) if listed.is_empty() || listed.iter().any(|m| m == last) => {
            Some(last.to_owned())
        }
        _ => listed.first().cloned(),
    }
}

impl Providers {
    /// The provider's default model, choosing (and keeping) one when none is set; `None` when
    /// the provider lists no model and none was ever used with it.
    pub async fn default_model(&self, record: &ProviderRecord) -> Option<String> {
        if let Some(model) = &record.settings.default_model {
            return Some(model.clone());
        }
        let listed: Vec<String> = match self.provider_models(&record.id).await {
            Ok(models) => models.into_iter().map(|m| m.id).collect(),
            Err(e) => {
                tracing::debug!(provider = %record.name, error = %e, "cannot list models");
                Vec::new()
            }
        };
        let last = self
            .store()
            .last_model_of_provider(&record.id)
            .await
            .ok()
            .flatten();
        let chosen = choose(&listed, last.as_deref())?;
        let settings = ProviderSettings {
            default_model: Some(chosen.clone()),
            ..record.settings.clone()
        };
        if let Err(e) = self.set_provider_settings(&record.id, settings).await {
            tracing::warn!(provider = %record.name, error = %e, "cannot keep the chosen model");
        }
        Some(chosen)
    }
}

#[cfg(test)]
mod tests {
    use super::choose;

    fn list(models: &[&str]) -> Vec<String> {
        models.iter().map(|m| (*m).to_owned()).collect()
    }

    #[test]
    fn the_only_model_is_chosen_even_when_another_was_used_last() {
        assert_eq!(choose(&list(&["a"]), Some("b")), Some("a".into()));
    }

    #[test]
    fn the_model_last_used_is_chosen_when_the_provider_still_lists_it() {
        assert_eq!(choose(&list(&["a", "b"]), Some("b")), Some("b".into()));
    }

    #[test]
    fn the_first_listed_is_chosen_when_the_last_used_is_gone_or_there_is_none() {
        assert_eq!(choose(&list(&["a", "b"]), Some("z")), Some("a".into()));
        assert_eq!(choose(&list(&["a", "b"]), None), Some("a".into()));
    }

    #[test]
    fn the_last_used_is_chosen_when_the_list_cannot_be_had_and_nothing_otherwise() {
        assert_eq!(choose(&[], Some("z")), Some("z".into()));
        assert_eq!(choose(&[], None), None);
    }
}
