//! The keyword half of a search: what the FTS5 index holds of a chunk and the match expression
//! a question becomes. The index tokenizes words (`unicode61`, Porter-stemmed) and ranks by
//! BM25; Chinese, Japanese and Korean have no spaces, so their characters are indexed one per
//! token and a run of them in a question becomes a phrase — the characters in that order — so
//! "知识库" finds 知识库 and not 知 … 识 … 库 apart.

/// The most terms a question brings into the match expression (the rest are left out).
const MAX_TERMS: usize = 64;

/// Whether `c` is written without spaces between words (CJK ideographs, kana, Hangul).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F) // Extensions B–F and compatibility supplement
}

/// `text` as the index holds it: every CJK character set apart by spaces.
pub fn indexed_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    for c in text.chars() {
        if is_cjk(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// The FTS5 expression for `question`: its words and CJK runs OR-ed (BM25 ranks documents
/// with more and rarer of them first), each quoted so that no character is read as syntax;
/// `None` when it has no word at all.
pub fn match_expression(question: &str) -> Option<String> {
    let mut terms: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut run: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, terms: &mut Vec<String>| {
        if !word.is_empty() {
            terms.push(format!("\"{}\"", word.replace('"', "")));
            word.clear();
        }
    };
    let flush_run = |run: &mut Vec<char>, terms: &mut Vec<String>| {
        if !run.is_empty() {
            let spaced: Vec<String> = run.iter().map(char::to_string).collect();
            terms.push(format!("\"{}\"", spaced.join(" ")));
            run.clear();
        }
    };
    for c in question.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut terms);
            run.push(c);
        } else if c.is_alphanumeric() {
            flush_run(&mut run, &mut terms);
            word.push(c);
        } else {
            flush_word(&mut word, &mut terms);
            flush_run(&mut run, &mut terms);
        }
    }
    flush_word(&mut word, &mut terms);
    flush_run(&mut run, &mut terms);
    let mut seen = std::collections::BTreeSet::new();
    terms.retain(|t| seen.insert(t.to_lowercase()));
    terms.truncate(MAX_TERMS);
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_characters_are_indexed_one_per_token() {
        assert_eq!(indexed_text("用知识库z"), " 用  知  识  库 z");
    }

    #[test]
    fn a_question_becomes_quoted_words_and_cjk_phrases() {
        assert_eq!(
            match_expression("What is 知识库? (\"NEAR\" AND x*)").as_deref(),
            Some(r#""What" OR "is" OR "知 识 库" OR "NEAR" OR "AND" OR "x""#)
        );
    }

    #[test]
    fn a_question_without_words_has_no_expression() {
        assert_eq!(match_expression(" ?!… "), None);
    }

    #[test]
    fn repeated_words_are_asked_once() {
        assert_eq!(match_expression("cat Cat cat").as_deref(), Some(r#""cat""#));
    }
}
