//! Message trees: the branch a conversation shows (root → head), the siblings of a message
//! (the alternatives an edit or a regeneration created) and the newest leaf below a message.

use super::messages::{COLUMNS, Row};
use super::{Message, Store, StoreError};

impl Store {
    /// The messages from the root to `head_id`, oldest first.
    pub async fn branch(&self, head_id: &str) -> Result<Vec<Message>, StoreError> {
        self.branch_tail(head_id, i64::MAX).await
    }

    /// The last `limit` messages of the branch ending at `head_id`, oldest first: a long
    /// conversation opens with its end, and an older page is the tail ending at the parent of
    /// the oldest message shown. The walk up the tree stops after `limit` steps.
    pub async fn branch_tail(&self, head_id: &str, limit: i64) -> Result<Vec<Message>, StoreError> {
        let cols: Vec<String> = COLUMNS.split(", ").map(|c| format!("m.{c}")).collect();
        let sql = format!(
            "WITH RECURSIVE path(id, depth) AS (SELECT ?, 0 UNION ALL \
             SELECT m.parent_id, p.depth + 1 FROM messages m JOIN path p ON m.id = p.id \
             WHERE m.parent_id IS NOT NULL AND p.depth + 1 < ?) \
             SELECT {} FROM messages m JOIN path p ON m.id = p.id WHERE p.depth < ? \
             ORDER BY p.depth DESC",
            cols.join(", ")
        );
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(head_id)
            .bind(limit)
            .bind(limit)
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        rows.into_iter().map(Message::try_from).collect()
    }

    /// The ids of the messages sharing `message_id`'s parent (itself included), oldest first.
    pub async fn siblings(&self, message_id: &str) -> Result<Vec<String>, StoreError> {
        sqlx::query_scalar(
            "SELECT s.id FROM messages m JOIN messages s \
             ON s.conversation_id = m.conversation_id AND s.parent_id IS m.parent_id \
             AND s.role = m.role WHERE m.id = ? ORDER BY s.created_at, s.id",
        )
        .bind(message_id)
        .fetch_all(&self.reader)
        .await
        .map_err(|e| self.classify(e))
    }

    /// The newest leaf at or below `message_id`: from it, the newest child, repeatedly.
    pub async fn newest_leaf(&self, message_id: &str) -> Result<String, StoreError> {
        let leaf: Option<String> = sqlx::query_scalar(
            "WITH RECURSIVE down(id, depth) AS (SELECT ?, 0 UNION ALL \
             SELECT (SELECT c.id FROM messages c WHERE c.parent_id = d.id \
                     ORDER BY c.created_at DESC, c.id DESC LIMIT 1), d.depth + 1 \
             FROM down d WHERE d.id IS NOT NULL) \
             SELECT id FROM down WHERE id IS NOT NULL ORDER BY depth DESC LIMIT 1",
        )
        .bind(message_id)
        .fetch_optional(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        leaf.ok_or_else(|| StoreError::NotFound {
            entity: "message",
            id: message_id.to_owned(),
        })
    }

    /// Gets one message.
    pub async fn get_message(&self, id: &str) -> Result<Message, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM messages WHERE id = ?");
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        row.ok_or_else(|| StoreError::NotFound {
            entity: "message",
            id: id.to_owned(),
        })?
        .try_into()
    }
}
