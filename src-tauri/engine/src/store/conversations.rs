//! The conversations repository: create, list (pinned first, newest first, keyset-paged), get,
//! rename, pin and delete (messages go with it through the foreign-key cascade).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::page::{cursor_number, new_id, now_ms, split_cursor};
use super::{Page, PageRequest, Store, StoreError};

/// The longest title we keep, in characters.
pub(crate) const MAX_TITLE_CHARS: usize = 300;

/// A conversation as the UI and CLI see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    /// Time-ordered id (UUIDv7).
    pub id: String,
    /// The title; empty until the user or the auto-titler sets one.
    pub title: String,
    /// Creation time, Unix milliseconds.
    pub created_at: i64,
    /// Last activity, Unix milliseconds.
    pub updated_at: i64,
    /// Pinned conversations list first.
    pub pinned: bool,
    /// Archived conversations are hidden from the main list.
    pub archived: bool,
    /// The provider chosen for this conversation, if any.
    pub provider_id: Option<String>,
    /// The model chosen for this conversation, if any.
    pub model: Option<String>,
    /// The system prompt of this conversation, if any.
    pub system_prompt: Option<String>,
    /// Further per-conversation settings (enabled servers, tool mode, …).
    pub settings: serde_json::Value,
    /// The last message of the branch shown; none before the first message.
    pub head_id: Option<String>,
    /// The project it belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub project_id: Option<String>,
}

/// What a new conversation starts with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NewConversation {
    /// The title; empty when not given.
    #[serde(default)]
    #[ts(optional)]
    pub title: Option<String>,
    /// The provider to use.
    #[serde(default)]
    #[ts(optional)]
    pub provider_id: Option<String>,
    /// The model to use.
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
    /// The system prompt.
    #[serde(default)]
    #[ts(optional)]
    pub system_prompt: Option<String>,
    /// The project (id) it belongs to.
    #[serde(default)]
    #[ts(optional)]
    pub project_id: Option<String>,
}

/// Which conversations a listing holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ListScope {
    /// Every conversation, in a project or not.
    All,
    /// Those in no project (the sidebar's date groups).
    #[default]
    Unfiled,
    /// Those in one project (its id).
    Project(String),
}

/// Changes to a conversation's configuration; `None` fields stay as they are.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConversationPatch {
    /// The provider (id) to use.
    #[serde(default)]
    #[ts(optional)]
    pub provider_id: Option<String>,
    /// The model to use.
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
    /// The system prompt.
    #[serde(default)]
    #[ts(optional)]
    pub system_prompt: Option<String>,
    /// The whole settings object (enabled servers, tool mode, …), replacing the old one.
    #[serde(default)]
    #[ts(optional)]
    pub settings: Option<serde_json::Value>,
}

#[derive(sqlx::FromRow)]
pub(super) struct Row {
    id: String,
    title: String,
    created_at: i64,
    updated_at: i64,
    pinned: bool,
    archived: bool,
    provider_id: Option<String>,
    model: Option<String>,
    system_prompt: Option<String>,
    settings: String,
    head_id: Option<String>,
    project_id: Option<String>,
}

impl From<Row> for Conversation {
    fn from(r: Row) -> Self {
        Self {
            id: r.id,
            title: r.title,
            created_at: r.created_at,
            updated_at: r.updated_at,
            pinned: r.pinned,
            archived: r.archived,
            provider_id: r.provider_id,
            model: r.model,
            system_prompt: r.system_prompt,
            settings: serde_json::from_str(&r.settings).unwrap_or_default(),
            head_id: r.head_id,
            project_id: r.project_id,
        }
    }
}

pub(super) const COLUMNS: &str = "id, title, created_at, updated_at, pinned, archived, provider_id, model, \
                       system_prompt, settings, head_id, project_id";

/// Trims a title and checks its length.
fn clean_title(title: &str) -> Result<String, StoreError> {
    let title = title.trim();
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(StoreError::Invalid(format!(
            "a title may have at most {MAX_TITLE_CHARS} characters"
        )));
    }
    Ok(title.to_owned())
}

/// The cursor of a row in the (pinned, updated_at, id) descending order.
fn cursor_of(c: &Conversation) -> String {
    format!("{}:{}:{}", u8::from(c.pinned), c.updated_at, c.id)
}

impl Store {
    /// Creates a conversation.
    pub async fn create_conversation(
        &self,
        new: NewConversation,
    ) -> Result<Conversation, StoreError> {
        let title = clean_title(new.title.as_deref().unwrap_or(""))?;
        let now = now_ms();
        let sql = format!(
            "INSERT INTO conversations (id, title, created_at, updated_at, provider_id, model, \
             system_prompt, project_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}"
        );
        let row: Row = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(new_id())
            .bind(title)
            .bind(now)
            .bind(now)
            .bind(new.provider_id)
            .bind(new.model)
            .bind(new.system_prompt)
            .bind(&new.project_id)
            .fetch_one(&self.writer)
            .await
            .map_err(|e| match (e.as_database_error(), &new.project_id) {
                (Some(d), Some(project)) if d.is_foreign_key_violation() => StoreError::NotFound {
                    entity: "project",
                    id: project.clone(),
                },
                _ => self.classify(e),
            })?;
        Ok(row.into())
    }

