//! Titles: a new conversation is named at once from the first line of its first message,
//! then, when its first turn ends well, by a short call to the same model (setting
//! `chat.auto_title`, on unless set to false). A failed call keeps the first-line title.

use crate::EngineError;
use crate::provider::{ChatMessage, ChatRequest, ProviderEvent};
use crate::store::{Conversation, Role};

use super::Agent;
use super::setup::Setup;
use super::{Events, title_from, title_source};
use crate::vocab::chat::ChatEvent;
use crate::vocab::content::ContentPart;

/// The setting that turns model-written titles off (a JSON `false`).
pub const AUTO_TITLE: &str = "chat.auto_title";

/// The instruction sent with the first exchange.
pub const INSTRUCTION: &str = "Write a short title (at most six words, in the language of the \
conversation) for the exchange below. Reply with the title only, no quotes.";

/// Names the untitled conversation `id` after the first line of its first message (`user`)
/// and tells the window at once on `events`, before the turn and the model's title.
pub(super) async fn name_after_first_line(
    agent: &Agent,
    id: &str,
    user: &[ContentPart],
    events: Option<&Events>,
) -> Result<(), EngineError> {
    let title = title_from(title_source(user));
    agent.store().rename_conversation(id, &title).await?;
    if let Some(events) = events {
        let _ = events.send(ChatEvent::Titled { title });
    }
    Ok(())
}

/// Asks the model for a title of `conv`'s first exchange and stores it; reports it.
pub(super) async fn retitle(agent: &Agent, conv: &Conversation, events: &Events) {
    match ask(agent, conv).await {
        Ok(Some(title)) => {
            if agent
                .store()
                .rename_conversation(&conv.id, &title)
                .await
                .is_ok()
            {
                let _ = events.send(ChatEvent::Titled { title });
            }
        }
        Ok(None) => {}
        Err(e) => tracing::info!(error = %e, "no model title; keeping the first line"),
    }
}

async fn ask(agent: &Agent, conv: &Conversation) -> Result<Option<String>, EngineError> {
    if agent.store().setting(AUTO_TITLE).await? == Some(serde_json::Value::Bool(false)) {
        return Ok(None);
    }
    let branch = agent.conversation_branch(&conv.id).await?;
    let mut exchange = String::new();
    for m in branch
        .iter()
        .filter(|m| matches!(m.role, Role::User | Role::Assistant))
    {
        let text: String = m
            .content
            .iter()
            .filter_map(|p| match p {
                crate::vocab::content::ContentPart::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if !text.is_empty() {
            let who = if m.role == Role::User {
                "User"
            } else {
                "Assistant"
            };
            exchange.push_str(&format!("{who}: {}\n", clip(&text, 1500)));
        }
    }
    let setup = Setup::without_tools(agent, conv).await?;
    let mut req = ChatRequest {
        model: setup.model.clone(),
        messages: vec![ChatMessage::user(format!("{INSTRUCTION}\n\n{exchange}"))],
        ..Default::default()
    };
    req.params.max_tokens = Some(24);
    let events = setup.provider.complete(req).await?;
    let text: String = events
        .into_iter()
        .filter_map(|e| match e {
            ProviderEvent::TextDelta { text } => Some(text),
            _ => None,
        })
        .collect();
    Ok(clean(&text))
}

/// The title in a model's reply: its first line that does not announce another (ending in `:`),
/// without a label, list marker, quotes or a trailing period; `None` when that line does not
/// read as a title ([`reads_as_title`]), and the first-line title stays.
pub fn clean(reply: &str) -> Option<String> {
    let line = (reply.lines().map(str::trim)).find(|l| !l.is_empty() && !l.ends_with(':'))?;
    let line = line.trim_start_matches("Title:").trim();
    let line = line.trim_start_matches(['-', '•']).trim();
    let line = line
        .trim_matches(|c: char| "\"'“”「」《》*#".contains(c))
        .trim();
    let line = line.trim_end_matches(['.', '。']).trim();
    reads_as_title(line).then(|| title_from(line))
}

/// Whether `line` reads as a title, not as the start of an answer, code or a cut-off line
/// (small models write those when asked for a title): some letters; no code or markup
/// (backticks, braces, brackets, angle brackets, `#`, `=`, `__`); not ending in `(` or `,`;
/// at most ten words and sixty characters.
fn reads_as_title(line: &str) -> bool {
    const MARKUP: [&str; 9] = ["`", "{", "}", "[", "]", "<", ">", "#", "="];
    !line.is_empty()
        && line.chars().any(char::is_alphabetic)
        && !MARKUP.iter().any(|m| line.contains(m))
        && !line.contains("__")
        && !line.ends_with(['(', ',', '，'])
        && line.split_whitespace().count() <= 10
        && line.chars().count() <= 60
}

fn clip(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}
