//! The messages repository: append (bumping the conversation's activity time), update while
//! streaming, list in order, and mark messages a crash left half-written as interrupted.

use serde::{Deserialize, Serialize};
use sqlx::SqliteConnection;
use ts_rs::TS;

use super::page::{cursor_number, new_id, now_ms, split_cursor};
use super::{Page, PageRequest, Store, StoreError};
use crate::vocab::content::ContentPart;

/// One write of a turn, for [`Store::write_messages`].
#[derive(Clone, Debug)]
pub enum MessageWrite {
    /// A new message under an id made beforehand ([`Store::new_message_id`]), made its
    /// conversation's head (as [`Store::append_as_head_with_id`]).
    InsertAsHead {
        /// The message's id.
        id: String,
        /// The message.
        new: NewMessage,
    },
    /// An update of a message (as [`Store::update_message`]).
    Update {
        /// The message's id.
        id: String,
        /// What changes.
        update: MessageUpdate,
    },
}

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum Role {
    /// A system prompt.
    System,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A tool result.
    Tool,
}

/// Where a message is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(rename_all = "lowercase")]
pub enum MessageStatus {
    /// Still being written by the model.
    Streaming,
    /// Finished normally.
    Complete,
    /// Ended by an error (see `error`).
    Error,
    /// Stopped by the user.
    Cancelled,
    /// Left streaming when the app died; found on the next start.
    Interrupted,
}

/// Tokens a model call used, as the provider reported or we estimated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// Prompt tokens.
    pub input_tokens: i64,
    /// Completion tokens.
    pub output_tokens: i64,
}

/// A stored message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Time-ordered id (UUIDv7).
    pub id: String,
    /// The conversation it belongs to.
    pub conversation_id: String,
    /// The message it follows in its branch; none for the first.
    pub parent_id: Option<String>,
    /// Who wrote it.
    pub role: Role,
    /// Its parts.
    pub content: Vec<ContentPart>,
    /// Its state.
    pub status: MessageStatus,
    /// The model that wrote it (assistant messages).
    pub model: Option<String>,
    /// Token usage, when known.
    pub usage: Option<TokenUsage>,
    /// The error that ended it, if any.
    pub error: Option<String>,
    /// Creation time, Unix milliseconds.
    pub created_at: i64,
    /// Last change, Unix milliseconds.
    pub updated_at: i64,
}

/// A message to append.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewMessage {
    /// The conversation.
    pub conversation_id: String,
    /// The message it follows.
    pub parent_id: Option<String>,
    /// Who wrote it.
    pub role: Role,
    /// Its parts.
    pub content: Vec<ContentPart>,
    /// Its initial state.
    pub status: MessageStatus,
    /// The model writing it.
    pub model: Option<String>,
}

/// Changes to a message; `None` fields are left as they are.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MessageUpdate {
    /// New parts, replacing the old.
    pub content: Option<Vec<ContentPart>>,
    /// New state.
    pub status: Option<MessageStatus>,
    /// Token usage.
    pub usage: Option<TokenUsage>,
    /// An error text.
    pub error: Option<String>,
}

/// A stored message as read: a database row, or (for bulk reads) a JSON array of the same
/// columns in the same order.
#[derive(sqlx::FromRow, Deserialize)]
pub(super) struct Row {
    id: String,
    conversation_id: String,
    parent_id: Option<String>,
    role: Role,
    content: String,
    status: MessageStatus,
    model: Option<String>,
    input_tokens: Option<i64>,
    output_tokens: Option<i64>,
    error: Option<String>,
    created_at: i64,
    updated_at: i64,
}

