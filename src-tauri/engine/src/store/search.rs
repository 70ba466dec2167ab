//! Full-text search over message text (FTS5, trigram tokenizer): queries of any language,
//! newest hits first (the index is walked in order and stops at the page's end, so a common
//! word costs no more than a rare one — ranking every match by relevance took seconds at two
//! million messages), each with a snippet around the first match, highlighted as plain segments (never
//! HTML, so untrusted text cannot smuggle markup into the UI).
//!
//! Each whitespace-separated term must occur (case-insensitively). Terms of three or more
//! characters are FTS phrases; a two-character term (a Chinese word, often) becomes the OR of
//! the indexed trigrams that begin with it, found by stepping through the index's vocabulary
//! from one trigram to the next (never through the documents each is in); only a
//! one-character term filters with `LIKE`.

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

/// The most index terms one two-character word may expand to before the query falls back
/// to scanning.
const MAX_EXPANSION: usize = 2000;

/// The indexed trigrams in `[?1, ?2)` (those beginning with a two-character word), at most
/// ?3 of them. A skip-scan over the one-row-per-occurrence vocabulary: each step reads the
/// first occurrence of the next trigram (every trigram has three characters, so none lies
/// between `t` and `t || char(1)`), never the documents a trigram is in, so a word found in
/// a million messages costs what a rare one does.
const TRIGRAMS_BEGINNING: &str = "WITH RECURSIVE grams(term) AS ( \
     SELECT (SELECT term FROM messages_fts_instances WHERE term >= ?1 AND term < ?2 LIMIT 1) \
     UNION ALL \
     SELECT (SELECT term FROM messages_fts_instances \
             WHERE term >= grams.term || char(1) AND term < ?2 LIMIT 1) \
     FROM grams WHERE grams.term IS NOT NULL) \
     SELECT term FROM grams WHERE term IS NOT NULL LIMIT ?3";

/// How each query term is matched.
enum Term {
    /// An FTS5 expression (a phrase, or an OR of the trigrams a short word begins).
    Match(String),
    /// A `LIKE` filter (one character: too many trigrams to list).
    Like(String),
    /// A word no message contains.
    Nothing,
}

impl Store {
    /// Messages whose text contains every term of `query`, newest first.
    pub async fn search_messages(
        &self,
        query: &str,
        page: &PageRequest,
    ) -> Result<Page<SearchHit>, StoreError> {
        let terms: Vec<&str> = query.split_whitespace().collect();
        let empty = Page {
            items: Vec::new(),
            next_cursor: None,
        };
        if terms.is_empty() {
            return Ok(empty);
        }
        let before = match &page.cursor {
            None => i64::MAX,
            Some(c) => cursor_number(c)?,
        };
        let mut matches = Vec::new();
        let mut likes = Vec::new();
        for t in &terms {
            match self.term(t).await? {
                Term::Match(m) => matches.push(m),
                Term::Like(l) => likes.push(l),
                Term::Nothing => return Ok(empty),
            }
        }
        let size = page.size();
        let mut rows = self.hits(before, &matches, &likes, size).await?;
        let more = rows.len() > size as usize;
        rows.truncate(size as usize);
        let next_cursor = more.then(|| rows.last().map(|r| r.n.to_string())).flatten();
        let items = rows.into_iter().map(|r| hit(r, &terms)).collect();
        Ok(Page { items, next_cursor })
    }

    /// How `term` is matched: three or more characters as a phrase; two as the trigrams
    /// that begin with them (every occurrence begins one: bodies end with a space); one by
    /// `LIKE`.
    async fn term(&self, term: &str) -> Result<Term, StoreError> {
        let chars = term.chars().count();
        if chars >= 3 {
            return Ok(Term::Match(fts_phrase(term)));
        }
        if chars == 1 {
            return Ok(Term::Like(like_pattern(term)));
        }
        let lower: String = term.chars().map(fold).collect();
        let grams: Vec<String> = sqlx::query_scalar(TRIGRAMS_BEGINNING)
            .bind(&lower)
            .bind(format!("{lower}\u{10FFFF}"))
            .bind(i64::try_from(MAX_EXPANSION + 1).unwrap_or(i64::MAX))
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        Ok(match grams.len() {
            0 => Term::Nothing,
            n if n > MAX_EXPANSION => Term::Like(like_pattern(term)),
            _ => {
                let phrases: Vec<String> = grams.iter().map(|g| fts_phrase(g)).collect();
                Term::Match(format!("({})", phrases.join(" OR ")))
            }
        })
    }

    /// One page (plus one row) of messages older than FTS row `before` matching everything.
    async fn hits(
        &self,
        before: i64,
        matches: &[String],
        likes: &[String],
        size: u32,
    ) -> Result<Vec<HitRow>, StoreError> {
        let mut sql = String::from(
            "SELECT f.rowid AS n, m.id AS message_id, m.conversation_id, c.title, m.role, \
             m.created_at, f.body FROM messages_fts f JOIN message_search_ids s ON s.n = f.rowid \
             JOIN messages m ON m.id = s.message_id \
             JOIN conversations c ON c.id = m.conversation_id WHERE f.rowid < ?",
        );
        if !matches.is_empty() {
            sql.push_str(" AND messages_fts MATCH ?");
        }
        for _ in likes {
            sql.push_str(" AND f.body LIKE ? ESCAPE '\\'");
        }
        sql.push_str(" ORDER BY f.rowid DESC LIMIT ?");
        let mut q = sqlx::query_as::<_, HitRow>(sqlx::AssertSqlSafe(sql)).bind(before);
        if !matches.is_empty() {
            q = q.bind(matches.join(" AND "));
        }
        for l in likes {
            q = q.bind(l);
        }
        q.bind(i64::from(size) + 1)
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))
    }
}

fn hit(r: HitRow, terms: &[&str]) -> SearchHit {
    SearchHit {
        snippet: snippet(r.body.trim_end(), terms),
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
