//! Code highlighting without scripts: code is split into tokens wrapped in `<span>`s whose
//! classes (`tok-str`, `tok-key`, `tok-num`, `tok-kw`, `tok-com`) the page's CSS colours.
//! Every piece of text is HTML-escaped.

/// Words coloured as keywords (common to many languages), plus JSON's literals.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "case", "class", "const", "continue", "def", "default", "do",
    "elif", "else", "enum", "export", "extends", "false", "fn", "for", "from", "func", "function",
    "if", "impl", "import", "in", "let", "match", "mut", "new", "nil", "None", "null", "pub",
    "return", "self", "static", "struct", "switch", "this", "true", "True", "False", "try", "type",
    "use", "var", "while", "with", "yield",
];

/// Escapes text for HTML content and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

/// Appends `text` escaped.
pub(crate) fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

fn span(out: &mut String, class: &str, text: &str) {
    out.push_str("<span class=\"");
    out.push_str(class);
    out.push_str("\">");
    escape_into(out, text);
    out.push_str("</span>");
}

/// Highlights `code`; `hash_comments` makes `#` start a comment (shell, Python, …).
pub(crate) fn highlight(code: &str, hash_comments: bool) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len() * 2);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let end = if c == '"' || c == '\'' || c == '`' {
            let end = string_end(&chars, i);
            let class = if c == '"' && followed_by_colon(&chars, end) {
                "tok-key"
            } else {
                "tok-str"
            };
            span(&mut out, class, &collect(&chars, i, end));
            end
        } else if (c == '/' && chars.get(i + 1) == Some(&'/')) || (c == '#' && hash_comments) {
            let end = line_end(&chars, i);
            span(&mut out, "tok-com", &collect(&chars, i, end));
            end
        } else if c.is_ascii_digit() {
            let end = run(&chars, i, |c| {
                c.is_ascii_alphanumeric() || c == '.' || c == '_'
            });
            span(&mut out, "tok-num", &collect(&chars, i, end));
            end
        } else if c.is_alphabetic() || c == '_' {
            let end = run(&chars, i, |c| c.is_alphanumeric() || c == '_');
            let word = collect(&chars, i, end);
            if KEYWORDS.contains(&word.as_str()) {
                span(&mut out, "tok-kw", &word);
            } else {
                escape_into(&mut out, &word);
            }
            end
        } else {
            escape_into(&mut out, c.encode_utf8(&mut [0; 4]));
            i + 1
        };
        i = end;
    }
    out
}

fn collect(chars: &[char], from: usize, to: usize) -> String {
    chars[from..to].iter().collect()
}

fn run(chars: &[char], from: usize, keep: impl Fn(char) -> bool) -> usize {
    let mut i = from;
    while i < chars.len() && keep(chars[i]) {
        i += 1;
    }
    i
}

fn line_end(chars: &[char], from: usize) -> usize {
    run(chars, from, |c| c != '\n')
}

/// The index after the closing quote (or the end of the line for an unclosed string).
fn string_end(chars: &[char], from: usize) -> usize {
    let quote = chars[from];
    let mut i = from + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '\n' if quote != '`' => return i,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

fn followed_by_colon(chars: &[char], from: usize) -> bool {
    chars[from.min(chars.len())..]
        .iter()
        .find(|c| !c.is_whitespace())
        .is_some_and(|c| *c == ':')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keys_strings_numbers_and_literals_get_classes() {
        let html = highlight("{\"a\": \"<b>\", \"n\": 12, \"t\": true}", false);
        assert_eq!(
            html,
            "{<span class=\"tok-key\">&quot;a&quot;</span>: <span class=\"tok-str\">&quot;&lt;b&gt;&quot;</span>, \
             <span class=\"tok-key\">&quot;n&quot;</span>: <span class=\"tok-num\">12</span>, \
             <span class=\"tok-key\">&quot;t&quot;</span>: <span class=\"tok-kw\">true</span>}"
        );
    }

    #[test]
    fn comments_run_to_the_end_of_the_line_and_markup_is_escaped() {
        let html = highlight("x = 1 # <script>\ny", true);
        assert!(html.contains("<span class=\"tok-com\"># &lt;script&gt;</span>\ny"));
        assert!(!html.contains("<script>"));
    }

    #[test]
    fn an_unclosed_string_or_a_trailing_backslash_does_not_panic() {
        assert!(highlight("\"abc\\", false).contains("tok-str"));
        assert!(highlight("'", false).contains("tok-str"));
    }
}
