//! The assistants repository: named presets a conversation starts from (an icon, a system
//! prompt, a provider and model, and the conversation settings copied from it). Create, list,
//! find by id or name, replace, duplicate, delete, and the merge an import does (by id: one
//! whose id is taken by a different assistant is added beside it as a copy, never replacing
//! it; a clashing name gets a suffix). Names are unique regardless of case.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::page::{new_id, now_ms};
use super::{Store, StoreError};

/// The longest assistant name we keep, in characters.
pub const MAX_ASSISTANT_NAME: usize = 100;

/// A stored assistant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Assistant {
    /// Time-ordered id.
    pub id: String,
    /// Its name, unique regardless of case (`switchboard chat --assistant NAME`).
    pub name: String,
    /// An emoji shown beside the name (may be empty).
    pub icon: String,
    /// The system prompt given to each conversation made from it (may be empty).
    pub system_prompt: String,
    /// The provider (id) its conversations use; the default provider when absent.
    pub provider_id: Option<String>,
    /// The model its conversations use; the provider's default when absent.
    pub model: Option<String>,
    /// The conversation settings copied into each conversation (model settings, servers and
    /// tools, tool mode).
    #[ts(type = "ChatSettings")]
    pub settings: serde_json::Value,
    /// Creation time, Unix milliseconds.
    pub created_at: i64,
    /// Last change, Unix milliseconds.
    pub updated_at: i64,
}

/// What an assistant is made of, to create one or replace one's fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct AssistantDraft {
    /// Its name.
    pub name: String,
    /// An emoji.
    pub icon: String,
    /// The system prompt.
    pub system_prompt: String,
    /// The provider (id).
    #[ts(optional)]
    pub provider_id: Option<String>,
    /// The model.
    #[ts(optional)]
    pub model: Option<String>,
    /// The conversation settings.
    #[ts(type = "ChatSettings")]
    pub settings: serde_json::Value,
}

impl From<&Assistant> for AssistantDraft {
    fn from(a: &Assistant) -> Self {
        Self {
            name: a.name.clone(),
            icon: a.icon.clone(),
            system_prompt: a.system_prompt.clone(),
            provider_id: a.provider_id.clone(),
            model: a.model.clone(),
            settings: a.settings.clone(),
        }
    }
}

/// What merging one imported assistant did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum AssistantMerge {
    /// It was new and was added.
    Added,
    /// A different assistant here has its id: it was added beside it under a new id (the one
    /// here is kept as it was).
    Copied,
    /// One with its id existed, exactly the same.
    Unchanged,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    name: String,
    icon: String,
    system_prompt: String,
    provider_id: Option<String>,
    model: Option<String>,
    settings: String,
    created_at: i64,
    updated_at: i64,
}

