//! Imports whole conversations keeping their ids and timestamps, merged by id in one
//! transaction: a conversation or message that is new is added, one that is already here and
//! identical is skipped, and one that is here but different is reported as a conflict and
//! left as it is (never overwritten). New messages of a known conversation (another branch)
//! are added to it. A dry run does the same work and rolls it back.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use sqlx::{Sqlite, Transaction};
use ts_rs::TS;

use super::conversations::{COLUMNS as CONVERSATION_COLUMNS, Row as ConversationRow};
use super::messages::{COLUMNS, Row};
use super::{Conversation, Message, NewBlob, Store, StoreError};

/// A conversation to import with all its messages (each one's `conversation_id` is the
/// conversation's id; parents come from the same conversation).
#[derive(Clone, Debug, PartialEq)]
pub struct ImportItem {
    /// The conversation, with its id, times and head.
    pub conversation: Conversation,
    /// Its messages, every branch.
    pub messages: Vec<Message>,
}

/// What happened (or, in a dry run, would happen) to one conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum MergeAction {
    /// It is new: added with all its messages.
    Add,
    /// It was here: its new messages were added.
    Merge,
    /// It was here with every message: nothing to do.
    Skip,
    /// It was here and something differs; the differing parts were left as they are.
    Conflict,
}

/// The outcome for one conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MergeEntry {
    /// The conversation's id.
    pub id: String,
    /// Its title in the imported file.
    pub title: String,
    /// What was done.
    pub action: MergeAction,
    /// Messages added.
    pub messages_added: u32,
    /// Messages already here, identical.
    pub messages_skipped: u32,
    /// Messages here with the same id but different contents (kept as they are).
    pub messages_conflicted: u32,
    /// What differs, one line each.
    pub conflicts: Vec<String>,
}

/// The outcome of an import.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MergeReport {
    /// Whether this was a dry run (nothing was written).
    pub dry_run: bool,
    /// Conversations added.
    pub added: u32,
    /// Conversations that were here and got new messages.
    pub merged: u32,
    /// Conversations already here in full.
    pub skipped: u32,
    /// Conversations with a conflict.
    pub conflicted: u32,
    /// Messages added in all.
    pub messages_added: u32,
    /// One entry per conversation, in the file's order.
    pub entries: Vec<MergeEntry>,
}

impl MergeReport {
    fn push(&mut self, entry: MergeEntry) {
        match entry.action {
            MergeAction::Add => self.added += 1,
            MergeAction::Merge => self.merged += 1,
            MergeAction::Skip => self.skipped += 1,
            MergeAction::Conflict => self.conflicted += 1,
        }
        self.messages_added += entry.messages_added;
        self.entries.push(entry);
    }
}

/// An import in progress: one open transaction that conversations are added to one at a
/// time (so a file is merged while it is read, never held whole), committed — or, for a dry
/// run or when dropped unfinished, rolled back — at the end.
pub struct ImportSession<'s> {
    store: &'s Store,
    tx: Transaction<'static, Sqlite>,
    report: MergeReport,
    links: Vec<(String, String)>,
}

impl ImportSession<'_> {
    /// Merges one conversation (see the module notes).
    pub async fn add(&mut self, item: &ImportItem) -> Result<(), StoreError> {
        let entry = self.store.import_one(&mut self.tx, item).await?;
        if let (MergeAction::Add, Some(project)) = (&entry.action, &item.conversation.project_id) {
            self.links.push((entry.id.clone(), project.clone()));
        }
        self.report.push(entry);
        Ok(())
    }

    /// The conversations added so far that the file put in a project: (conversation, project).
    /// They are added outside any project (the file's projects come after its conversations);
    /// the importer moves them once the projects are merged.
    pub fn project_links(&self) -> &[(String, String)] {
        &self.links
    }

    /// Stores the images the next conversation names (each once by hash; one already stored
    /// is kept as it is).
    pub async fn add_images(&mut self, images: &[NewBlob]) -> Result<(), StoreError> {
        for blob in images {
            self.store.put_blob_in(&mut self.tx, blob).await?;
        }
        Ok(())
    }

    /// Commits (rolls back for a dry run) and returns what was done.
    pub async fn finish(self) -> Result<MergeReport, StoreError> {
        let store = self.store;
        if self.report.dry_run {
            self.tx.rollback().await.map_err(|e| store.classify(e))?;
        } else {
            self.tx.commit().await.map_err(|e| store.classify(e))?;
        }
        Ok(self.report)
    }
}

