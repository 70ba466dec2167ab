//! A page's main content for `web`'s `read`: HTML goes through `dom_smoothie` (Mozilla
//! Readability's algorithm: title, byline and the article without menus, sidebars and ads),
//! then `htmd` to Markdown; text pages are kept as they are; anything else is refused with its
//! type. HTML nested deeper than [`MAX_DEPTH`] is refused before parsing: every html5ever-based
//! parser slows down quadratically with depth, and a page nested thousands deep is hostile.

use dom_smoothie::{Config, Readability, ReadabilityError};

use super::super::fetch::{markdown, window};
use super::super::guarded::Page;
use super::search::one_line;

/// The deepest element nesting read (browsers stop nesting at 512).
pub(crate) const MAX_DEPTH: usize = 1000;
/// The most elements Readability looks at.
const MAX_ELEMENTS: usize = 200_000;

/// What `read` returns of a page.
#[derive(Debug)]
pub(crate) struct Article {
    /// Its title (empty when it has none).
    pub(crate) title: String,
    /// Where it was read.
    pub(crate) url: String,
    /// Its author, when the page says.
    pub(crate) byline: Option<String>,
    /// Its main content, as Markdown or text.
    pub(crate) content: String,
}

impl Article {
    /// The article as the model reads it: a heading, the source, then `max_length` characters
    /// of its content from `start`, with the marker that says where to go on.
    pub(crate) fn windowed(&self, start: usize, max_length: usize) -> String {
        let mut head = String::new();
        if !self.title.is_empty() {
            head.push_str(&format!("# {}\n\n", self.title));
        }
        head.push_str(&format!("Source: {}\n", self.url));
        if let Some(byline) = &self.byline {
            head.push_str(&format!("By: {byline}\n"));
        }
        format!(
            "{head}\n{}",
            window(&self.content, start, max_length, "read")
        )
    }
}

/// The main content of `page`, or why it cannot be read.
pub(crate) fn main_content(page: &Page) -> Result<Article, String> {
    let url = page.url.to_string();
    if !page.is_html() {
        return text_page(page, url);
    }
    let depth = nesting_depth(&page.body);
    if depth > MAX_DEPTH {
        return Err(format!(
            "{url} nests its HTML {depth} levels deep (more than {MAX_DEPTH}); it is not read"
        ));
    }
    let config = Config {
        max_elements_to_parse: MAX_ELEMENTS,
        ..Config::default()
    };
    let parsed = Readability::new(page.body.as_str(), Some(url.as_str()), Some(config))
        .and_then(|mut r| r.parse());
    match parsed {
        Ok(article) => Ok(Article {
            title: one_line(&article.title, usize::MAX),
            url,
            byline: article
                .byline
                .map(|b| one_line(&b, usize::MAX))
                .filter(|b| !b.is_empty()),
            content: markdown(&article.content).unwrap_or_else(|| article.text_content.to_string()),
        }),
        // No article found (a page of links, an empty page): the whole page, simplified.
        Err(ReadabilityError::GrabFailed) => Ok(Article {
            title: String::new(),
            url,
            byline: None,
            content: markdown(&page.body).unwrap_or_default(),
        }),
        Err(ReadabilityError::TooManyElements(found, max)) => Err(format!(
            "{url} has {found} elements, more than the {max} that are read"
        )),
        Err(e) => Err(format!("{url} could not be read: {e}")),
    }
}

/// A text page (plain, Markdown, JSON, XML, CSV) as it is; anything else refused by its type.
fn text_page(page: &Page, url: String) -> Result<Article, String> {
    let kind = page
        .content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim();
    let textual = kind.is_empty()
        || kind.starts_with("text/")
        || kind.ends_with("json")
        || kind.ends_with("xml")
        || kind.ends_with("+json")
        || kind == "application/javascript";
    if !textual || page.body.contains('\0') {
        return Err(format!(
            "{url} is {}, not a web page or text; it is not read",
            if kind.is_empty() { "binary" } else { kind }
        ));
    }
    Ok(Article {
        title: String::new(),
        url,
        byline: None,
        content: page.body.clone(),
    })
}

/// How deep `html`'s elements nest, counted from its tags in one pass: end tags that may be
/// left out (`p`, `li`, `td`, …), void elements and self-closed tags are not counted, nor is
/// what is inside comments, scripts and styles.
pub(crate) fn nesting_depth(html: &str) -> usize {
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
    fn nesting_depth_counts_containers_not_optional_end_tags_or_comments() {
        assert_eq!(nesting_depth("<div><div><span>x</span></div></div>"), 3);
        assert_eq!(
            nesting_depth("<ul><li>a<li>b<li>c</ul><p>x<p>y<br><img src=a>"),
            1
        );
        assert_eq!(nesting_depth("<!-- <div><div> --><div/><div></div>"), 1);
        assert_eq!(
            nesting_depth("<script>for(i=0;i<9;i++){'<div><div>'}</SCRIPT><b>x</b>"),
            1
        );
        assert_eq!(nesting_depth(&"<div>".repeat(1500)), 1500);
        assert_eq!(nesting_depth("<div <"), 1);
        assert_eq!(nesting_depth("<"), 0);
    }
}
