//! Self-contained HTML export of one conversation: inline CSS with light and dark schemes
//! (`prefers-color-scheme`), code highlighted by class, images as `data:` URIs, and no
//! scripts or external requests (a Content-Security-Policy says so too). Text is rendered
//! from Markdown and sanitized with `ammonia`; everything else is escaped.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::LazyLock;

use base64::Engine as _;
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde::Deserialize as _;

use super::assets::extension;
use super::highlight::{escape, escape_into, highlight};
use super::markdown::{role_label, status_label, title_line, tool_name};
use super::tree::{View, view};
use super::{RenderOptions, Time, format_time};
use crate::store::{Conversation, Message, Role};
use crate::vocab::content::{Attachment, ContentPart};
use crate::vocab::mcp::{ResourceBody, ResultPart, ToolResult, result_text};

/// The page's stylesheet.
const CSS: &str = include_str!("style.css");

/// The policy that forbids scripts and every request but inline images.
const CSP: &str = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/// The sanitizer for rendered Markdown: ammonia's defaults without images (a URL there
/// would be a request), with highlighting and language classes on `span` and `code`.
static SANITIZER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut b = ammonia::Builder::default();
    b.rm_tags(["img"])
        .add_tag_attributes("span", ["class"])
        .add_tag_attributes("code", ["class"])
        .attribute_filter(|_el, attr, value| {
            if attr != "class" {
                return Some(Cow::Borrowed(value));
            }
            value
                .split_whitespace()
                .all(is_safe_class)
                .then_some(Cow::Borrowed(value))
        });
    b
});

fn is_safe_class(class: &str) -> bool {
    let ok_chars = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '#'))
    };
    class.strip_prefix("tok-").is_some_and(ok_chars)
        || class.strip_prefix("language-").is_some_and(ok_chars)
}

/// The start of a page, through `<body><main>`.
pub(crate) fn page_start(s: &mut String, title: &str) {
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(
        s,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
    );
    s.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    let _ = writeln!(
        s,
        "<title>{}</title>\n<style>\n{CSS}</style>",
        escape(title)
    );
    s.push_str("</head>\n<body>\n<main>\n");
}

/// The end of a page.
pub(crate) fn page_end(s: &mut String) {
    s.push_str("</main>\n</body>\n</html>\n");
}

/// Renders `c` as a whole HTML page into `out`.
pub(crate) fn render(
    out: &mut dyn std::io::Write,
    c: &Conversation,
    messages: &[Message],
    opts: RenderOptions,
) -> std::io::Result<()> {
    let v = view(c, messages);
    let title = title_line(&c.title);
    let mut s = String::new();
    page_start(&mut s, &title);
    let _ = writeln!(
        s,
        "<header>\n<h1>{}</h1>\n<ul class=\"facts\">",
        escape(&title)
    );
    if let Some(model) = &c.model {
        let _ = writeln!(s, "<li>Model: {}</li>", escape(model));
    }
    let _ = writeln!(s, "<li>Created: {}</li>", format_time(c.created_at));
    let _ = writeln!(s, "<li>Updated: {}</li>", format_time(c.updated_at));
    let _ = writeln!(s, "<li>Messages: {}</li>", v.branch.len());
    if v.hidden > 0 {
        let _ = writeln!(
            s,
            "<li>Other branches: {} messages not shown</li>",
            v.hidden
        );
    }
    s.push_str("</ul>\n");
    if let Some(p) = c.system_prompt.as_deref().filter(|p| !p.trim().is_empty()) {
        details_html(&mut s, "System prompt", &markdown_html(p));
    }
    s.push_str("</header>\n");
    for m in &v.branch {
        message(&mut s, m, &v, opts);
    }
    page_end(&mut s);
    out.write_all(s.as_bytes())
}

fn message(s: &mut String, m: &Message, v: &View<'_>, opts: RenderOptions) {
    if m.role == Role::Tool && !opts.tool_results {
        return;
    }
    let role = role_label(m.role);
    let _ = write!(
        s,
        "<article class=\"msg {}\">\n<div class=\"meta\"><span class=\"role\">{role}</span><time>{}</time>",
        role.to_lowercase(),
        Time(m.created_at)
    );
    if let Some(model) = m.model.as_deref().filter(|_| m.role == Role::Assistant) {
        let _ = write!(s, " · {}", escape(model));
    }
    if let Some((i, n)) = v.versions.get(m.id.as_str()) {
        let _ = write!(s, " · version {i} of {n}");
    }
    if let Some(st) = status_label(m.status) {
        let _ = write!(s, " · <span class=\"status\">{st}</span>");
    }
    s.push_str("</div>\n");
    for part in &m.content {
        part_html(s, part, v, opts);
    }
    if let Some(e) = &m.error {
        let _ = writeln!(s, "<p class=\"error\">Error: {}</p>", escape(e));
    }
    s.push_str("</article>\n");
}