impl Store {
    /// Starts an import (its writes roll back at the end when `dry_run`).
    pub async fn begin_import(&self, dry_run: bool) -> Result<ImportSession<'_>, StoreError> {
        let mut tx = self.writer.begin().await.map_err(|e| self.classify(e))?;
        // Parents may come after their children in a file; the keys are checked at commit.
        sqlx::query("PRAGMA defer_foreign_keys = ON")
            .execute(&mut *tx)
            .await
            .map_err(|e| self.classify(e))?;
        let report = MergeReport {
            dry_run,
            ..MergeReport::default()
        };
        Ok(ImportSession {
            store: self,
            tx,
            report,
            links: Vec::new(),
        })
    }

    /// Imports `items` in one transaction (rolled back when `dry_run`); see the module notes.
    pub async fn import_conversations(
        &self,
        items: &[ImportItem],
        dry_run: bool,
    ) -> Result<MergeReport, StoreError> {
        let mut session = self.begin_import(dry_run).await?;
        for item in items {
            session.add(item).await?;
        }
        session.finish().await
    }

    async fn import_one(
        &self,
        tx: &mut Transaction<'static, Sqlite>,
        item: &ImportItem,
    ) -> Result<MergeEntry, StoreError> {
        let c = &item.conversation;
        let mut entry = MergeEntry {
            id: c.id.clone(),
            title: c.title.clone(),
            action: MergeAction::Add,
            messages_added: 0,
            messages_skipped: 0,
            messages_conflicted: 0,
            conflicts: Vec::new(),
        };
        let existing = self.existing_conversation(tx, &c.id).await?;
        let is_new = existing.is_none();
        match existing {
            None => self.insert_conversation(tx, c).await?,
            Some(here) => entry.conflicts.extend(conversation_differences(&here, c)),
        }
        for chunk in item.messages.chunks(ROWS_PER_INSERT) {
            let added = self.insert_messages(tx, chunk).await?;
            let taken: Vec<&str> = chunk
                .iter()
                .map(|m| m.id.as_str())
                .filter(|id| !added.contains(*id))
                .collect();
            let mut here = self.messages_here(tx, &taken).await?;
            for m in chunk {
                if added.contains(m.id.as_str()) {
                    entry.messages_added += 1;
                    continue;
                }
                match here.remove(m.id.as_str()) {
                    Some(h) if h == *m => entry.messages_skipped += 1,
                    Some(h) => {
                        entry.messages_conflicted += 1;
                        entry.conflicts.push(message_difference(&h, m));
                    }
                    None => {
                        return Err(StoreError::Invalid(format!(
                            "message {} was neither added nor found",
                            m.id
                        )));
                    }
                }
            }
        }
        entry.action = if is_new {
            MergeAction::Add
        } else if !entry.conflicts.is_empty() {
            MergeAction::Conflict
        } else if entry.messages_added > 0 {
            MergeAction::Merge
        } else {
            MergeAction::Skip
        };
        Ok(entry)
    }

    async fn existing_conversation(
        &self,
        tx: &mut Transaction<'static, Sqlite>,
        id: &str,
    ) -> Result<Option<Conversation>, StoreError> {
        let sql = format!("SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = ?");
        let row: Option<ConversationRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&mut **tx)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(row.map(Conversation::from))
    }

    async fn insert_conversation(
        &self,
        tx: &mut Transaction<'static, Sqlite>,
        c: &Conversation,
    ) -> Result<(), StoreError> {
        let settings = serde_json::to_string(&c.settings)
            .map_err(|e| StoreError::Invalid(format!("cannot encode settings: {e}")))?;
        sqlx::query(
            "INSERT INTO conversations (id, title, created_at, updated_at, pinned, archived, \
             provider_id, model, system_prompt, settings, head_id) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&c.id)
        .bind(&c.title)
        .bind(c.created_at)
        .bind(c.updated_at)
        .bind(c.pinned)
        .bind(c.archived)
        .bind(&c.provider_id)
        .bind(&c.model)
        .bind(&c.system_prompt)
        .bind(settings)
        .bind(&c.head_id)
        .execute(&mut **tx)
        .await
        .map_err(|e| self.classify(e))?;
        Ok(())
    }

    /// Inserts the messages whose ids are free, with one statement; returns the ids added.
    async fn insert_messages(
        &self,
        tx: &mut Transaction<'static, Sqlite>,
        ms: &[Message],
    ) -> Result<HashSet<String>, StoreError> {
        use super::messages::COLUMNS;
        // One placeholder per column, in COLUMNS' order (the binds below follow it).
        let row = format!("({})", vec!["?"; COLUMNS.split(", ").count()].join(", "));
        let sql = format!(
            "INSERT INTO messages ({COLUMNS}) VALUES {} ON CONFLICT (id) DO NOTHING RETURNING id",
            vec![row; ms.len()].join(", ")
        );
        let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(sql));
        for m in ms {
            query = query
                .bind(&m.id)
                .bind(&m.conversation_id)
                .bind(&m.parent_id)
                .bind(m.role)
                .bind(super::messages::to_json(&m.content)?)
                .bind(m.status)
                .bind(&m.model)
                .bind(m.usage.map(|u| u.input_tokens))
                .bind(m.usage.map(|u| u.output_tokens))
                .bind(&m.error)
                .bind(m.created_at)
                .bind(m.updated_at);
        }
        let added: Vec<String> = query
            .fetch_all(&mut **tx)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(added.into_iter().collect())
    }

    /// The messages already stored under `ids`, by id.
    async fn messages_here(
        &self,
        tx: &mut Transaction<'static, Sqlite>,
        ids: &[&str],
    ) -> Result<HashMap<String, Message>, StoreError> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let sql = format!(
            "SELECT {COLUMNS} FROM messages WHERE id IN ({})",
            vec!["?"; ids.len()].join(", ")
        );
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in ids {
            query = query.bind(*id);
        }
        let rows: Vec<Row> = query
            .fetch_all(&mut **tx)
            .await
            .map_err(|e| self.classify(e))?;
        rows.into_iter()
            .map(|r| Message::try_from(r).map(|m| (m.id.clone(), m)))
            .collect()
    }
}

