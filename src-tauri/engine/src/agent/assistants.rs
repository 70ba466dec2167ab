//! Assistants as the chat uses them: the default assistant (a setting), the starters shipped
//! as data in English and Chinese (`starters.json`), and a new conversation made from an
//! assistant — its system prompt, provider, model and settings copied in, and
//! `settings.assistant` naming it, so the conversation can change any of them for itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::{Agent, ChatSettings};
use crate::EngineError;
use crate::store::{Assistant, AssistantDraft, Conversation, NewConversation, StoreError};
use crate::vocab::error::AgentError;

/// The setting holding the default assistant's id (a new chat starts from it).
pub const DEFAULT_ASSISTANT: &str = "chat.default_assistant";

/// The starters, as shipped.
const STARTERS: &str = include_str!("starters.json");

/// A ready-made assistant the user may add, in each language the app speaks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Starter {
    /// A stable key.
    pub key: String,
    /// An emoji.
    pub icon: String,
    /// Its name by language tag (`en`, `zh-CN`).
    pub name: BTreeMap<String, String>,
    /// Its system prompt by language tag.
    pub system_prompt: BTreeMap<String, String>,
    /// The conversation settings it starts with.
    pub settings: ChatSettings,
}

impl Starter {
    /// This starter as an assistant in language `lang` (English when it has no such text).
    pub fn draft(&self, lang: &str) -> AssistantDraft {
        let pick = |texts: &BTreeMap<String, String>| {
            texts
                .get(lang)
                .or_else(|| texts.get("en"))
                .cloned()
                .unwrap_or_default()
        };
        AssistantDraft {
            name: pick(&self.name),
            icon: self.icon.clone(),
            system_prompt: pick(&self.system_prompt),
            provider_id: None,
            model: None,
            settings: serde_json::to_value(&self.settings).unwrap_or_default(),
        }
    }
}

/// The starters shipped with this build.
pub fn starters() -> Vec<Starter> {
    serde_json::from_str(STARTERS).unwrap_or_default()
}