fn part_html(s: &mut String, part: &ContentPart, v: &View<'_>, opts: RenderOptions) {
    match part {
        ContentPart::Text { text } => {
            let _ = writeln!(s, "<div class=\"text\">{}</div>", markdown_html(text));
        }
        ContentPart::Reasoning { text } if opts.reasoning => {
            details_html(s, "Reasoning", &markdown_html(text));
        }
        ContentPart::Reasoning { .. } => {}
        ContentPart::Image {
            mime_type, data, ..
        } => image(s, mime_type, data),
        ContentPart::ToolCall {
            server,
            tool,
            arguments,
            ..
        } => {
            let args = serde_json::to_string_pretty(arguments).unwrap_or_default();
            let body = format!(
                "<pre><code class=\"language-json\">{}</code></pre>",
                highlight(&args, false)
            );
            let summary = format!(
                "Tool call: <span class=\"name\">{}</span>",
                tool_name(server, tool)
            );
            details_html(s, &summary, &body);
        }
        ContentPart::ToolResult {
            call_id,
            content,
            is_error,
        } if opts.tool_results => {
            let (server, tool) = v.calls.get(call_id.as_str()).copied().unwrap_or(("", "?"));
            let label = super::result_label(content, *is_error);
            let mut body = format!("<pre><code>{}</code></pre>", escape(&result_text(content)));
            result_images(&mut body, content);
            let summary = format!(
                "{label}: <span class=\"name\">{}</span>",
                tool_name(server, tool)
            );
            details_html(s, &summary, &body);
        }
        ContentPart::ToolResult { .. } => {}
        ContentPart::Resource(a) => attachment_html(s, a),
        ContentPart::ImageRef(r) => {
            let name = r.name.as_deref().unwrap_or("image");
            let _ = writeln!(s, "<p><em>[image: {}]</em></p>", escape(name));
        }
        ContentPart::File(f) => {
            let summary = format!("Attached file: {}", escape(&f.name));
            let body = format!("<pre><code>{}</code></pre>", escape(&f.text));
            details_html(s, &summary, &body);
        }
    }
}

/// An attached resource: text in a collapsed block, an image inline, other bytes named.
fn attachment_html(s: &mut String, a: &Attachment) {
    let summary = format!("Attached: {} ({})", escape(&a.name), escape(&a.uri));
    let mime = a.mime_type.as_deref().unwrap_or("");
    match &a.body {
        ResourceBody::Text(text) => {
            let body = format!("<pre><code>{}</code></pre>", escape(text));
            details_html(s, &summary, &body);
        }
        ResourceBody::Blob(data) if mime.starts_with("image/") => image(s, mime, data),
        ResourceBody::Blob(_) => {
            let _ = writeln!(s, "<p><em>[{summary}: binary contents]</em></p>");
        }
    }
}

/// A `<details>` block; `summary` and `body` must already be safe HTML.
fn details_html(s: &mut String, summary: &str, body: &str) {
    let _ = writeln!(
        s,
        "<details>\n<summary>{summary}</summary>\n{body}\n</details>"
    );
}

/// An inline image, only for raster types whose data is valid base64.
fn image(s: &mut String, mime: &str, data: &str) {
    let data = data.trim();
    let valid = base64::engine::general_purpose::STANDARD
        .decode(data)
        .is_ok();
    match extension(mime) {
        Some(_) if valid => {
            let _ = writeln!(
                s,
                "<p><img alt=\"image\" src=\"data:{};base64,{data}\"></p>",
                mime.to_ascii_lowercase()
            );
        }
        _ => {
            let _ = writeln!(
                s,
                "<p><em>[an image ({}) that cannot be shown]</em></p>",
                escape(mime)
            );
        }
    }
}

fn result_images(s: &mut String, content: &serde_json::Value) {
    let Ok(result) = ToolResult::deserialize(content) else {
        return;
    };
    for part in &result.content {
        if let ResultPart::Image { mime, data } = part {
            image(s, mime, data);
        }
    }
}

/// Markdown → sanitized HTML, with fenced code highlighted by class.
pub(crate) fn markdown_html(text: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    let mut events = Vec::new();
    let mut code: Option<(String, String)> = None;
    for event in Parser::new_ext(text, options) {
        match (event, &mut code) {
            (Event::Start(Tag::CodeBlock(kind)), None) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(l) => {
                        l.split_whitespace().next().unwrap_or("").to_owned()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((lang, String::new()));
            }
            (Event::Text(t), Some((_, body))) => body.push_str(&t),
            (Event::End(TagEnd::CodeBlock), Some((lang, body))) => {
                events.push(Event::Html(code_block(lang, body).into()));
                code = None;
            }
            (e, _) => events.push(e),
        }
    }
    let mut raw = String::new();
    pulldown_cmark::html::push_html(&mut raw, events.into_iter());
    SANITIZER.clean(&raw).to_string()
}

fn code_block(lang: &str, body: &str) -> String {
    let hash = matches!(
        lang,
        "python" | "py" | "sh" | "bash" | "shell" | "ruby" | "yaml" | "toml"
    );
    let mut s = String::from("<pre><code");
    if !lang.is_empty() {
        s.push_str(" class=\"language-");
        escape_into(&mut s, lang);
        s.push('"');
    }
    s.push('>');
    s.push_str(&highlight(body, hash));
    s.push_str("</code></pre>\n");
    s
}
