//! Full-text search over message text (FTS5, trigram tokenizer): queries of any language,
//! newest hits first (the index is walked in order and stops at the page's end, so a common
//! word costs no more than a rare one — ranking every match by relevance took seconds at two
//! million messages), each with a snippet around the first match, highlighted as plain segments (never
//! HTML, so untrusted text cannot smuggle markup into the UI).
//!
//! Each whitespace-separated term must occur (case-insensitively). Terms of three or more
//! characters use the FTS index; shorter ones (a two-character Chinese word) filter with
//! `LIKE`, which the trigram index cannot serve, so a query made only of short terms scans.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::page::cursor_number;
use super::{Page, PageRequest, Role, Store, StoreError};

/// One message that matches a query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The conversation it belongs to.
    pub conversation_id: String,
    /// That conversation's title.
    pub conversation_title: String,
    /// The message.
    pub message_id: String,
    /// Who wrote it.
    pub role: Role,
    /// When, Unix milliseconds.
    pub created_at: i64,
    /// Text around the first match, split into highlighted and plain runs.
    pub snippet: Vec<Segment>,
}

/// A run of snippet text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Segment {
    /// The text.
    pub text: String,
    /// Whether it matches a query term.
    pub hit: bool,
}

/// Characters of context kept before the first match and after it.
const BEFORE: usize = 30;
const AFTER: usize = 90;

#[derive(sqlx::FromRow)]
struct HitRow {
    n: i64,
    message_id: String,
    conversation_id: String,
    title: String,
    role: Role,
    created_at: i64,
    body: String,
}

/// A term quoted as an FTS5 string (double quotes doubled).
fn fts_phrase(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

/// A `LIKE` pattern matching `term` anywhere, with `\` escaping the wildcards.
fn like_pattern(term: &str) -> String {
    let escaped = term
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

impl Store {
    /// Messages whose text contains every term of `query`, newest first.
    pub async fn search_messages(
        &self,
        query: &str,
        page: &PageRequest,
    ) -> Result<Page<SearchHit>, StoreError> {
        let terms: Vec<&str> = query.split_whitespace().collect();
        if terms.is_empty() {
            return Ok(Page {
                items: Vec::new(),
                next_cursor: None,
            });
        }
        let before = match &page.cursor {
            None => i64::MAX,
            Some(c) => cursor_number(c)?,
        };
        let size = page.size();
        let (long, short): (Vec<&str>, Vec<&str>) =
            terms.iter().partition(|t| t.chars().count() >= 3);
        let mut sql = String::from(
            "SELECT f.rowid AS n, m.id AS message_id, m.conversation_id, c.title, m.role, \
             m.created_at, f.body FROM messages_fts f JOIN message_search_ids s ON s.n = f.rowid \
             JOIN messages m ON m.id = s.message_id \
             JOIN conversations c ON c.id = m.conversation_id WHERE f.rowid < ?",
        );
        if !long.is_empty() {
            sql.push_str(" AND messages_fts MATCH ?");
        }
        for _ in &short {
            sql.push_str(" AND f.body LIKE ? ESCAPE '\\'");
        }
        sql.push_str(" ORDER BY f.rowid DESC LIMIT ?");
        let mut q = sqlx::query_as::<_, HitRow>(sqlx::AssertSqlSafe(sql)).bind(before);
        if !long.is_empty() {
            let phrases: Vec<String> = long.iter().map(|t| fts_phrase(t)).collect();
            q = q.bind(phrases.join(" "));
        }
        for t in &short {
            q = q.bind(like_pattern(t));
        }
        let mut rows = q
            .bind(i64::from(size) + 1)
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        let more = rows.len() > size as usize;
        rows.truncate(size as usize);
        let next_cursor = more.then(|| rows.last().map(|r| r.n.to_string())).flatten();
        let items = rows.into_iter().map(|r| hit(r, &terms)).collect();
        Ok(Page { items, next_cursor })
    }
}

fn hit(r: HitRow, terms: &[&str]) -> SearchHit {
    SearchHit {
        snippet: snippet(&r.body, terms),
        conversation_id: r.conversation_id,
        conversation_title: r.title,
        message_id: r.message_id,
        role: r.role,
        created_at: r.created_at,
    }
}

/// Case-folds one character for matching (keeps a one-to-one character mapping).
fn fold(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// The spans (character ranges) of every occurrence of every term in `chars`.
fn matches(chars: &[char], terms: &[&str]) -> Vec<(usize, usize)> {
    let folded: Vec<char> = chars.iter().map(|c| fold(*c)).collect();
    let mut spans = Vec::new();
    for term in terms {
        let t: Vec<char> = term.chars().map(fold).collect();
        if t.is_empty() || t.len() > folded.len() {
            continue;
        }
        for start in 0..=folded.len() - t.len() {
            if folded[start..start + t.len()] == t[..] {
                spans.push((start, start + t.len()));
            }
        }
    }
    spans.sort_unstable();
    spans
}

/// The text around the first match, with every match in it marked.
pub(crate) fn snippet(body: &str, terms: &[&str]) -> Vec<Segment> {
    let chars: Vec<char> = body.chars().collect();
    let spans = matches(&chars, terms);
    let first = spans.first().map_or(0, |s| s.0);
    let from = first.saturating_sub(BEFORE);
    let to = (first + AFTER).min(chars.len());
    let mut out = Vec::new();
    let mut at = from;
    let mut push = |text: String, hit: bool| {
        if !text.is_empty() {
            out.push(Segment { text, hit });
        }
    };
    if from > 0 {
        push("…".to_owned(), false);
    }
    for (s, e) in spans {
        if s < at || s >= to {
            continue;
        }
        let e = e.min(to);
        push(chars[at..s].iter().collect(), false);
        push(chars[s..e].iter().collect(), true);
        at = e;
    }
    push(chars[at..to].iter().collect(), false);
    if to < chars.len() {
        push("…".to_owned(), false);
    }
    out
}
