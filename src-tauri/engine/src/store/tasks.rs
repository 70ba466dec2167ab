//! The `tool_tasks` table: the handle of each tool call a server runs as a task (server,
//! task id, last known status), and completing a tool message's result for one call when a
//! task that outlived a restart ends.

use super::page::now_ms;
use super::{Store, StoreError};
use crate::store::MessageUpdate;
use crate::vocab::content::ContentPart;
use crate::vocab::task::TaskStatus;

/// A stored task handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRecord {
    /// The tool message that holds (or will hold) the call's result.
    pub message_id: String,
    /// The tool call.
    pub call_id: String,
    /// The conversation.
    pub conversation_id: String,
    /// The MCP server running the task.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The server's task id.
    pub task_id: String,
    /// The last status we saw.
    pub status: TaskStatus,
    /// The last status message we saw.
    pub status_message: Option<String>,
}

type Row = (
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    Option<String>,
);

const COLUMNS: &str =
    "message_id, call_id, conversation_id, server, tool, task_id, status, status_message";

impl TryFrom<Row> for TaskRecord {
    type Error = StoreError;
    fn try_from(r: Row) -> Result<Self, StoreError> {
        let status = TaskStatus::parse(&r.6)
            .ok_or_else(|| StoreError::Invalid(format!("unknown task status `{}`", r.6)))?;
        Ok(Self {
            message_id: r.0,
            call_id: r.1,
            conversation_id: r.2,
            server: r.3,
            tool: r.4,
            task_id: r.5,
            status,
            status_message: r.7,
        })
    }
}

impl Store {
    /// Stores a task handle (replacing one stored for the same call).
    pub async fn insert_task(&self, task: &TaskRecord) -> Result<(), StoreError> {
        let now = now_ms();
        sqlx::query(
            "INSERT OR REPLACE INTO tool_tasks (message_id, call_id, conversation_id, server, tool, \
             task_id, status, status_message, created_at, updated_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&task.message_id)
        .bind(&task.call_id)
        .bind(&task.conversation_id)
        .bind(&task.server)
        .bind(&task.tool)
        .bind(&task.task_id)
        .bind(task.status.as_str())
        .bind(&task.status_message)
        .bind(now)
        .bind(now)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// Records task `task_id`'s latest status.
    pub async fn set_task_status(
        &self,
        task_id: &str,
        status: TaskStatus,
        message: Option<&str>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE tool_tasks SET status = ?, status_message = ?, updated_at = ? WHERE task_id = ?",
        )
        .bind(status.as_str())
        .bind(message)
        .bind(now_ms())
        .bind(task_id)
        .execute(&self.writer)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// The tasks not known to have ended, oldest first.
    pub async fn open_tasks(&self) -> Result<Vec<TaskRecord>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM tool_tasks WHERE status IN ('working', 'input_required') \
             ORDER BY created_at"
        );
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        rows.into_iter().map(TryFrom::try_from).collect()
    }

    /// The task of tool call `call_id`, if it became one.
    pub async fn task_of_call(&self, call_id: &str) -> Result<Option<TaskRecord>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM tool_tasks WHERE call_id = ? ORDER BY created_at DESC LIMIT 1"
        );
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(call_id)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        row.map(TryFrom::try_from).transpose()
    }

    /// Puts `part` (a tool result) into tool message `message_id` in place of any result for
    /// the same call, and marks the message complete.
    pub async fn complete_tool_result(
        &self,
        message_id: &str,
        part: ContentPart,
    ) -> Result<(), StoreError> {
        let row: Option<(String,)> = sqlx::query_as("SELECT content FROM messages WHERE id = ?")
            .bind(message_id)
            .fetch_optional(&self.writer)
            .await
            .map_err(|e| self.classify(e))?;
        let (content,) = row.ok_or_else(|| StoreError::NotFound {
            entity: "message",
            id: message_id.to_owned(),
        })?;
        let mut parts: Vec<ContentPart> = serde_json::from_str(&content)
            .map_err(|e| StoreError::Invalid(format!("message content is not valid: {e}")))?;
        let call = call_of(&part).map(str::to_owned);
        parts.retain(|p| call_of(p) != call.as_deref());
        parts.push(part);
        let update = MessageUpdate {
            content: Some(parts),
            status: Some(super::MessageStatus::Complete),
            ..Default::default()
        };
        self.update_message(message_id, update).await.map(drop)
    }
}

/// The call id of a tool result part.
fn call_of(part: &ContentPart) -> Option<&str> {
    match part {
        ContentPart::ToolResult { call_id, .. } => Some(call_id),
        _ => None,
    }
}
