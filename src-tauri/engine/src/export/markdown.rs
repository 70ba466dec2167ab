//! Markdown export of one conversation: a header (title, model, dates), then the branch the
//! conversation shows, each message under a heading with its role and time. Reasoning, tool
//! calls and tool results are collapsible `<details>` blocks (calls name their server and
//! tool, arguments are fenced JSON); images are saved through [`Assets`] and linked.

use std::fmt::Write as _;

use base64::Engine as _;
use serde::Deserialize as _;

use super::assets::{Assets, extension};
use super::highlight::escape;
use super::tree::{View, view};
use super::{RenderOptions, Time, format_time};
use crate::store::{Conversation, Message, MessageStatus, Role};
use crate::vocab::content::{Attachment, ContentPart};
use crate::vocab::mcp::{ResourceBody, ResultPart, ToolResult, result_text};

/// Renders `c` as Markdown into `out`.
pub(crate) fn render(
    out: &mut dyn std::io::Write,
    c: &Conversation,
    messages: &[Message],
    opts: RenderOptions,
    assets: &mut dyn Assets,
) -> std::io::Result<()> {
    let v = view(c, messages);
    let mut s = String::new();
    header(&mut s, c, &v);
    for m in &v.branch {
        message(&mut s, m, &v, opts, assets)?;
    }
    out.write_all(s.as_bytes())
}

/// The title as one line ("Untitled" when empty).
pub(crate) fn title_line(title: &str) -> String {
    let t = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.is_empty() { "Untitled".into() } else { t }
}

pub(crate) fn role_label(role: Role) -> &'static str {
    match role {
        Role::System => "System",
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::Tool => "Tool",
    }
}

pub(crate) fn status_label(status: MessageStatus) -> Option<&'static str> {
    match status {
        MessageStatus::Complete => None,
        MessageStatus::Streaming => Some("still streaming"),
        MessageStatus::Error => Some("ended by an error"),
        MessageStatus::Cancelled => Some("stopped"),
        MessageStatus::Interrupted => Some("interrupted"),
    }
}

fn header(s: &mut String, c: &Conversation, v: &View<'_>) {
    let _ = writeln!(s, "# {}\n", title_line(&c.title));
    if let Some(model) = &c.model {
        let _ = writeln!(s, "- Model: {}", one_line(model));
    }
    let _ = writeln!(s, "- Created: {}", format_time(c.created_at));
    let _ = writeln!(s, "- Updated: {}", format_time(c.updated_at));
    let _ = writeln!(s, "- Messages: {}", v.branch.len());
    if v.hidden > 0 {
        let _ = writeln!(
            s,
            "- Other branches: {} messages not shown (the JSON export has them)",
            v.hidden
        );
    }
    if let Some(p) = c.system_prompt.as_deref().filter(|p| !p.trim().is_empty()) {
        let _ = writeln!(s);
        details(s, "System prompt", p, "");
    }
    s.push_str("\n---\n\n");
}

fn message(
    s: &mut String,
    m: &Message,
    v: &View<'_>,
    opts: RenderOptions,
    assets: &mut dyn Assets,
) -> std::io::Result<()> {
    if m.role == Role::Tool && !opts.tool_results {
        return Ok(());
    }
    let _ = write!(s, "## {} · {}", role_label(m.role), Time(m.created_at));
    if let Some(model) = m.model.as_deref().filter(|_| m.role == Role::Assistant) {
        let _ = write!(s, " · {}", OneLine(model));
    }
    if let Some((i, n)) = v.versions.get(m.id.as_str()) {
        let _ = write!(s, " · version {i} of {n}");
    }
    s.push_str("\n\n");
    if let Some(st) = status_label(m.status) {
        let _ = writeln!(s, "*({st})*\n");
    }
    for part in &m.content {
        part_md(s, part, v, opts, assets)?;
    }
    if let Some(e) = &m.error {
        let _ = writeln!(s, "> **Error:** {}\n", one_line(e));
    }
    Ok(())
}