impl From<Row> for Assistant {
    fn from(r: Row) -> Self {
        Self {
            id: r.id,
            name: r.name,
            icon: r.icon,
            system_prompt: r.system_prompt,
            provider_id: r.provider_id,
            model: r.model,
            settings: serde_json::from_str(&r.settings).unwrap_or_else(|_| serde_json::json!({})),
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

const COLUMNS: &str =
    "id, name, icon, system_prompt, provider_id, model, settings, created_at, updated_at";

/// A draft with its name trimmed and checked, and its settings an object.
fn clean(draft: &AssistantDraft) -> Result<(String, String), StoreError> {
    let name = draft.name.trim();
    if name.is_empty() {
        return Err(StoreError::Invalid("an assistant needs a name".into()));
    }
    if name.chars().count() > MAX_ASSISTANT_NAME {
        return Err(StoreError::Invalid(format!(
            "an assistant's name may have at most {MAX_ASSISTANT_NAME} characters"
        )));
    }
    let settings = match &draft.settings {
        serde_json::Value::Null => "{}".to_owned(),
        v @ serde_json::Value::Object(_) => v.to_string(),
        _ => {
            return Err(StoreError::Invalid(
                "an assistant's settings must be an object".into(),
            ));
        }
    };
    Ok((name.to_owned(), settings))
}

/// An empty text as none.
fn some(text: &Option<String>) -> Option<&str> {
    text.as_deref().map(str::trim).filter(|t| !t.is_empty())
}

impl Store {
    /// Saves a new assistant; its name must be unique.
    pub async fn insert_assistant(&self, draft: &AssistantDraft) -> Result<Assistant, StoreError> {
        let now = now_ms();
        self.insert_assistant_as(&new_id(), draft, now, now).await
    }

    async fn insert_assistant_as(
        &self,
        id: &str,
        draft: &AssistantDraft,
        created_at: i64,
        updated_at: i64,
    ) -> Result<Assistant, StoreError> {
        let (name, settings) = clean(draft)?;
        let sql = format!(
            "INSERT INTO assistants ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) \
             RETURNING {COLUMNS}"
        );
        let row = sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(&name)
            .bind(draft.icon.trim())
            .bind(&draft.system_prompt)
            .bind(some(&draft.provider_id))
            .bind(some(&draft.model))
            .bind(settings)
            .bind(created_at)
            .bind(updated_at)
            .fetch_one(&self.writer)
            .await;
        self.name_checked(row, "an assistant", &name)
    }

    /// Every assistant, by name.
    pub async fn list_assistants(&self) -> Result<Vec<Assistant>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM assistants ORDER BY name COLLATE NOCASE, id");
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(rows.into_iter().map(Assistant::from).collect())
    }

    /// The assistant with this id, or this name (regardless of case).
    pub async fn find_assistant(&self, id_or_name: &str) -> Result<Assistant, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM assistants WHERE id = ?1 OR name = ?2 COLLATE NOCASE \
             ORDER BY id = ?1 DESC LIMIT 1"
        );
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id_or_name)
            .bind(id_or_name.trim())
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        row.map(Assistant::from)
            .ok_or_else(|| not_found(id_or_name))
    }

    /// Replaces every field of assistant `id` with `draft`'s.
    pub async fn update_assistant(
        &self,
        id: &str,
        draft: &AssistantDraft,
    ) -> Result<Assistant, StoreError> {
        self.update_assistant_at(id, draft, now_ms()).await
    }

    async fn update_assistant_at(
        &self,
        id: &str,
        draft: &AssistantDraft,
        updated_at: i64,
    ) -> Result<Assistant, StoreError> {
        let (name, settings) = clean(draft)?;
        let sql = format!(
            "UPDATE assistants SET name = ?, icon = ?, system_prompt = ?, provider_id = ?, \
             model = ?, settings = ?, updated_at = ? WHERE id = ? RETURNING {COLUMNS}"
        );
        let row = sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(sql))
            .bind(&name)
            .bind(draft.icon.trim())
            .bind(&draft.system_prompt)
            .bind(some(&draft.provider_id))
            .bind(some(&draft.model))
            .bind(settings)
            .bind(updated_at)
            .bind(id)
            .fetch_optional(&self.writer)
            .await;
        match row {
            Ok(None) => Err(not_found(id)),
            Ok(Some(row)) => self.name_checked(Ok(row), "an assistant", &name),
            Err(e) => self.name_checked::<Row, _>(Err(e), "an assistant", &name),
        }
    }

    /// A copy of assistant `id` under a free name ("Name (copy)", "Name (copy 2)", …).
    pub async fn duplicate_assistant(&self, id: &str) -> Result<Assistant, StoreError> {
        let original = self.find_assistant(id).await?;
        let mut draft = AssistantDraft::from(&original);
        draft.name = self
            .free_assistant_name(&format!("{} (copy)", original.name))
            .await?;
        self.insert_assistant(&draft).await
    }

    /// Deletes an assistant (conversations made from it keep their copied settings).
    pub async fn delete_assistant(&self, id: &str) -> Result<(), StoreError> {
        let done = sqlx::query("DELETE FROM assistants WHERE id = ?")
            .bind(id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        if done.rows_affected() == 0 {
            return Err(not_found(id));
        }
        Ok(())
    }

    /// Merges an imported assistant: a new one is added with its id and times; when one with
    /// its id is here, nothing changes if they are identical, else the import is added as a
    /// copy under a new id (an import never overwrites an assistant); a name another assistant
    /// has gets a suffix.
    pub async fn merge_assistant(&self, a: &Assistant) -> Result<AssistantMerge, StoreError> {
        let existing = self.find_assistant(&a.id).await.ok();
        let mut draft = AssistantDraft::from(a);
        let clash = match self.find_assistant(&a.name).await {
            Ok(other) => other.id != a.id,
            Err(_) => false,
        };
        if clash {
            draft.name = self.free_assistant_name(&a.name).await?;
        }
        match existing.filter(|e| e.id == a.id) {
            Some(e) if AssistantDraft::from(&e) == draft => Ok(AssistantMerge::Unchanged),
            Some(_) if self.has_copy_of(a).await? => Ok(AssistantMerge::Unchanged),
            Some(e) => {
                if e.name.to_lowercase() == draft.name.to_lowercase() {
                    draft.name = self.free_assistant_name(&a.name).await?;
                }
                self.insert_assistant_as(&new_id(), &draft, a.created_at, a.updated_at)
                    .await?;
                Ok(AssistantMerge::Copied)
            }
            None => {
                self.insert_assistant_as(&a.id, &draft, a.created_at, a.updated_at)
                    .await?;
                Ok(AssistantMerge::Added)
            }
        }
    }

    /// Whether an earlier import already added `a` as a copy: another id, the same contents,
    /// and its name or its name with a suffix (`Writer (2)`).
    async fn has_copy_of(&self, a: &Assistant) -> Result<bool, StoreError> {
        let unnamed = |a: &Assistant| AssistantDraft {
            name: String::new(),
            ..AssistantDraft::from(a)
        };
        let wanted = unnamed(a);
        let suffixed = |name: &str| {
            name.strip_prefix(a.name.as_str())
                .and_then(|rest| rest.strip_prefix(" ("))
                .and_then(|rest| rest.strip_suffix(')'))
                .is_some_and(|n| n.parse::<u32>().is_ok())
        };
        Ok(self.list_assistants().await?.iter().any(|x| {
            x.id != a.id && (x.name == a.name || suffixed(&x.name)) && unnamed(x) == wanted
        }))
    }

    /// `wanted`, or `wanted (2)`, `wanted (3)`, … — the first no assistant has.
    pub async fn free_assistant_name(&self, wanted: &str) -> Result<String, StoreError> {
        self.free_name("assistants", wanted).await
    }
}

fn not_found(id: &str) -> StoreError {
    StoreError::NotFound {
        entity: "assistant",
        id: id.to_owned(),
    }
}
