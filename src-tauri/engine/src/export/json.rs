//! Switchboard's lossless, versioned JSON export (documented in `docs/export-format.md`):
//! written one conversation at a time (one per line, so memory stays bounded by the largest
//! conversation) and read back for import with every reference checked.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

use super::ExportError;
use crate::store::{
    Assistant, Conversation, ImportItem, Message, MessageStatus, Project, Role, TokenUsage,
};
use crate::vocab::content::ContentPart;

/// The value of the `format` field that marks our files.
pub(crate) const FORMAT: &str = "switchboard.conversations";
/// The schema version this build writes and the newest it reads.
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// The head of the file, before the conversations.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Head<'a> {
    format: &'a str,
    schema_version: u32,
}

/// A conversation in the file: the stored conversation and all its messages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExportedConversation {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Creation time, Unix milliseconds.
    pub created_at: i64,
    /// Last activity, Unix milliseconds.
    pub updated_at: i64,
    /// Pinned.
    pub pinned: bool,
    /// Archived.
    pub archived: bool,
    /// The provider chosen, if any.
    pub provider_id: Option<String>,
    /// The model chosen, if any.
    pub model: Option<String>,
    /// The system prompt, if any.
    pub system_prompt: Option<String>,
    /// Further settings.
    pub settings: serde_json::Value,
    /// The last message of the branch shown.
    pub head_id: Option<String>,
    /// The project it belongs to (written only when it has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// Every message of every branch, oldest first.
    pub messages: Vec<ExportedMessage>,
}

/// A message in the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExportedMessage {
    /// Its id.
    pub id: String,
    /// The message it follows; messages sharing a parent are branches.
    pub parent_id: Option<String>,
    /// Who wrote it.
    pub role: Role,
    /// Its parts.
    pub content: Vec<ContentPart>,
    /// Its state.
    pub status: MessageStatus,
    /// The model that wrote it.
    pub model: Option<String>,
    /// Token usage.
    pub usage: Option<TokenUsage>,
    /// The error that ended it.
    pub error: Option<String>,
    /// Creation time, Unix milliseconds.
    pub created_at: i64,
    /// Last change, Unix milliseconds.
    pub updated_at: i64,
}

impl ExportedConversation {
    /// The file form of a stored conversation.
    #[cfg(test)]
    pub(crate) fn new(c: &Conversation, messages: &[Message]) -> Self {
        Self {
            id: c.id.clone(),
            title: c.title.clone(),
            created_at: c.created_at,
            updated_at: c.updated_at,
            pinned: c.pinned,
            archived: c.archived,
            provider_id: c.provider_id.clone(),
            model: c.model.clone(),
            system_prompt: c.system_prompt.clone(),
            settings: c.settings.clone(),
            head_id: c.head_id.clone(),
            project_id: c.project_id.clone(),
            messages: messages.iter().map(ExportedMessage::from).collect(),
        }
    }

    /// The stored form, for import.
    pub(crate) fn into_item(self) -> ImportItem {
        let id = self.id;
        let messages = self
            .messages
            .into_iter()
            .map(|m| Message {
                id: m.id,
                conversation_id: id.clone(),
                parent_id: m.parent_id,
                role: m.role,
                content: m.content,
                status: m.status,
                model: m.model,
                usage: m.usage,
                error: m.error,
                created_at: m.created_at,
                updated_at: m.updated_at,
            })
            .collect();
        ImportItem {
            conversation: Conversation {
                id,
                title: self.title,
                created_at: self.created_at,
                updated_at: self.updated_at,
                pinned: self.pinned,
                archived: self.archived,
                provider_id: self.provider_id,
                model: self.model,
                system_prompt: self.system_prompt,
                settings: self.settings,
                head_id: self.head_id,
                project_id: self.project_id,
            },
            messages,
        }
    }
}

impl From<&Message> for ExportedMessage {
    fn from(m: &Message) -> Self {
        Self {
            id: m.id.clone(),
            parent_id: m.parent_id.clone(),
            role: m.role,
            content: m.content.clone(),
            status: m.status,
            model: m.model.clone(),
            usage: m.usage,
            error: m.error.clone(),
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// [`ExportedConversation`] borrowing the stored conversation, written without copying it:
/// the same fields in the same order, so the same bytes.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConversationOut<'a> {
    id: &'a str,
    title: &'a str,
    created_at: i64,
    updated_at: i64,
    pinned: bool,
    archived: bool,
    provider_id: &'a Option<String>,
    model: &'a Option<String>,
    system_prompt: &'a Option<String>,
    settings: &'a serde_json::Value,
    head_id: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    project_id: &'a Option<String>,
    messages: MessagesOut<'a>,
}

impl<'a> ConversationOut<'a> {
    fn new(c: &'a Conversation, messages: &'a [Message]) -> Self {
        Self {
            id: &c.id,
            title: &c.title,
            created_at: c.created_at,
            updated_at: c.updated_at,
            pinned: c.pinned,
            archived: c.archived,
            provider_id: &c.provider_id,
            model: &c.model,
            system_prompt: &c.system_prompt,
            settings: &c.settings,
            head_id: &c.head_id,
            project_id: &c.project_id,
            messages: MessagesOut(messages),
        }
    }
}

/// The messages of a [`ConversationOut`].
struct MessagesOut<'a>(&'a [Message]);

impl Serialize for MessagesOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(MessageOut::new))
    }
}

