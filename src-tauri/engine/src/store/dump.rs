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

    /// The id of every conversation in project `project`, oldest first.
    pub async fn project_conversation_ids(&self, project: &str) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar(
            "SELECT id FROM conversations WHERE project_id = ? ORDER BY created_at, id",
        )
        .bind(project)
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

    /// A conversation with every one of its messages, or `None` when it does not exist: the
    /// one-at-a-time reading the batched [`Store::conversations_with_messages`] is checked
    /// against.
    #[cfg(test)]
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
        for m in self.messages_of(ids, &marks).await? {
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

    /// Every message of the conversations `ids` (`marks`: one `?` each), by conversation
    /// then as [`Store::all_messages`] orders them. SQLite packs each conversation's rows
    /// into one JSON array (one row crosses from the database thread per conversation, not
    /// per message); a conversation too big for that is read row by row.
    async fn messages_of(&self, ids: &[String], marks: &str) -> Result<Vec<Message>, StoreError> {
        let sql = format!(
            "SELECT json_group_array(json_array({COLUMNS}) ORDER BY created_at, id) \
             FROM messages WHERE conversation_id IN ({marks}) \
             GROUP BY conversation_id ORDER BY conversation_id"
        );
        let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(sql));
        for id in ids {
            query = query.bind(id);
        }
        let packed: Vec<String> = match query.fetch_all(&self.reader).await {
            Ok(packed) => packed,
            Err(e) if too_big(&e) => return self.messages_row_by_row(ids, marks).await,
            Err(e) => return Err(self.classify(e)),
        };
        let mut messages = Vec::new();
        for text in packed {
            let rows: Vec<Row> = serde_json::from_str(&text).map_err(|e| {
                StoreError::Invalid(format!("cannot read a conversation's messages: {e}"))
            })?;
            for row in rows {
                messages.push(Message::try_from(row)?);
            }
        }
        Ok(messages)
    }

    async fn messages_row_by_row(
        &self,
        ids: &[String],
        marks: &str,
    ) -> Result<Vec<Message>, StoreError> {
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
        rows.into_iter().map(Message::try_from).collect()
    }
}

/// Whether `e` is SQLite's "string or blob too big" (`SQLITE_TOOBIG`, 18): a packed
/// conversation over the length limit, read row by row instead. Any other error is real.
fn too_big(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.code().as_deref() == Some("18"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::store::{Conversation, ImportItem, Message, MessageStatus, Role, Store, TokenUsage};
    use crate::vocab::content::ContentPart;

    fn message(c: &str, n: i64, parent: Option<String>) -> Message {
        Message {
            id: format!("{c}-{n}"),
            conversation_id: c.into(),
            parent_id: parent,
            role: if n % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            content: vec![
                ContentPart::text(format!("第{n}条 \"quoted\" \\ back\nslash \u{1F600} \u{0}")),
                ContentPart::ToolCall {
                    id: format!("call-{n}"),
                    server: "s".into(),
                    tool: "t".into(),
                    arguments: json!({"z": 1.5, "a": [1e300, -0.0, 12345678901234567890u64], "m": null}),
                },
            ],
            status: if n == 3 {
                MessageStatus::Error
            } else {
                MessageStatus::Complete
            },
            model: (n % 2 == 1).then(|| "m".to_owned()),
            usage: (n == 1).then_some(TokenUsage {
                input_tokens: 7,
                output_tokens: 9,
            }),
            error: (n == 3).then(|| "boom — 失败".to_owned()),
            // Out of order on purpose: ties on time are broken by id.
            created_at: 1_000 - n % 3,
            updated_at: 2_000 + n,
        }
    }

    fn item(c: &str, count: i64) -> ImportItem {
        let mut messages: Vec<Message> = Vec::new();
        for n in 0..count {
            let parent = messages.last().map(|m| m.id.clone());
            messages.push(message(c, n, parent));
        }
        ImportItem {
            conversation: Conversation {
                id: c.into(),
                title: format!("title {c}"),
                created_at: 5,
                updated_at: 6,
                pinned: c == "b",
                archived: c == "c",
                provider_id: None,
                model: None,
                system_prompt: Some("sys".into()),
                settings: json!({"k": [1, 2]}),
                head_id: messages.last().map(|m| m.id.clone()),
                project_id: None,
            },
            messages,
        }
    }

    #[tokio::test]
    async fn a_batch_reads_exactly_what_reading_each_conversation_alone_reads() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("d.db")).await.unwrap();
        let items = vec![item("b", 7), item("a", 12), item("c", 0), item("d", 1)];
        store.import_conversations(&items, false).await.unwrap();
        let ids: Vec<String> = ["c", "a", "d", "b"].map(String::from).to_vec();
        let batch = store.conversations_with_messages(&ids).await.unwrap();
        let mut one_by_one = Vec::new();
        for id in &ids {
            one_by_one.push(store.conversation_with_messages(id).await.unwrap().unwrap());
        }
        assert_eq!(batch, one_by_one);
        let marks = vec!["?"; ids.len()].join(", ");
        assert_eq!(
            store.messages_of(&ids, &marks).await.unwrap(),
            store.messages_row_by_row(&ids, &marks).await.unwrap()
        );
        assert_eq!(batch[1].1.len(), 12);
        let missing = ["a", "nope"].map(String::from);
        let err = store
            .conversations_with_messages(&missing)
            .await
            .unwrap_err();
        assert_eq!(err.to_string(), "conversation nope does not exist");
    }
}
