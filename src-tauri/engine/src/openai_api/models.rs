//! The model ids the API serves: `PROVIDER/MODEL` for every configured provider's models
//! (`PROVIDER` is the provider's name as a slug: `local` for the built-in model, `ollama`,
//! `my-openai`), and `PROVIDER` alone for that provider's default model. A provider whose list
//! cannot be had (no key, offline) is left out of `/v1/models` with a log line, never failing
//! the list.

use std::time::Duration;

use futures::future::join_all;
use serde_json::{Value, json};

use crate::provider::ProviderKind;
use crate::providers::Providers;
use crate::store::{Assistant, ProviderRecord};

/// How long one provider's model list is waited for.
const LIST_WAIT: Duration = Duration::from_secs(5);

/// A provider's name as the first part of a model id (see [`name_slug`]); the built-in
/// model's provider is `local`, and a name with nothing left is the provider's id.
pub(crate) fn slug(record: &ProviderRecord) -> String {
    if record.kind == ProviderKind::Local {
        return "local".into();
    }
    let out = name_slug(&record.name);
    if out.is_empty() {
        record.id.clone()
    } else {
        out
    }
}

/// A name in a model id: lower case, runs of anything but letters, digits, `.` and `_` made
/// one `-`, no `-` at either end.
pub(crate) fn name_slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars() {
        if c.is_alphanumeric() || matches!(c, '.' | '_') {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

/// The prefix of an assistant's model id.
pub(crate) const ASSISTANT: &str = "assistant/";

/// The assistant an `assistant/NAME` id names (by its name as a slug, or its id).
pub(crate) fn assistant<'a>(assistants: &'a [Assistant], id: &str) -> Option<&'a Assistant> {
    let wanted = id
        .get(..ASSISTANT.len())
        .filter(|h| h.eq_ignore_ascii_case(ASSISTANT))
        .map(|_| &id[ASSISTANT.len()..])?;
    assistants
        .iter()
        .find(|a| a.id == wanted || name_slug(&a.name) == name_slug(wanted))
}

/// The provider and model an id names (`None` model: the provider's default), the longest
/// provider slug that fits winning.
pub(crate) fn resolve<'a>(
    records: &'a [ProviderRecord],
    id: &str,
) -> Option<(&'a ProviderRecord, Option<String>)> {
    let mut best: Option<(&ProviderRecord, Option<String>, usize)> = None;
    for record in records {
        let slug = slug(record);
        let found = if id.eq_ignore_ascii_case(&slug) {
            Some(None)
        } else {
            id.get(..slug.len())
                .filter(|head| head.eq_ignore_ascii_case(&slug))
                .and_then(|_| id[slug.len()..].strip_prefix('/'))
                .filter(|model| !model.is_empty())
                .map(|model| Some(model.to_owned()))
        };
        if let Some(model) = found
            && best.as_ref().is_none_or(|(_, _, len)| slug.len() > *len)
        {
            best = Some((record, model, slug.len()));
        }
    }
    best.map(|(record, model, _)| (record, model))
}

/// `/v1/models`: every provider's models, asked at once, then the assistants.
pub(crate) async fn list(
    providers: &Providers,
    records: Vec<ProviderRecord>,
    assistants: &[Assistant],
) -> Value {
    let lists = records.into_iter().map(|record| async move {
        let slug = slug(&record);
        let listed = async {
            let client = providers.client_of(record.clone()).await?;
            Ok::<_, crate::EngineError>(client.list_models().await?)
        };
        match tokio::time::timeout(LIST_WAIT, listed).await {
            Ok(Ok(models)) => models
                .into_iter()
                .map(|m| {
                    json!({
                        "id": format!("{slug}/{}", m.id),
                        "object": "model",
                        "created": 0,
                        "owned_by": record.name,
                    })
                })
                .collect(),
            Ok(Err(error)) => {
                tracing::info!(provider = %record.name, %error, "models left out of /v1/models");
                Vec::new()
            }
            Err(_) => {
                tracing::info!(provider = %record.name, "models left out of /v1/models: no answer in 5 s");
                Vec::new()
            }
        }
    });
    let mut data: Vec<Value> = join_all(lists).await.into_iter().flatten().collect();
    data.extend(assistants.iter().map(|a| {
        json!({
            "id": format!("{ASSISTANT}{}", name_slug(&a.name)),
            "object": "model",
            "created": a.created_at / 1000,
            "owned_by": "switchboard-assistant",
        })
    }));
    json!({"object": "list", "data": data})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, kind: ProviderKind) -> ProviderRecord {
        ProviderRecord {
            id: format!("id-{name}"),
            name: name.into(),
            kind,
            base_url: String::new(),
            headers: Default::default(),
            settings: Default::default(),
            created_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn a_provider_name_becomes_a_lower_case_slug_and_the_built_in_one_is_local() {
        assert_eq!(
            slug(&record("My OpenAI  (work)", ProviderKind::Openai)),
            "my-openai-work"
        );
        assert_eq!(
            slug(&record("On this computer", ProviderKind::Local)),
            "local"
        );
        assert_eq!(
            slug(&record("通义千问", ProviderKind::Dashscope)),
            "通义千问"
        );
        assert_eq!(slug(&record(" / ", ProviderKind::Openai)), "id- / ");
    }

    #[test]
    fn an_id_names_a_provider_and_its_model_the_longest_slug_winning() {
        let records = [
            record("Ollama", ProviderKind::Ollama),
            record("Ollama GPU", ProviderKind::Ollama),
            record("On this computer", ProviderKind::Local),
        ];
        let (r, m) = resolve(&records, "ollama/qwen3:8b").unwrap();
        assert_eq!(
            (r.name.as_str(), m.as_deref()),
            ("Ollama", Some("qwen3:8b"))
        );
        let (r, m) = resolve(&records, "ollama-gpu/hf.co/x/y:Q4").unwrap();
        assert_eq!(
            (r.name.as_str(), m.as_deref()),
            ("Ollama GPU", Some("hf.co/x/y:Q4"))
        );
        let (r, m) = resolve(&records, "LOCAL").unwrap();
        assert_eq!((r.name.as_str(), m), ("On this computer", None));
        assert!(resolve(&records, "ollama/").is_none());
        assert!(resolve(&records, "gpt-4o").is_none());
        assert!(resolve(&records, "ollamax/m").is_none());
    }
}