/// [`ExportedMessage`] borrowing the stored message.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageOut<'a> {
    id: &'a str,
    parent_id: &'a Option<String>,
    role: Role,
    content: &'a [ContentPart],
    status: MessageStatus,
    model: &'a Option<String>,
    usage: &'a Option<TokenUsage>,
    error: &'a Option<String>,
    created_at: i64,
    updated_at: i64,
}

impl<'a> MessageOut<'a> {
    fn new(m: &'a Message) -> Self {
        Self {
            id: &m.id,
            parent_id: &m.parent_id,
            role: m.role,
            content: &m.content,
            status: m.status,
            model: &m.model,
            usage: &m.usage,
            error: &m.error,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// Writes a JSON export one conversation at a time; the assistants the conversations started
/// from and the projects they are in follow them (`assistants`, `projects`), so an import
/// brings them back too.
pub(crate) struct JsonWriter<W: Write> {
    out: W,
    first: bool,
    referenced: std::collections::BTreeSet<String>,
    in_projects: std::collections::BTreeSet<String>,
    extras: Extras,
}

/// What our export carries beside its conversations.
#[derive(Debug, Default)]
pub(crate) struct Extras {
    /// The assistants the conversations started from.
    pub assistants: Vec<Assistant>,
    /// The projects the conversations are in.
    pub projects: Vec<Project>,
}

impl<W: Write> JsonWriter<W> {
    /// Starts the file.
    pub(crate) fn start(mut out: W) -> Result<Self, std::io::Error> {
        let head = Head {
            format: FORMAT,
            schema_version: SCHEMA_VERSION,
        };
        let head = serde_json::to_string(&head).map_err(std::io::Error::other)?;
        // The head object without its closing brace, then the conversations array.
        out.write_all(head.trim_end_matches('}').as_bytes())?;
        out.write_all(b",\"conversations\":[")?;
        Ok(Self {
            out,
            first: true,
            referenced: Default::default(),
            in_projects: Default::default(),
            extras: Extras::default(),
        })
    }

    /// Appends one conversation (on its own line).
    pub(crate) fn conversation(
        &mut self,
        c: &Conversation,
        messages: &[Message],
    ) -> std::io::Result<()> {
        self.out
            .write_all(if self.first { b"\n" } else { b",\n" })?;
        self.first = false;
        if let Some(serde_json::Value::String(id)) = c.settings.get("assistant") {
            self.referenced.insert(id.clone());
        }
        if let Some(project) = &c.project_id {
            self.in_projects.insert(project.clone());
        }
        serde_json::to_writer(&mut self.out, &ConversationOut::new(c, messages))
            .map_err(std::io::Error::other)
    }

    /// The ids of the assistants the conversations written so far started from.
    pub(crate) fn referenced_assistants(&self) -> impl Iterator<Item = &str> {
        self.referenced.iter().map(String::as_str)
    }

    /// The ids of the projects the conversations written so far are in.
    pub(crate) fn referenced_projects(&self) -> impl Iterator<Item = &str> {
        self.in_projects.iter().map(String::as_str)
    }

    /// The assistants and projects written after the conversations.
    pub(crate) fn set_extras(&mut self, extras: Extras) {
        self.extras = extras;
    }

    /// Ends the file and returns the writer.
    pub(crate) fn finish(mut self) -> std::io::Result<W> {
        self.out.write_all(b"\n]")?;
        if !self.extras.assistants.is_empty() {
            self.out.write_all(b",\"assistants\":")?;
            serde_json::to_writer(&mut self.out, &self.extras.assistants)
                .map_err(std::io::Error::other)?;
        }
        if !self.extras.projects.is_empty() {
            self.out.write_all(b",\"projects\":")?;
            serde_json::to_writer(&mut self.out, &self.extras.projects)
                .map_err(std::io::Error::other)?;
        }
        self.out.write_all(b"}\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Hands each conversation of our export in `reader` (already known to be JSON with our
/// `format`) to `each` as it is read, checking the schema version first, and returns the
/// assistants and projects the file carries. References between messages are checked by the
/// importer.
pub(crate) fn stream(
    reader: impl Read,
    mut each: impl FnMut(ImportItem) -> Result<(), ExportError>,
) -> Result<Extras, ExportError> {
    let mut extras = Extras::default();
    let version = super::stream::each_in_export(
        reader,
        check_version,
        &mut extras,
        |_, c: ExportedConversation| each(c.into_item()),
    )?;
    match version {
        Some(_) => Ok(extras),
        None => Err(ExportError::Format(
            "the export has no \"schemaVersion\" field".into(),
        )),
    }
}

/// Refuses schema versions this build cannot read.
fn check_version(version: u64) -> Result<(), ExportError> {
    if version > u64::from(SCHEMA_VERSION) || version == 0 {
        return Err(ExportError::Format(format!(
            "this export has schema version {version}; this Switchboard reads versions 1 to {SCHEMA_VERSION}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{ConversationOut, ExportedConversation};
    use crate::export::tests::fixtures::{branchy, weather};

    #[test]
    fn the_borrowed_writer_form_serializes_exactly_like_the_documented_struct() {
        for item in [weather(), branchy()] {
            let (c, m) = (&item.conversation, &item.messages);
            assert_eq!(
                serde_json::to_string(&ConversationOut::new(c, m)).unwrap(),
                serde_json::to_string(&ExportedConversation::new(c, m)).unwrap()
            );
        }
    }
}
