//! The projects repository: named groups of conversations, each with an icon, instructions
//! given to every conversation in it, a default assistant and the MCP servers its new
//! conversations use. Create, list (with how many conversations each holds), find by id or
//! name, replace, delete (its conversations kept outside any project, or deleted with it), move
//! conversations in and out, and the merge an import does. Names are unique regardless of case.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::page::{new_id, now_ms};
use super::{Store, StoreError};

/// The longest project name we keep, in characters.
pub const MAX_PROJECT_NAME: usize = 100;
/// The longest instructions we keep, in characters.
pub const MAX_INSTRUCTIONS: usize = 20_000;

/// A stored project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Time-ordered id.
    pub id: String,
    /// Its name, unique regardless of case.
    pub name: String,
    /// An emoji shown beside the name (may be empty).
    pub icon: String,
    /// Given to the model before each conversation's own system prompt (may be empty).
    pub instructions: String,
    /// The assistant (id) new conversations in it start from; the default assistant when absent.
    pub assistant_id: Option<String>,
    /// The MCP servers new conversations in it use; the assistant's choice when absent.
    pub servers: Option<Vec<String>>,
    /// Creation time, Unix milliseconds.
    pub created_at: i64,
    /// Last change, Unix milliseconds.
    pub updated_at: i64,
}

/// What a project is made of, to create one or replace one's fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct ProjectDraft {
    /// Its name.
    pub name: String,
    /// An emoji.
    pub icon: String,
    /// Instructions for every conversation in it.
    pub instructions: String,
    /// The default assistant (id).
    #[ts(optional)]
    pub assistant_id: Option<String>,
    /// The MCP servers of its new conversations.
    #[ts(optional)]
    pub servers: Option<Vec<String>>,
}

impl From<&Project> for ProjectDraft {
    fn from(p: &Project) -> Self {
        Self {
            name: p.name.clone(),
            icon: p.icon.clone(),
            instructions: p.instructions.clone(),
            assistant_id: p.assistant_id.clone(),
            servers: p.servers.clone(),
        }
    }
}

/// A project in the sidebar: the project and how many conversations (not archived) it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProjectSummary {
    /// The project.
    pub project: Project,
    /// Its conversations that are not archived.
    pub conversations: i64,
}

/// What happens to a deleted project's conversations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ProjectConversations {
    /// They stay, outside any project.
    Keep,
    /// They are deleted with it (with all their messages).
    Delete,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    name: String,
    icon: String,
    instructions: String,
    assistant_id: Option<String>,
    servers: Option<String>,
    created_at: i64,
    updated_at: i64,
}

impl From<Row> for Project {
    fn from(r: Row) -> Self {
        Self {
            id: r.id,
            name: r.name,
            icon: r.icon,
            instructions: r.instructions,
            assistant_id: r.assistant_id,
            servers: r.servers.and_then(|s| serde_json::from_str(&s).ok()),
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

const COLUMNS: &str = "id, name, icon, instructions, assistant_id, servers, created_at, updated_at";

/// A draft's fields as stored: the name trimmed and checked, the servers as JSON.
struct Clean {
    name: String,
    icon: String,
    instructions: String,
    assistant_id: Option<String>,
    servers: Option<String>,
}

fn clean(draft: &ProjectDraft) -> Result<Clean, StoreError> {
    let name = draft.name.trim();
    if name.is_empty() {
        return Err(StoreError::Invalid("a project needs a name".into()));
    }
    if name.chars().count() > MAX_PROJECT_NAME {
        return Err(StoreError::Invalid(format!(
            "a project's name may have at most {MAX_PROJECT_NAME} characters"
        )));
    }
    if draft.instructions.chars().count() > MAX_INSTRUCTIONS {
        return Err(StoreError::Invalid(format!(
            "a project's instructions may have at most {MAX_INSTRUCTIONS} characters"
        )));
    }
    let servers = draft
        .servers
        .as_ref()
        .map(|s| serde_json::to_string(s).unwrap_or_else(|_| "[]".into()));
    Ok(Clean {
        name: name.to_owned(),
        icon: draft.icon.trim().to_owned(),
        instructions: draft.instructions.trim().to_owned(),
        assistant_id: draft
            .assistant_id
            .as_deref()
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_owned),
        servers,
    })
}

impl Store {
    /// Saves a new project; its name must be unique.
    pub async fn insert_project(&self, draft: &ProjectDraft) -> Result<Project, StoreError> {
        let now = now_ms();
        self.insert_project_as(&new_id(), draft, now, now).await
    }

    async fn insert_project_as(
        &self,
        id: &str,
        draft: &ProjectDraft,
        created_at: i64,
        updated_at: i64,
    ) -> Result<Project, StoreError> {
        let c = clean(draft)?;
        let sql = format!(
            "INSERT INTO projects ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING {COLUMNS}"
        );
        let row = sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(&c.name)
            .bind(&c.icon)
            .bind(&c.instructions)
            .bind(&c.assistant_id)
            .bind(&c.servers)
            .bind(created_at)
            .bind(updated_at)
            .fetch_one(&self.writer)
            .await;
        self.name_checked(row, "a project", &c.name)
    }

    /// Every project with its conversation count, by name.
    pub async fn list_projects(&self) -> Result<Vec<ProjectSummary>, StoreError> {
        let cols: Vec<String> = COLUMNS.split(", ").map(|c| format!("p.{c}")).collect();
        let sql = format!(
            "SELECT {}, (SELECT count(*) FROM conversations c WHERE c.project_id = p.id \
             AND c.archived = 0) AS n FROM projects p ORDER BY p.name COLLATE NOCASE, p.id",
            cols.join(", ")
        );
        let rows: Vec<(i64, Row)> = sqlx::query(sqlx::AssertSqlSafe(sql))
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?
            .into_iter()
            .map(|r| {
                use sqlx::{FromRow, Row as _};
                Ok((r.try_get::<i64, _>("n")?, Row::from_row(&r)?))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.classify(e))?;
        Ok(rows
            .into_iter()
            .map(|(n, row)| ProjectSummary {
                project: row.into(),
                conversations: n,
            })
            .collect())
    }

    /// The project with this id, or this name (regardless of case).
    pub async fn find_project(&self, id_or_name: &str) -> Result<Project, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM projects WHERE id = ?1 OR name = ?2 COLLATE NOCASE \
             ORDER BY id = ?1 DESC LIMIT 1"
        );
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id_or_name)
            .bind(id_or_name.trim())
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        row.map(Project::from).ok_or_else(|| not_found(id_or_name))
    }

