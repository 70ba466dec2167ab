//! Message trees: the branch a conversation shows (root → head), the siblings of a message
//! (the alternatives an edit or a regeneration created), the newest leaf below a message, and
//! deleting a message with everything below it.

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

impl Store {
    /// How many messages deleting `message_id` removes: itself and every message below it in
    /// the branch tree.
    pub async fn subtree_size(&self, message_id: &str) -> Result<u64, StoreError> {
        let n: i64 = sqlx::query_scalar(
            "WITH RECURSIVE down(id) AS (SELECT id FROM messages WHERE id = ? UNION ALL \
             SELECT c.id FROM messages c JOIN down d ON c.parent_id = d.id) \
             SELECT COUNT(*) FROM down",
        )
        .bind(message_id)
        .fetch_one(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        if n == 0 {
            return Err(StoreError::NotFound {
                entity: "message",
                id: message_id.to_owned(),
            });
        }
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// Deletes `message_id` and everything below it; when the conversation showed a branch
    /// through it, it shows the newest branch left under the parent (or the newest message
    /// left) instead. Returns how many messages were deleted.
    pub async fn delete_message_subtree(&self, message_id: &str) -> Result<u64, StoreError> {
        let removed = self.subtree_size(message_id).await?;
        let message = self.get_message(message_id).await?;
        let conv = &message.conversation_id;
        let shown: Option<String> =
            sqlx::query_scalar("SELECT head_id FROM conversations WHERE id = ?")
                .bind(conv)
                .fetch_one(&self.reader)
                .await
                .map_err(|e| self.classify(e))?;
        let head_below = match &shown {
            Some(head) => self.branch(head).await?.iter().any(|m| m.id == message_id),
            None => false,
        };
        sqlx::query("DELETE FROM messages WHERE id = ?")
            .bind(message_id)
            .execute(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        if head_below {
            let head = match &message.parent_id {
                Some(parent) => Some(self.newest_leaf(parent).await?),
                None => self.newest_message(conv).await?,
            };
            sqlx::query("UPDATE conversations SET head_id = ? WHERE id = ?")
                .bind(head)
                .bind(conv)
                .execute(&self.writer)
                .await
                .map_err(|e| self.classify(e))?;
        }
        Ok(removed)
    }

    /// The newest leaf of the newest root branch left in `conversation`, if any.
    async fn newest_message(&self, conversation: &str) -> Result<Option<String>, StoreError> {
        let root: Option<String> = sqlx::query_scalar(
            "SELECT id FROM messages WHERE conversation_id = ? AND parent_id IS NULL \
             ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(conversation)
        .fetch_optional(&self.reader)
        .await
        .map_err(|e| self.classify(e))?;
        match root {
            Some(r) => Ok(Some(self.newest_leaf(&r).await?)),
            None => Ok(None),
        }
    }
}