    /// Lists the conversations of `scope` that are not archived: pinned first, then by last
    /// activity, newest first.
    pub async fn list_conversations(
        &self,
        page: &PageRequest,
        scope: &ListScope,
    ) -> Result<Page<Conversation>, StoreError> {
        let (pinned, updated, id) = match &page.cursor {
            None => (2, i64::MAX, String::new()),
            Some(c) => {
                let f = split_cursor(c, 3)?;
                (cursor_number(f[0])?, cursor_number(f[1])?, f[2].to_owned())
            }
        };
        let size = page.size();
        let (filter, project) = match scope {
            ListScope::All => ("", None),
            ListScope::Unfiled => ("AND project_id IS NULL", None),
            ListScope::Project(id) => ("AND project_id = ?", Some(id.as_str())),
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM conversations WHERE archived = 0 {filter} \
             AND (pinned, updated_at, id) < (?, ?, ?) \
             ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT ?"
        );
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        if let Some(project) = project {
            query = query.bind(project);
        }
        let rows: Vec<Row> = query
            .bind(pinned)
            .bind(updated)
            .bind(id)
            .bind(i64::from(size) + 1)
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        let items = rows.into_iter().map(Conversation::from).collect();
        Ok(Page::from_rows(items, size, cursor_of))
    }

    /// Gets one conversation.
    pub async fn get_conversation(&self, id: &str) -> Result<Conversation, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM conversations WHERE id = ?");
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        row.map(Conversation::from).ok_or_else(|| not_found(id))
    }

    /// Renames a conversation; the title is trimmed and must not be empty.
    pub async fn rename_conversation(
        &self,
        id: &str,
        title: &str,
    ) -> Result<Conversation, StoreError> {
        let title = clean_title(title)?;
        if title.is_empty() {
            return Err(StoreError::Invalid("a title cannot be empty".into()));
        }
        let sql = format!("UPDATE conversations SET title = ? WHERE id = ? RETURNING {COLUMNS}");
        self.update_one(
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(title)
                .bind(id),
            id,
        )
        .await
    }

    /// Pins or unpins a conversation.
    pub async fn set_conversation_pinned(
        &self,
        id: &str,
        pinned: bool,
    ) -> Result<Conversation, StoreError> {
        let sql = format!("UPDATE conversations SET pinned = ? WHERE id = ? RETURNING {COLUMNS}");
        self.update_one(
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(pinned)
                .bind(id),
            id,
        )
        .await
    }

    /// Deletes a conversation and, through the cascade, all its messages.
    pub async fn delete_conversation(&self, id: &str) -> Result<(), StoreError> {
        let done = sqlx::query("DELETE FROM conversations WHERE id = ?")
            .bind(id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        if done.rows_affected() == 0 {
            return Err(not_found(id));
        }
        Ok(())
    }

    /// Changes the model, provider, system prompt or settings of a conversation.
    pub async fn update_conversation(
        &self,
        id: &str,
        patch: ConversationPatch,
    ) -> Result<Conversation, StoreError> {
        let settings = patch
            .settings
            .map(|s| serde_json::to_string(&s))
            .transpose()
            .map_err(|e| StoreError::Invalid(format!("cannot encode settings: {e}")))?;
        let sql = format!(
            "UPDATE conversations SET provider_id = COALESCE(?, provider_id), \
             model = COALESCE(?, model), system_prompt = COALESCE(?, system_prompt), \
             settings = COALESCE(?, settings) WHERE id = ? RETURNING {COLUMNS}"
        );
        let query = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(patch.provider_id)
            .bind(patch.model)
            .bind(patch.system_prompt)
            .bind(settings)
            .bind(id);
        self.update_one(query, id).await
    }

    /// The model of the conversation with provider `provider_id` used most recently, if any.
    pub async fn last_model_of_provider(
        &self,
        provider_id: &str,
    ) -> Result<Option<String>, StoreError> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT model FROM conversations WHERE provider_id = ? AND model IS NOT NULL \
             AND model <> '' ORDER BY updated_at DESC, id DESC LIMIT 1",
        )
        .bind(provider_id)
        .fetch_optional(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(row.map(|(m,)| m))
    }

    /// Makes `head_id` the last message of the branch the conversation shows.
    pub async fn set_head(&self, id: &str, head_id: &str) -> Result<Conversation, StoreError> {
        let sql = format!("UPDATE conversations SET head_id = ? WHERE id = ? RETURNING {COLUMNS}");
        let query = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(head_id)
            .bind(id);
        self.update_one(query, id).await
    }

    /// Runs an `UPDATE … RETURNING` that targets one conversation.
    async fn update_one(
        &self,
        query: sqlx::query::QueryAs<'_, sqlx::Sqlite, Row, sqlx::sqlite::SqliteArguments>,
        id: &str,
    ) -> Result<Conversation, StoreError> {
        let row = query
            .fetch_optional(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        row.map(Conversation::from).ok_or_else(|| not_found(id))
    }
}

fn not_found(id: &str) -> StoreError {
    StoreError::NotFound {
        entity: "conversation",
        id: id.to_owned(),
    }
}