fn part_md(
    s: &mut String,
    part: &ContentPart,
    v: &View<'_>,
    opts: RenderOptions,
    assets: &mut dyn Assets,
) -> std::io::Result<()> {
    match part {
        ContentPart::Text { text } => {
            let _ = writeln!(s, "{}\n", text.trim_end());
        }
        ContentPart::Reasoning { text } if opts.reasoning => details(s, "Reasoning", text, ""),
        ContentPart::Reasoning { .. } => {}
        ContentPart::Image {
            mime_type, data, ..
        } => image(s, mime_type, data, assets)?,
        ContentPart::ToolCall {
            server,
            tool,
            arguments,
            ..
        } => {
            let args = serde_json::to_string_pretty(arguments).unwrap_or_default();
            let summary = format!("Tool call: {}", tool_name(server, tool));
            details(s, &summary, &args, "json");
        }
        ContentPart::ToolResult {
            call_id,
            content,
            is_error,
        } if opts.tool_results => {
            let (server, tool) = v.calls.get(call_id.as_str()).copied().unwrap_or(("", "?"));
            let label = super::result_label(content, *is_error);
            let summary = format!("{label}: {}", tool_name(server, tool));
            details(s, &summary, &result_text(content), "text");
            result_images(s, content, assets)?;
        }
        ContentPart::ToolResult { .. } => {}
        ContentPart::Resource(a) => attachment(s, a, assets)?,
        ContentPart::ImageRef(r) => {
            let name = r.name.as_deref().unwrap_or("image");
            let _ = writeln!(s, "*[image: {}]*\n", escape(&one_line(name)));
        }
        ContentPart::File(f) => {
            let summary = format!("Attached file: {}", escape(&one_line(&f.name)));
            let lang = if f.language.is_empty() {
                "text"
            } else {
                &f.language
            };
            details(s, &summary, &f.text, lang);
        }
    }
    Ok(())
}

/// `server · tool`, HTML-escaped for a `<summary>`.
pub(crate) fn tool_name(server: &str, tool: &str) -> String {
    if server.is_empty() {
        escape(tool)
    } else {
        format!("{} · {}", escape(server), escape(tool))
    }
}

/// An attached resource: text in a collapsed block, an image inline, other bytes named.
fn attachment(s: &mut String, a: &Attachment, assets: &mut dyn Assets) -> std::io::Result<()> {
    let summary = format!(
        "Attached: {} ({})",
        escape(&one_line(&a.name)),
        escape(&one_line(&a.uri))
    );
    let mime = a.mime_type.as_deref().unwrap_or("");
    match &a.body {
        ResourceBody::Text(text) => details(s, &summary, text, "text"),
        ResourceBody::Blob(data) if mime.starts_with("image/") => image(s, mime, data, assets)?,
        ResourceBody::Blob(_) => {
            let _ = writeln!(s, "*[{summary}: binary contents]*\n");
        }
    }
    Ok(())
}

/// A collapsible block whose body is fenced (with `lang`) or, without one, plain Markdown.
fn details(s: &mut String, summary: &str, body: &str, lang: &str) {
    let _ = writeln!(s, "<details>\n<summary>{summary}</summary>\n");
    if lang.is_empty() {
        let _ = writeln!(s, "{}\n", body.trim_end());
    } else {
        let f = fence(body);
        let _ = writeln!(s, "{f}{lang}\n{}\n{f}\n", body.trim_end_matches('\n'));
    }
    let _ = writeln!(s, "</details>\n");
}

/// A backtick fence longer than any run of backticks in `body`.
fn fence(body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

fn one_line(text: &str) -> String {
    OneLine(text).to_string()
}

/// Text on one line: its words joined by single spaces.
struct OneLine<'a>(&'a str);

impl std::fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, word) in self.0.split_whitespace().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(word)?;
        }
        Ok(())
    }
}

fn image(s: &mut String, mime: &str, data: &str, assets: &mut dyn Assets) -> std::io::Result<()> {
    let decoded = base64::engine::general_purpose::STANDARD.decode(data.trim());
    match (extension(mime), decoded) {
        (Some(_), Ok(bytes)) => {
            let link = assets.save(mime, &bytes)?;
            let _ = writeln!(s, "![image](<{link}>)\n");
        }
        _ => {
            let _ = writeln!(
                s,
                "*[an image ({}) that could not be saved]*\n",
                one_line(mime)
            );
        }
    }
    Ok(())
}

fn result_images(
    s: &mut String,
    content: &serde_json::Value,
    assets: &mut dyn Assets,
) -> std::io::Result<()> {
    let Ok(result) = ToolResult::deserialize(content) else {
        return Ok(());
    };
    for part in &result.content {
        if let ResultPart::Image { mime, data } = part {
            image(s, mime, data, assets)?;
        }
    }
    Ok(())
}
