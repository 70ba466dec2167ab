//! `switchboard projects list|create|edit|delete|move`: named groups of conversations with
//! their own instructions, default assistant and MCP servers (`chat --project NAME` starts a
//! conversation in one).

use std::io::Write;

use clap::{Args, Subcommand};
use switchboard_engine::Engine;
use switchboard_engine::store::{ProjectConversations, ProjectDraft, ProjectSummary};

use super::CliError;

/// `switchboard projects …`.
#[derive(Debug, Subcommand)]
pub enum ProjectsCmd {
    /// List the projects with how many conversations each holds.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Create a project.
    Create {
        /// Its name (unique regardless of case).
        name: String,
        #[command(flatten)]
        fields: Fields,
    },
    /// Change a project's name, icon, instructions, assistant or servers.
    Edit {
        /// The project's name or id.
        project: String,
        /// A new name.
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        fields: Fields,
    },
    /// Delete a project; its conversations stay, outside any project, unless
    /// `--with-conversations` deletes them too.
    Delete {
        /// The project's name or id.
        project: String,
        /// Delete its conversations (and their messages) with it.
        #[arg(long)]
        with_conversations: bool,
    },
    /// Move conversations into a project, or out of any with `--out`.
    Move {
        /// The conversations' ids.
        #[arg(required = true)]
        conversations: Vec<String>,
        /// The project (name or id) to move them to.
        #[arg(long, conflicts_with = "out", required_unless_present = "out")]
        to: Option<String>,
        /// Take them out of their project.
        #[arg(long)]
        out: bool,
    },
}

/// The fields `create` and `edit` set.
#[derive(Debug, Args)]
pub struct Fields {
    /// An emoji shown beside the name.
    #[arg(long)]
    icon: Option<String>,
    /// Instructions given to the model before each conversation's own system prompt.
    #[arg(long)]
    instructions: Option<String>,
    /// The assistant (name or id) new conversations start from ("" for the default one).
    #[arg(long, value_name = "NAME")]
    assistant: Option<String>,
    /// The MCP servers new conversations use, comma-separated ("" for the assistant's choice).
    #[arg(long, value_name = "A,B")]
    servers: Option<String>,
}

/// Runs one `projects` subcommand.
pub(super) async fn run(engine: &Engine, cmd: &ProjectsCmd) -> Result<(), CliError> {
    let store = engine.store();
    let mut out = std::io::stdout().lock();
    match cmd {
        ProjectsCmd::List { json } => {
            let listed = store.list_projects().await?;
            if *json {
                serde_json::to_writer_pretty(&mut out, &listed).map_err(std::io::Error::from)?;
                writeln!(out)?;
            } else {
                print_table(&mut out, &listed)?;
            }
        }
        ProjectsCmd::Create { name, fields } => {
            let mut draft = ProjectDraft {
                name: name.clone(),
                ..Default::default()
            };
            apply(engine, fields, &mut draft).await?;
            let made = store.insert_project(&draft).await?;
            writeln!(out, "created project {} ({})", made.name, made.id)?;
        }
        ProjectsCmd::Edit {
            project,
            name,
            fields,
        } => {
            let here = store.find_project(project).await?;
            let mut draft = ProjectDraft::from(&here);
            if let Some(name) = name {
                draft.name.clone_from(name);
            }
            apply(engine, fields, &mut draft).await?;
            let edited = store.update_project(&here.id, &draft).await?;
            writeln!(out, "saved project {}", edited.name)?;
        }
        ProjectsCmd::Delete {
            project,
            with_conversations,
        } => {
            let here = store.find_project(project).await?;
            let what = if *with_conversations {
                ProjectConversations::Delete
            } else {
                ProjectConversations::Keep
            };
            let deleted = store.delete_project(&here.id, what).await?;
            match what {
                ProjectConversations::Delete => writeln!(
                    out,
                    "deleted project {} and its {deleted} conversation(s)",
                    here.name
                )?,
                ProjectConversations::Keep => writeln!(
                    out,
                    "deleted project {}; its conversations are kept outside any project",
                    here.name
                )?,
            }
        }
        ProjectsCmd::Move {
            conversations,
            to,
            out: _,
        } => {
            let project = match to {
                Some(p) => Some(store.find_project(p).await?),
                None => None,
            };
            let moved = store
                .move_conversations(conversations, project.as_ref().map(|p| p.id.as_str()))
                .await?;
            match project {
                Some(p) => writeln!(out, "moved {moved} conversation(s) to {}", p.name)?,
                None => writeln!(out, "took {moved} conversation(s) out of their project")?,
            }
        }
    }
    Ok(())
}

/// Sets the fields given on the command line; the assistant is looked up so a typo is said.
async fn apply(engine: &Engine, fields: &Fields, draft: &mut ProjectDraft) -> Result<(), CliError> {
    if let Some(icon) = &fields.icon {
        draft.icon.clone_from(icon);
    }
    if let Some(instructions) = &fields.instructions {
        draft.instructions.clone_from(instructions);
    }
    match fields.assistant.as_deref().map(str::trim) {
        None => {}
        Some("") => draft.assistant_id = None,
        Some(name) => draft.assistant_id = Some(engine.store().find_assistant(name).await?.id),
    }
    match fields.servers.as_deref().map(str::trim) {
        None => {}
        Some("") => draft.servers = None,
        Some(list) => {
            draft.servers = Some(
                list.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    Ok(())
}

fn print_table(out: &mut impl Write, listed: &[ProjectSummary]) -> std::io::Result<()> {
    if listed.is_empty() {
        return writeln!(
            out,
            "no projects (`switchboard projects create NAME` makes one)"
        );
    }
    for s in listed {
        let p = &s.project;
        let icon = if p.icon.is_empty() { " " } else { &p.icon };
        writeln!(
            out,
            "{icon} {}  {} conversation(s)  {}",
            p.name, s.conversations, p.id
        )?;
    }
    Ok(())
}
