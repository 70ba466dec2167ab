//! HTML made safe to convert: how deep a document's elements nest, counted in one pass before
//! any parser sees it (html5ever-based converters recurse per level, and a file nested
//! thousands deep overflows a thread's stack — an abort, not an error), and HTML as Markdown
//! (`htmd`, without scripts, styles, the head and navigation) for documents nested no deeper
//! than [`MAX_DEPTH`]. Used by knowledge bases (HTML files, EPUB chapters) and the web
//! server's `read`.

/// The deepest nesting converted; deeper documents are refused.
pub const MAX_DEPTH: usize = 1000;

/// `html` as Markdown, or why it is refused (nested deeper than [`MAX_DEPTH`]); the text itself
/// when the converter fails.
pub fn to_markdown(html: &str) -> Result<String, String> {
    let depth = nesting_depth(html);
    if depth > MAX_DEPTH {
        return Err(format!(
            "its HTML nests {depth} levels deep (more than {MAX_DEPTH}), so it is not read"
        ));
    }
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "head", "template", "nav",
        ])
        .build();
    Ok(converter.convert(html).unwrap_or_else(|_| html.to_owned()))
}

/// How deep `html`'s elements nest, counted from its tags in one pass: end tags that may be
/// left out (`p`, `li`, `td`, …), void elements and self-closed tags are not counted, nor is
/// what is inside comments, scripts and styles.
pub fn nesting_depth(html: &str) -> usize {
    const UNCOUNTED: [&str; 36] = [
        "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot",
        "colgroup", "caption", "rb", "rt", "rp", "html", "head", "body", "area", "base", "br",
        "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
        "!doctype", "?xml",
    ];
    let bytes = html.as_bytes();
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while let Some(at) = memchr(b'<', &bytes[i..]) {
        i += at + 1;
        if bytes[i..].starts_with(b"!--") {
            i += find(&bytes[i..], b"-->").map_or(bytes.len() - i, |e| e + 3);
            continue;
        }
        let closing = bytes.get(i) == Some(&b'/');
        let start = i + usize::from(closing);
        let end = (start..bytes.len())
            .find(|&j| {
                !(bytes[j].is_ascii_alphanumeric() || matches!(bytes[j], b'!' | b'?' | b'-'))
            })
            .unwrap_or(bytes.len());
        let name = html[start..end].to_ascii_lowercase();
        let tag_end = memchr(b'>', &bytes[end..]).map_or(bytes.len(), |e| end + e);
        i = tag_end.min(bytes.len());
        if name.is_empty() || UNCOUNTED.contains(&name.as_str()) {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
        } else if bytes.get(tag_end.wrapping_sub(1)) != Some(&b'/') {
            depth += 1;
            deepest = deepest.max(depth);
            if name == "script" || name == "style" {
                i = raw_text_end(bytes, i, name.as_bytes());
            }
        }
    }
    deepest
}

/// Where the raw text of a `name` element (script, style) that starts at `from` ends: at its
/// end tag, matched without regard to case, or at the end.
fn raw_text_end(bytes: &[u8], from: usize, name: &[u8]) -> usize {
    let mut i = from;
    while let Some(at) = find(&bytes[i..], b"</") {
        let tag = i + at + 2;
        if bytes.len() >= tag + name.len()
            && bytes[tag..tag + name.len()].eq_ignore_ascii_case(name)
        {
            return i + at;
        }
        i = tag;
    }
    bytes.len()
}

fn memchr(byte: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&b| b == byte)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_nested_deeper_than_the_limit_is_refused_before_parsing() {
        let deep = "<div>".repeat(MAX_DEPTH + 1);
        assert!(to_markdown(&deep).unwrap_err().contains("1001 levels deep"));
        assert_eq!(
            to_markdown("<h1>Tea</h1><p>Green.</p>").unwrap(),
            "# Tea\n\nGreen."
        );
    }
}