impl TryFrom<Row> for Message {
    type Error = StoreError;
    fn try_from(r: Row) -> Result<Self, StoreError> {
        let content = serde_json::from_str(&r.content).map_err(|e| {
            StoreError::Invalid(format!("message {} has unreadable content: {e}", r.id))
        })?;
        let usage = match (r.input_tokens, r.output_tokens) {
            (None, None) => None,
            (i, o) => Some(TokenUsage {
                input_tokens: i.unwrap_or(0),
                output_tokens: o.unwrap_or(0),
            }),
        };
        Ok(Self {
            id: r.id,
            conversation_id: r.conversation_id,
            parent_id: r.parent_id,
            role: r.role,
            content,
            status: r.status,
            model: r.model,
            usage,
            error: r.error,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

pub(super) const COLUMNS: &str = "id, conversation_id, parent_id, role, content, status, model, \
                       input_tokens, output_tokens, error, created_at, updated_at";

/// A message's content parts as the stored JSON.
pub(super) fn to_json(content: &[ContentPart]) -> Result<String, StoreError> {
    serde_json::to_string(content)
        .map_err(|e| StoreError::Invalid(format!("cannot encode message content: {e}")))
}

impl Store {
    /// Appends a message to a conversation and marks the conversation active now.
    pub async fn append_message(&self, new: NewMessage) -> Result<Message, StoreError> {
        self.append(new, false).await
    }

    /// [`Store::append_message`] that also makes the new message the last one of the branch
    /// the conversation shows ([`Store::set_head`]), in the same transaction: what a turn does
    /// with each message it starts.
    pub async fn append_as_head(&self, new: NewMessage) -> Result<Message, StoreError> {
        self.append(new, true).await
    }

    /// [`Store::append_as_head`] under an id made beforehand with [`Store::new_message_id`]:
    /// a turn names the message in its events before the row is written.
    pub async fn append_as_head_with_id(
        &self,
        id: String,
        new: NewMessage,
    ) -> Result<Message, StoreError> {
        self.insert(id, new, true).await
    }

    /// A new message id (time-ordered), for [`Store::append_as_head_with_id`].
    pub fn new_message_id() -> String {
        new_id()
    }

    async fn append(&self, new: NewMessage, as_head: bool) -> Result<Message, StoreError> {
        self.insert(new_id(), new, as_head).await
    }

    async fn insert(
        &self,
        id: String,
        new: NewMessage,
        as_head: bool,
    ) -> Result<Message, StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        let row = self.insert_on(&mut tx, id, &new, as_head).await?;
        tx.commit().await.map_err(|e| self.classify(e))?;
        row.try_into()
    }

    /// Inserts `new` under `id` on `conn` (in the caller's transaction), bumping its
    /// conversation and, with `as_head`, making it the head.
    async fn insert_on(
        &self,
        conn: &mut SqliteConnection,
        id: String,
        new: &NewMessage,
        as_head: bool,
    ) -> Result<Row, StoreError> {
        let content = to_json(&new.content)?;
        let now = now_ms();
        // `head_id` is a plain column (no foreign key): it may name the row inserted next.
        let touched = sqlx::query(
            "UPDATE conversations SET updated_at = ?, \
             head_id = CASE WHEN ? THEN ? ELSE head_id END WHERE id = ?",
        )
        .bind(now)
        .bind(as_head)
        .bind(&id)
        .bind(&new.conversation_id)
        .execute(&mut *conn)
        .await
        .map_err(|e| self.classify(e))?;
        if touched.rows_affected() == 0 {
            return Err(StoreError::NotFound {
                entity: "conversation",
                id: new.conversation_id.clone(),
            });
        }
        let sql = format!(
            "INSERT INTO messages (id, conversation_id, parent_id, role, content, status, model, \
             created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}"
        );
        sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(&new.conversation_id)
            .bind(&new.parent_id)
            .bind(new.role)
            .bind(content)
            .bind(new.status)
            .bind(&new.model)
            .bind(now)
            .bind(now)
            .fetch_one(&mut *conn)
            .await
            .map_err(|e| self.classify(e))
    }

    /// Applies `writes` in order in one transaction: all of them or, on the first that fails,
    /// none (its error). A turn's lane writes what it queued meanwhile this way, one commit
    /// for several writes.
    pub async fn write_messages(&self, writes: &[MessageWrite]) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        for write in writes {
            match write {
                MessageWrite::InsertAsHead { id, new } => {
                    self.insert_on(&mut tx, id.clone(), new, true).await?;
                }
                MessageWrite::Update { id, update } => {
                    self.update_on(&mut tx, id, update).await?;
                }
            }
        }
        tx.commit().await.map_err(|e| self.classify(e))
    }

    /// Applies `update` to a message.
    pub async fn update_message(
        &self,
        id: &str,
        update: MessageUpdate,
    ) -> Result<Message, StoreError> {
        let mut conn = self.writer.acquire().await.map_err(|e| self.classify(e))?;
        self.update_on(&mut conn, id, &update).await?.try_into()
    }

    /// Applies `update` to message `id` on `conn`.
    async fn update_on(
        &self,
        conn: &mut SqliteConnection,
        id: &str,
        update: &MessageUpdate,
    ) -> Result<Row, StoreError> {
        let content = update.content.as_deref().map(to_json).transpose()?;
        let sql = format!(
            "UPDATE messages SET content = COALESCE(?, content), status = COALESCE(?, status), \
             input_tokens = COALESCE(?, input_tokens), output_tokens = COALESCE(?, output_tokens), \
             error = COALESCE(?, error), updated_at = ? WHERE id = ? RETURNING {COLUMNS}"
        );
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(content)
            .bind(update.status)
            .bind(update.usage.map(|u| u.input_tokens))
            .bind(update.usage.map(|u| u.output_tokens))
            .bind(update.error.as_deref())
            .bind(now_ms())
            .bind(id)
            .fetch_optional(&mut *conn)
            .await
            .map_err(|e| self.classify(e))?;
        row.ok_or_else(|| StoreError::NotFound {
            entity: "message",
            id: id.to_owned(),
        })
    }

    /// Lists a conversation's messages oldest first (all branches), keyset-paged.
    pub async fn list_messages(
        &self,
        conversation_id: &str,
        page: &PageRequest,
    ) -> Result<Page<Message>, StoreError> {
        let (created, id) = match &page.cursor {
            None => (i64::MIN, String::new()),
            Some(c) => {
                let f = split_cursor(c, 2)?;
                (cursor_number(f[0])?, f[1].to_owned())
            }
        };
        let size = page.size();
        let sql = format!(
            "SELECT {COLUMNS} FROM messages WHERE conversation_id = ? \
             AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?"
        );
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(conversation_id)
            .bind(created)
            .bind(id)
            .bind(i64::from(size) + 1)
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        let items = rows
            .into_iter()
            .map(Message::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_rows(items, size, |m| {
            format!("{}:{}", m.created_at, m.id)
        }))
    }

    /// Marks every message still `streaming` as `interrupted`; run once at start-up, before
    /// any turn begins. Returns how many were marked.
    pub async fn mark_interrupted(&self) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE messages SET status = 'interrupted', updated_at = ? WHERE status = 'streaming'",
        )
        .bind(now_ms())
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(done.rows_affected())
    }
}
