//! `switchboard conversations list|show|search|new|rename|delete`.

use std::io::Write;

use clap::Subcommand;
use switchboard_engine::Engine;
use switchboard_engine::agent::history;
use switchboard_engine::store::{
    Conversation, ListScope, Message, NewConversation, PageRequest, SearchHit,
};
use switchboard_engine::vocab::content::ContentPart;

use super::CliError;

/// What to do with conversations.
#[derive(Debug, Subcommand)]
pub enum ConversationsCmd {
    /// List conversations, pinned first, newest first.
    List {
        /// How many to show.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Only those in this project (its name or id).
        #[arg(long, value_name = "NAME")]
        project: Option<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Create a conversation and print its id.
    New {
        /// Its title.
        #[arg(long)]
        title: Option<String>,
    },
    /// Rename a conversation.
    Rename {
        /// The conversation's id.
        id: String,
        /// The new title.
        title: String,
    },
    /// Print the messages of the branch a conversation shows.
    Show {
        /// The conversation's id.
        id: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Search every message (words in any language; each must occur).
    Search {
        /// The words to find.
        query: String,
        /// How many hits to show.
        #[arg(long, default_value_t = 20)]
        limit: u32,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Delete a conversation and all its messages.
    Delete {
        /// The conversation's id.
        id: String,
    },
}

/// Runs one conversations subcommand.
pub(super) async fn run(engine: &Engine, cmd: &ConversationsCmd) -> Result<(), CliError> {
    let store = engine.store();
    let mut out = std::io::stdout().lock();
    match cmd {
        ConversationsCmd::List {
            limit,
            project,
            json,
        } => {
            let scope = match project {
                Some(p) => ListScope::Project(store.find_project(p).await?.id),
                None => ListScope::All,
            };
            let page = store
                .list_conversations(&PageRequest::first(*limit), &scope)
                .await?;
            if *json {
                serde_json::to_writer_pretty(&mut out, &page.items)
                    .map_err(std::io::Error::from)?;
                writeln!(out)?;
            } else {
                print_table(&mut out, &page.items)?;
            }
        }
        ConversationsCmd::New { title } => {
            let new = NewConversation {
                title: title.clone(),
                ..Default::default()
            };
            writeln!(out, "{}", store.create_conversation(new).await?.id)?;
        }
        ConversationsCmd::Rename { id, title } => {
            let c = store.rename_conversation(id, title).await?;
            writeln!(out, "renamed {} to {:?}", c.id, c.title)?;
        }
        ConversationsCmd::Show { id, json } => {
            let messages = engine.agent().conversation_branch(id).await?;
            if *json {
                serde_json::to_writer_pretty(&mut out, &messages).map_err(std::io::Error::from)?;
                writeln!(out)?;
            } else {
                print_messages(&mut out, &messages)?;
            }
        }
        ConversationsCmd::Search { query, limit, json } => {
            let page = store
                .search_messages(query, &PageRequest::first(*limit))
                .await?;
            if *json {
                serde_json::to_writer_pretty(&mut out, &page.items)
                    .map_err(std::io::Error::from)?;
                writeln!(out)?;
            } else {
                print_hits(&mut out, &page.items)?;
            }
        }
        ConversationsCmd::Delete { id } => {
            store.delete_conversation(id).await?;
            writeln!(out, "deleted {id}")?;
        }
    }
    Ok(())
}

/// One line per conversation: id, a pin mark, and the title.
fn print_table(out: &mut impl Write, items: &[Conversation]) -> std::io::Result<()> {
    if items.is_empty() {
        return writeln!(out, "no conversations");
    }
    for c in items {
        let pin = if c.pinned { "*" } else { " " };
        let title = if c.title.is_empty() {
            "(untitled)"
        } else {
            &c.title
        };
        writeln!(out, "{}  {pin} {title}", c.id)?;
    }
    Ok(())
}

/// A branch as text: each message with its role, tool calls and results.
fn print_messages(out: &mut impl Write, messages: &[Message]) -> std::io::Result<()> {
    for m in messages {
        let role = format!("{:?}", m.role).to_lowercase();
        writeln!(out, "[{role}] ({:?})", m.status)?;
        for part in &m.content {
            match part {
                ContentPart::Text { text } => writeln!(out, "{text}")?,
                ContentPart::Reasoning { text } => writeln!(out, "(reasoning) {text}")?,
                ContentPart::Image { mime_type, .. } => writeln!(out, "[image {mime_type}]")?,
                ContentPart::ToolCall {
                    server,
                    tool,
                    arguments,
                    ..
                } => {
                    writeln!(out, "→ {server}.{tool} {arguments}")?;
                }
                ContentPart::ToolResult {
                    content, is_error, ..
                } => {
                    let mark = if *is_error { "✗" } else { "←" };
                    writeln!(out, "{mark} {}", history::result_text(content))?;
                }
                ContentPart::Resource(a) => writeln!(out, "[attached {} ({})]", a.name, a.uri)?,
                ContentPart::ImageRef(r) => writeln!(
                    out,
                    "[image {} {}×{}]",
                    r.name.as_deref().unwrap_or(&r.mime_type),
                    r.width,
                    r.height
                )?,
                ContentPart::File(f) => writeln!(out, "[file {} ({} tokens)]", f.name, f.tokens)?,
            }
        }
        if let Some(e) = &m.error {
            writeln!(out, "error: {e}")?;
        }
    }
    Ok(())
}

/// Search hits: conversation, title, and the snippet with matches in [brackets].
fn print_hits(out: &mut impl Write, hits: &[SearchHit]) -> std::io::Result<()> {
    if hits.is_empty() {
        return writeln!(out, "no matches");
    }
    for h in hits {
        let snippet: String = h
            .snippet
            .iter()
            .map(|s| {
                if s.hit {
                    format!("[{}]", s.text)
                } else {
                    s.text.clone()
                }
            })
            .collect();
        writeln!(
            out,
            "{}  {}: {}",
            h.conversation_id,
            h.conversation_title,
            snippet.replace('\n', " ")
        )?;
    }
    Ok(())
}
