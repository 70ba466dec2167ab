//! Lenient JSON as models write it: a small lexer that knows strings in straight, single and
//! smart quotes, bare words and comments; finding where an object that starts a text ends; and
//! repairing the usual slips (trailing commas, single or smart quotes, Python `True`/`False`/
//! `None`, unquoted keys, comments, raw newlines inside strings) into strict JSON.

use serde_json::Value;

/// One lexical token of lenient JSON.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    /// A quoted string: the raw text between the quotes; `closed` is false at the end of input.
    Str { body: &'a str, closed: bool },
    /// A run of word characters: a number, a literal or an unquoted key or value.
    Word(&'a str),
    /// Whitespace or a comment.
    Skip(&'a str),
    /// Any other character (`{`, `}`, `[`, `]`, `:`, `,` and stray ones).
    Punct(char),
}

/// The lexer: yields each token with the byte offset just past it.
struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

/// The characters that may close a string opened by `open`, or `None` when `open` opens none.
fn closers(open: char) -> Option<&'static [char]> {
    match open {
        '"' => Some(&['"']),
        '\'' => Some(&['\'']),
        '“' | '”' | '„' => Some(&['”', '“']),
        '‘' | '’' => Some(&['’', '‘']),
        _ => None,
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '$' | '-' | '+' | '.')
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        Self { src, pos: 0 }
    }

    /// The length of the run at the start of `rest` whose characters satisfy `keep`.
    fn run(rest: &str, keep: impl Fn(char) -> bool) -> usize {
        rest.find(|c: char| !keep(c)).unwrap_or(rest.len())
    }

    /// A string starting at `rest` (after its opening quote of length `open_len`).
    fn string(rest: &'a str, open_len: usize, close: &[char]) -> (Tok<'a>, usize) {
        let mut escaped = false;
        for (i, c) in rest[open_len..].char_indices() {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if close.contains(&c) {
                let body = &rest[open_len..open_len + i];
                return (Tok::Str { body, closed: true }, open_len + i + c.len_utf8());
            }
        }
        let body = &rest[open_len..];
        (
            Tok::Str {
                body,
                closed: false,
            },
            rest.len(),
        )
    }

    /// A comment starting at `rest`, if one does.
    fn comment(rest: &str) -> Option<usize> {
        if rest.starts_with("//") {
            return Some(rest.find('\n').unwrap_or(rest.len()));
        }
        let body = rest.strip_prefix("/*")?;
        Some(body.find("*/").map_or(rest.len(), |i| i + 4))
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = (Tok<'a>, usize);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = &self.src[self.pos..];
        let c = rest.chars().next()?;
        let (tok, len) = if let Some(close) = closers(c) {
            Self::string(rest, c.len_utf8(), close)
        } else if c.is_whitespace() {
            let n = Self::run(rest, char::is_whitespace);
            (Tok::Skip(&rest[..n]), n)
        } else if let Some(n) = Self::comment(rest) {
            (Tok::Skip(""), n)
        } else if is_word_char(c) {
            let n = Self::run(rest, is_word_char);
            (Tok::Word(&rest[..n]), n)
        } else {
            (Tok::Punct(c), c.len_utf8())
        };
        self.pos += len;
        Some((tok, self.pos))
    }
}

/// Where the object or array that starts `text` ends (the byte offset just past its closing
/// bracket), or `None` when it never closes. Brackets inside strings and comments don't count.
pub(super) fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (tok, end) in Lexer::new(text) {
        match tok {
            Tok::Punct('{' | '[') => depth += 1,
            Tok::Punct('}' | ']') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(end);
                }
            }
            Tok::Str { closed: false, .. } => return None,
            _ if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// Parses `text` as JSON, repairing it first when it is not strict JSON.
pub(super) fn parse_lenient(text: &str) -> Option<Value> {
    serde_json::from_str(text)
        .ok()
        .or_else(|| serde_json::from_str(&repair(text)).ok())
}

/// Rewrites lenient JSON into strict JSON (the result may still be invalid when the input is
/// beyond repair).
pub(super) fn repair(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (tok, _) in Lexer::new(text) {
        match tok {
            Tok::Str { body, .. } => out.push_str(&quote(&unescape(body))),
            Tok::Word(w) => out.push_str(&word(w)),
            Tok::Skip(s) => out.push_str(s),
            Tok::Punct(c @ ('}' | ']')) => {
                drop_trailing_comma(&mut out);
                out.push(c);
            }
            Tok::Punct(c) => out.push(c),
        }
    }
    out
}

/// A bare word as JSON: numbers and literals as they are, anything else as a string.
fn word(w: &str) -> String {
    match w {
        "true" | "True" | "TRUE" => "true".into(),
        "false" | "False" | "FALSE" => "false".into(),
        "null" | "None" | "Null" | "NULL" | "undefined" => "null".into(),
        _ if serde_json::from_str::<serde_json::Number>(w).is_ok() => w.into(),
        _ => quote(w),
    }
}

fn quote(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

fn drop_trailing_comma(out: &mut String) {
    let kept = out.trim_end().len();
    if out[..kept].ends_with(',') {
        out.replace_range(kept - 1..kept, "");
    }
}

/// The text of a string body: JSON escapes (and `\'`) decoded, unknown escapes kept as written.
fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => out.push(unicode_escape(&mut chars)),
            Some(c @ ('"' | '\'' | '\\' | '/')) => out.push(c),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// The character of a `\uXXXX` escape (after the `u`), joining surrogate pairs; U+FFFD when
/// it is malformed.
fn unicode_escape(chars: &mut std::str::Chars<'_>) -> char {
    let Some(high) = hex4(chars) else {
        return char::REPLACEMENT_CHARACTER;
    };
    if !(0xD800..0xDC00).contains(&high) {
        return char::from_u32(high).unwrap_or(char::REPLACEMENT_CHARACTER);
    }
    let mut ahead = chars.clone();
    let low = (ahead.next() == Some('\\') && ahead.next() == Some('u'))
        .then(|| hex4(&mut ahead))
        .flatten()
        .filter(|low| (0xDC00..0xE000).contains(low));
    match low {
        Some(low) => {
            *chars = ahead;
            char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                .unwrap_or(char::REPLACEMENT_CHARACTER)
        }
        None => char::REPLACEMENT_CHARACTER,
    }
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u32> {
    let digits: String = chars.by_ref().take(4).collect();
    (digits.len() == 4 && digits.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| u32::from_str_radix(&digits, 16).ok())
        .flatten()
}
