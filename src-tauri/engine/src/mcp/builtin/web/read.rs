//! A page's main content for `web`'s `read`: HTML goes through `dom_smoothie` (Mozilla
//! Readability's algorithm: title, byline and the article without menus, sidebars and ads),
//! then `htmd` to Markdown; text pages are kept as they are; anything else is refused with its
//! type. HTML nested deeper than [`MAX_DEPTH`] is refused before parsing: every html5ever-based
//! parser slows down quadratically with depth, and a page nested thousands deep is hostile.

use dom_smoothie::{Config, Readability, ReadabilityError};

use super::super::fetch::{markdown, window};
use super::super::guarded::Page;
use super::search::one_line;
pub(crate) use crate::knowledge::html::nesting_depth;

/// The deepest element nesting read (browsers stop nesting at 512).
pub(crate) const MAX_DEPTH: usize = crate::knowledge::html::MAX_DEPTH;
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