    /// Replaces every field of project `id` with `draft`'s.
    pub async fn update_project(
        &self,
        id: &str,
        draft: &ProjectDraft,
    ) -> Result<Project, StoreError> {
        let c = clean(draft)?;
        let sql = format!(
            "UPDATE projects SET name = ?, icon = ?, instructions = ?, assistant_id = ?, \
             servers = ?, updated_at = ? WHERE id = ? RETURNING {COLUMNS}"
        );
        let row = sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(sql))
            .bind(&c.name)
            .bind(&c.icon)
            .bind(&c.instructions)
            .bind(&c.assistant_id)
            .bind(&c.servers)
            .bind(now_ms())
            .bind(id)
            .fetch_optional(&self.writer)
            .await;
        match row {
            Ok(None) => Err(not_found(id)),
            Ok(Some(row)) => self.name_checked(Ok(row), "a project", &c.name),
            Err(e) => self.name_checked::<Row, _>(Err(e), "a project", &c.name),
        }
    }

    /// Deletes a project; its conversations are kept outside any project or deleted with it,
    /// in the same transaction. Returns how many conversations were deleted.
    pub async fn delete_project(
        &self,
        id: &str,
        conversations: ProjectConversations,
    ) -> Result<u64, StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        let deleted = match conversations {
            ProjectConversations::Keep => 0,
            ProjectConversations::Delete => {
                sqlx::query("DELETE FROM conversations WHERE project_id = ?")
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| self.classify(e))?
                    .rows_affected()
            }
        };
        let done = sqlx::query("DELETE FROM projects WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.classify(e))?;
        if done.rows_affected() == 0 {
            return Err(not_found(id));
        }
        tx.commit().await.map_err(|e| self.classify(e))?;
        Ok(deleted)
    }

    /// Puts conversations `ids` into project `project` (none: out of any project). Their
    /// settings stay as they are; the project's instructions apply from their next turn.
    /// Returns how many were moved; an unknown project is refused and nothing moves.
    pub async fn move_conversations(
        &self,
        ids: &[String],
        project: Option<&str>,
    ) -> Result<u64, StoreError> {
        if let Some(p) = project {
            self.find_project(p).await?;
        }
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        let mut moved = 0;
        for id in ids {
            moved += sqlx::query("UPDATE conversations SET project_id = ? WHERE id = ?")
                .bind(project)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.classify(e))?
                .rows_affected();
        }
        tx.commit().await.map_err(|e| self.classify(e))?;
        Ok(moved)
    }

    /// `wanted`, or `wanted (2)`, `wanted (3)`, … — the first no project has.
    pub async fn free_project_name(&self, wanted: &str) -> Result<String, StoreError> {
        self.free_name("projects", wanted).await
    }

    /// Merges an imported project: one whose id is here is kept as it is here (the local
    /// organization wins); a new one is added with its id, under a free name. Returns whether
    /// it was added.
    pub async fn merge_project(&self, p: &Project) -> Result<bool, StoreError> {
        if self.find_project_by_id(&p.id).await?.is_some() {
            return Ok(false);
        }
        let mut draft = ProjectDraft::from(p);
        draft.name = self.free_project_name(&p.name).await?;
        self.insert_project_as(&p.id, &draft, p.created_at, p.updated_at)
            .await?;
        Ok(true)
    }

    async fn find_project_by_id(&self, id: &str) -> Result<Option<Project>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM projects WHERE id = ?");
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(row.map(Project::from))
    }
}

fn not_found(id: &str) -> StoreError {
    StoreError::NotFound {
        entity: "project",
        id: id.to_owned(),
    }
}