/// Messages per multi-row INSERT: 12 values each, far below SQLite's limit of 32,766.
const ROWS_PER_INSERT: usize = 200;

/// The fields of a conversation already here that differ from the imported one.
fn conversation_differences(here: &Conversation, new: &Conversation) -> Vec<String> {
    let mut fields = Vec::new();
    let mut check = |name: &str, same: bool| {
        if !same {
            fields.push(name.to_owned());
        }
    };
    check("title", here.title == new.title);
    check("createdAt", here.created_at == new.created_at);
    check("pinned", here.pinned == new.pinned);
    check("archived", here.archived == new.archived);
    check("providerId", here.provider_id == new.provider_id);
    check("model", here.model == new.model);
    check("systemPrompt", here.system_prompt == new.system_prompt);
    check("settings", here.settings == new.settings);
    if fields.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "conversation {} differs in {} (kept as it is here)",
        new.id,
        fields.join(", ")
    )]
}

/// One line saying how a message already here differs from the imported one.
fn message_difference(here: &Message, new: &Message) -> String {
    if here.conversation_id != new.conversation_id {
        return format!(
            "message {} already belongs to conversation {} (kept as it is here)",
            new.id, here.conversation_id
        );
    }
    format!(
        "message {} differs from the one here (kept as it is here)",
        new.id
    )
}
