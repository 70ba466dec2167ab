//! Whole-history reads for export: every conversation id (archived ones too) and every
//! message of a conversation (all branches), without paging; a batch of conversations is
//! read with two queries, whatever its size.

use std::collections::HashMap;

use super::conversations::{COLUMNS as CONVERSATION_COLUMNS, Row as ConversationRow};
use super::messages::{COLUMNS, Row};
use super::{Conversation, Message, Store, StoreError};

impl Store {
    /// The ids of every conversation, archived ones included, oldest first.
    pub async fn all_conversation_ids(&self) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar("SELECT id FROM conversations ORDER BY created_at, id")
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))
    }

    /// Every message of a conversation, every branch, oldest first (ties by id).
    pub async fn all_messages(&self, conversation_id: &str) -> Result<Vec<Message>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY created_at, id"
        );
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(conversation_id)
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        rows.into_iter().map(Message::try_from).collect()
    }

    /// A conversation with every one of its messages, or `None` when it does not exist.
    pub async fn conversation_with_messages(
        &self,
        id: &str,
    ) -> Result<Option<(Conversation, Vec<Message>)>, StoreError> {
        let sql = format!("SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = ?");
        let row: Option<ConversationRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        let Some(row) = row else {
            return Ok(None);
        };
        let messages = self.all_messages(id).await?;
        Ok(Some((Conversation::from(row), messages)))
    }

    /// The conversations `ids` (distinct; keep a batch to a few hundred) in that order, each
    /// with every one of its messages as [`Store::all_messages`] orders them, read with two
    /// queries. A missing conversation is [`StoreError::NotFound`].
    pub async fn conversations_with_messages(
        &self,
        ids: &[String],
    ) -> Result<Vec<(Conversation, Vec<Message>)>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; ids.len()].join(", ");
        let sql = format!("SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id IN ({marks})");
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in ids {
            query = query.bind(id);
        }
        let rows: Vec<ConversationRow> = query
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        let mut conversations: HashMap<String, (Conversation, Vec<Message>)> = rows
            .into_iter()
            .map(|r| {
                let c = Conversation::from(r);
                (c.id.clone(), (c, Vec::new()))
            })
            .collect();
        let sql = format!(
            "SELECT {COLUMNS} FROM messages WHERE conversation_id IN ({marks}) \
             ORDER BY conversation_id, created_at, id"
        );
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in ids {
            query = query.bind(id);
        }
        let rows: Vec<Row> = query
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        for row in rows {
            let m = Message::try_from(row)?;
            if let Some((_, messages)) = conversations.get_mut(&m.conversation_id) {
                messages.push(m);
            }
        }
        ids.iter()
            .map(|id| {
                conversations
                    .remove(id)
                    .ok_or_else(|| StoreError::NotFound {
                        entity: "conversation",
                        id: id.clone(),
                    })
            })
            .collect()
    }
}
