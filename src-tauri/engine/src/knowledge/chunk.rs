//! A document cut into chunks that follow its structure (`text-splitter`: the largest semantic
//! units — sections, blocks, paragraphs, lines, sentences, words — that fit), each at most
//! `max` as the caller's sizer counts (the embedder's tokenizer in the index, so a chunk is
//! never cut by the embedder). A chunk keeps where it starts (byte and line) and, in Markdown,
//! the headings it sits under ("Guide › Install"), which go into a citation.

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use text_splitter::{ChunkConfig, ChunkSizer, MarkdownSplitter, TextSplitter};

use super::document::{Document, Kind};

/// One chunk of a document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Its place among the document's chunks, from 0.
    pub index: usize,
    /// Its text (trimmed).
    pub text: String,
    /// Where it starts in the document's text, in bytes.
    pub start: usize,
    /// The line it starts on, from 1.
    pub line: usize,
    /// The headings it sits under, outermost first, joined by " › " (Markdown only).
    pub heading: Option<String>,
}

/// Tokens estimated without a tokenizer, on the safe side: a CJK (or other wide) character is
/// a token, other text about three characters a token, plus a start and an end token.
pub fn estimated_tokens(text: &str) -> usize {
    let (mut wide, mut narrow) = (0usize, 0usize);
    for c in text.chars() {
        if (c as u32) >= 0x2E80 {
            wide += 1;
        } else {
            narrow += 1;
        }
    }
    2 + wide + narrow.div_ceil(3)
}

/// `doc` cut into chunks of at most `max` as `sizer` counts (a unit that alone is bigger, such
/// as one long word, is cut by characters).
pub fn chunks<S: ChunkSizer>(doc: &Document, sizer: S, max: usize) -> Vec<Chunk> {
    let config = ChunkConfig::new(max.max(1)).with_sizer(sizer);
    let pieces: Vec<(usize, &str)> = match doc.kind {
        Kind::Markdown | Kind::Html => MarkdownSplitter::new(config)
            .chunk_indices(&doc.text)
            .collect(),
        _ => TextSplitter::new(config).chunk_indices(&doc.text).collect(),
    };
    let headings = match doc.kind {
        Kind::Markdown | Kind::Html => headings(&doc.text),
        _ => Vec::new(),
    };
    let (mut line, mut counted) = (1, 0);
    pieces
        .into_iter()
        .filter(|(_, text)| !text.trim().is_empty())
        .enumerate()
        .map(|(index, (start, text))| {
            line += doc.text.as_bytes()[counted..start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            counted = start;
            Chunk {
                index,
                text: text.trim().to_owned(),
                start,
                line,
                heading: heading_at(&headings, start),
            }
        })
        .collect()
}

/// The Markdown's headings: where each starts, its level and its text.
fn headings(text: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, usize, String)> = None;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                open = Some((range.start, level_number(level), String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, title)) = open.as_mut() {
                    title.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((at, level, title)) = open.take() {
                    out.push((at, level, title.trim().to_owned()));
                }
            }
            _ => {}
        }
    }
    out
}

fn level_number(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The heading path at byte `at`: the last heading of each level before it (or at it), each
/// dropping the deeper ones.
fn heading_at(headings: &[(usize, usize, String)], at: usize) -> Option<String> {
    let mut path: Vec<(usize, &str)> = Vec::new();
    for (start, level, title) in headings.iter().take_while(|(start, ..)| *start <= at) {
        let _ = start;
        path.retain(|(l, _)| l < level);
        if !title.is_empty() {
            path.push((*level, title));
        }
    }
    (!path.is_empty()).then(|| path.iter().map(|(_, t)| *t).collect::<Vec<_>>().join(" › "))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// Counts words (a stand-in for a tokenizer).
    struct Words;

    impl ChunkSizer for Words {
        fn size(&self, chunk: &str) -> usize {
            chunk.split_whitespace().count()
        }
    }

    fn doc(kind: Kind, text: &str) -> Document {
        Document {
            pages: Vec::new(),
            path: PathBuf::from("x"),
            kind,
            text: text.to_owned(),
            hash: String::new(),
        }
    }

    const GUIDE: &str = "# Guide\n\nIntro words here.\n\n## Install\n\nRun the installer and wait for it to finish before you go on.\n\n```sh\ncargo install switchboard\n```\n\n## Use\n\n### Chat\n\nType a message and press Enter.\n";

    #[test]
    fn markdown_is_cut_at_sections_with_their_headings_and_lines() {
        let got = chunks(&doc(Kind::Markdown, GUIDE), Words, 20);
        let summary: Vec<(usize, Option<&str>, &str)> = got
            .iter()
            .map(|c| {
                (
                    c.line,
                    c.heading.as_deref(),
                    c.text.lines().next().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (1, Some("Guide"), "# Guide"),
                (5, Some("Guide › Install"), "## Install"),
                (13, Some("Guide › Use"), "## Use"),
            ]
        );
        assert!(
            got[1]
                .text
                .contains("```sh\ncargo install switchboard\n```"),
            "{got:?}"
        );
        assert!(got.iter().all(|c| Words.size(&c.text) <= 20), "{got:?}");
        assert_eq!(got.iter().map(|c| c.index).collect::<Vec<_>>(), [0, 1, 2]);
        for c in &got {
            assert!(GUIDE[c.start..].starts_with(&c.text), "{c:?}");
        }
    }

    #[test]
    fn a_deeper_section_keeps_its_parents_and_a_sibling_replaces_its_own_level() {
        let got = chunks(&doc(Kind::Markdown, GUIDE), Words, 6);
        let chat = got
            .iter()
            .find(|c| c.text.contains("Type a message"))
            .unwrap();
        assert_eq!(chat.heading.as_deref(), Some("Guide › Use › Chat"));
        assert!(got.iter().all(|c| Words.size(&c.text) <= 6), "{got:?}");
    }

    #[test]
    fn text_is_cut_at_paragraphs_and_chinese_at_sentences() {
        let text =
            "第一段。这是知识库的说明。\n\n第二段：索引会在文件变化时更新。删除的文件会离开索引。";
        let by_chars = chunks(&doc(Kind::Text, text), text_splitter::Characters, 20);
        assert!(
            by_chars.iter().all(|c| c.text.chars().count() <= 20),
            "{by_chars:?}"
        );
        assert_eq!(by_chars[0].text, "第一段。这是知识库的说明。");
        assert!(by_chars.iter().all(|c| c.heading.is_none()));
        assert_eq!(by_chars.last().unwrap().line, 3);
    }

    #[test]
    fn code_is_cut_between_definitions_before_lines() {
        let code = "fn a() {\n    one();\n}\n\nfn b() {\n    two();\n}\n";
        let got = chunks(&doc(Kind::Code, code), Words, 5);
        assert_eq!(
            got.iter()
                .map(|c| (c.line, c.text.as_str()))
                .collect::<Vec<_>>(),
            [
                (1, "fn a() {\n    one();\n}"),
                (5, "fn b() {\n    two();\n}")
            ]
        );
    }
}
