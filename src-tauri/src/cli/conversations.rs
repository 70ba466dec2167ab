//! `switchboard conversations list|new|rename|delete`.

use std::io::Write;

use clap::Subcommand;
use switchboard_engine::Engine;
use switchboard_engine::store::{Conversation, NewConversation, PageRequest};

use super::CliError;

/// What to do with conversations.
#[derive(Debug, Subcommand)]
pub enum ConversationsCmd {
    /// List conversations, pinned first, newest first.
    List {
        /// How many to show.
        #[arg(long, default_value_t = 50)]
        limit: u32,
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
    /// Delete a conversation and all its messages.
    Delete {
        /// The conversation's id.
        id: String,
    },
}

/// Runs one conversations subcommand.
pub async fn run(engine: &Engine, cmd: &ConversationsCmd) -> Result<(), CliError> {
    let store = engine.store();
    let mut out = std::io::stdout().lock();
    match cmd {
        ConversationsCmd::List { limit, json } => {
            let page = store
                .list_conversations(&PageRequest::first(*limit))
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