impl Agent {
    /// The default assistant, if one is set and still exists.
    pub async fn default_assistant(&self) -> Result<Option<Assistant>, EngineError> {
        let Some(Value::String(id)) = self.store().setting(DEFAULT_ASSISTANT).await? else {
            return Ok(None);
        };
        match self.store().find_assistant(&id).await {
            Ok(a) => Ok(Some(a)),
            Err(StoreError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Makes assistant `id` (id or name) the default, or with `None` sets none.
    pub async fn set_default_assistant(&self, id: Option<&str>) -> Result<(), EngineError> {
        let value = match id {
            Some(id) => Value::String(self.store().find_assistant(id).await?.id),
            None => Value::Null,
        };
        Ok(self.store().set_setting(DEFAULT_ASSISTANT, &value).await?)
    }

    /// Deletes an assistant; when it was the default, none is.
    pub async fn delete_assistant(&self, id: &str) -> Result<(), EngineError> {
        let was_default = self.default_assistant().await?.is_some_and(|a| a.id == id);
        self.store().delete_assistant(id).await?;
        if was_default {
            self.set_default_assistant(None).await?;
        }
        Ok(())
    }

    /// Adds starter `key` as an assistant in language `lang` (under a free name).
    pub async fn add_starter(&self, key: &str, lang: &str) -> Result<Assistant, EngineError> {
        let starter = starters()
            .into_iter()
            .find(|s| s.key == key)
            .ok_or_else(|| AgentError::Invalid(format!("there is no starter assistant {key:?}")))?;
        let mut draft = starter.draft(lang);
        draft.name = self.store().free_assistant_name(&draft.name).await?;
        Ok(self.store().insert_assistant(&draft).await?)
    }

    /// A new conversation from assistant `assistant` (id or name), or from the default
    /// assistant when `None` — or an empty one when there is none, or when `assistant` is
    /// empty (the user chose no assistant).
    pub async fn new_conversation(
        &self,
        assistant: Option<&str>,
    ) -> Result<Conversation, EngineError> {
        self.new_conversation_in(assistant, None).await
    }

    /// A new conversation in project `project` (id or name; none: in no project). With no
    /// assistant named it starts from the project's assistant (or the default one when the
    /// project has none or it was deleted); the project's servers, when it chose some, replace
    /// the assistant's.
    pub async fn new_conversation_in(
        &self,
        assistant: Option<&str>,
        project: Option<&str>,
    ) -> Result<Conversation, EngineError> {
        let project = match project.map(str::trim) {
            None | Some("") => None,
            Some(name) => Some(self.store().find_project(name).await.map_err(|e| match e {
                StoreError::NotFound { .. } => EngineError::from(AgentError::Invalid(format!(
                    "there is no project named {name:?}"
                ))),
                e => e.into(),
            })?),
        };
        let assistant = match (
            assistant,
            project.as_ref().and_then(|p| p.assistant_id.as_deref()),
        ) {
            (Some(""), _) => None,
            (Some(name), _) => Some(self.find_named(name).await?),
            (None, Some(id)) => match self.store().find_assistant(id).await {
                Ok(a) => Some(a),
                Err(StoreError::NotFound { .. }) => self.default_assistant().await?,
                Err(e) => return Err(e.into()),
            },
            (None, None) => self.default_assistant().await?,
        };
        let project_id = project.as_ref().map(|p| p.id.clone());
        let (new, mut settings) = match assistant {
            None => (
                NewConversation {
                    project_id,
                    ..NewConversation::default()
                },
                ChatSettings::default(),
            ),
            Some(a) => {
                let mut settings: ChatSettings =
                    serde_json::from_value(a.settings.clone()).unwrap_or_default();
                settings.assistant = Some(a.id.clone());
                let new = NewConversation {
                    title: None,
                    provider_id: a.provider_id.clone(),
                    model: a.model.clone(),
                    system_prompt: Some(a.system_prompt.clone()).filter(|p| !p.trim().is_empty()),
                    project_id,
                };
                (new, settings)
            }
        };
        if let Some(servers) = project.and_then(|p| p.servers) {
            settings.servers = Some(servers);
        }
        let conv = self.store().create_conversation(new).await?;
        if settings == ChatSettings::default() {
            return Ok(conv);
        }
        let patch = crate::store::ConversationPatch {
            settings: Some(serde_json::to_value(&settings).unwrap_or_default()),
            ..Default::default()
        };
        Ok(self.store().update_conversation(&conv.id, patch).await?)
    }

    /// The assistant with id or name `name`, or an error that says where assistants are.
    async fn find_named(&self, name: &str) -> Result<Assistant, EngineError> {
        self.store()
            .find_assistant(name)
            .await
            .map_err(|e| match e {
                StoreError::NotFound { .. } => EngineError::from(AgentError::Invalid(format!(
                    "there is no assistant named {name:?}; see Settings → Assistants"
                ))),
                e => e.into(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::starters;

    #[test]
    fn every_starter_parses_and_has_its_name_and_prompt_in_english_and_chinese() {
        let all = starters();
        assert!(all.len() >= 4, "{all:?}");
        for s in &all {
            for lang in ["en", "zh-CN"] {
                assert!(!s.name[lang].trim().is_empty(), "{} {lang}", s.key);
                assert!(!s.system_prompt[lang].trim().is_empty(), "{} {lang}", s.key);
            }
        }
    }

    #[test]
    fn a_starter_is_drafted_in_the_language_asked_and_in_english_for_one_it_lacks() {
        let translator = starters()
            .into_iter()
            .find(|s| s.key == "translator")
            .unwrap();
        assert_eq!(translator.draft("zh-CN").name, "翻译");
        assert_eq!(translator.draft("fr").name, "Translator");
        assert_eq!(translator.draft("en").settings["temperature"], 0.2);
    }
}
