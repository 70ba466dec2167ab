//! Documents that are zip packages of XML, read as Markdown: a Word document (DOCX: the text of
//! `word/document.xml`, a paragraph per line, its Heading styles as Markdown headings) and an
//! EPUB book (its chapters in reading order — container, then the package's spine — each XHTML
//! chapter turned into Markdown). Bounded: at most [`MAX_ENTRIES`] entries, each read up to
//! [`MAX_PART`] decompressed bytes, so a zip bomb is cut, not inflated.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use quick_xml::Reader;
use quick_xml::events::Event;

/// The most entries a package may have.
pub const MAX_ENTRIES: usize = 10_000;
/// The most bytes one entry is read to, decompressed.
pub const MAX_PART: u64 = 32 * 1024 * 1024;
/// The most text a package gives.
const MAX_TEXT: usize = 8 * 1024 * 1024;

type Archive<'a> = zip::ZipArchive<Cursor<&'a [u8]>>;

fn open(bytes: &[u8]) -> Result<Archive<'_>, String> {
    let archive =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| format!("not a zip package: {e}"))?;
    if archive.len() > MAX_ENTRIES {
        return Err(format!("it has more than {MAX_ENTRIES} parts"));
    }
    Ok(archive)
}

/// Entry `name` as text (cut at [`MAX_PART`] bytes).
fn part(archive: &mut Archive<'_>, name: &str) -> Result<String, String> {
    let entry = archive
        .by_name(name)
        .map_err(|_| format!("it has no {name}"))?;
    let mut raw = Vec::new();
    entry
        .take(MAX_PART)
        .read_to_end(&mut raw)
        .map_err(|e| format!("{name} cannot be read: {e}"))?;
    Ok(String::from_utf8_lossy(&raw).into_owned())
}

/// A local name without its namespace prefix.
fn local(name: &str) -> &str {
    name.rsplit_once(':').map_or(name, |(_, local)| local)
}

fn attr(e: &quick_xml::events::BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| local(a.key.as_ref()) == key)
        .map(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_or_else(|_| a.value.to_string(), |v| v.into_owned())
        })
}

/// A DOCX file's text as Markdown.
pub fn docx(bytes: &[u8]) -> Result<String, String> {
    let mut archive = open(bytes)?;
    let xml = part(&mut archive, "word/document.xml")?;
    let mut reader = Reader::from_str(&xml);
    let (mut out, mut paragraph, mut heading) = (String::new(), String::new(), 0usize);
    let mut in_text = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) if local(e.name().as_ref()) == "t" => in_text = true,
            Ok(Event::End(e)) if local(e.name().as_ref()) == "t" => in_text = false,
            Ok(Event::Empty(e)) | Ok(Event::Start(e)) => match local(e.name().as_ref()) {
                "tab" => paragraph.push('\t'),
                "br" | "cr" => paragraph.push('\n'),
                "pStyle" => heading = heading_level(attr(&e, "val").as_deref()),
                _ => {}
            },
            Ok(Event::Text(t)) if in_text => {
                paragraph.push_str(&t.xml10_content());
            }
            Ok(Event::GeneralRef(r)) if in_text => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    paragraph.push(c);
                } else {
                    let name: &str = r.as_ref();
                    paragraph.push_str(quick_xml::escape::resolve_xml_entity(name).unwrap_or(""));
                }
            }
            Ok(Event::End(e)) if local(e.name().as_ref()) == "p" => {
                let text = paragraph.trim();
                if !text.is_empty() {
                    if heading > 0 {
                        out.push_str(&"#".repeat(heading));
                        out.push(' ');
                    }
                    out.push_str(text);
                    out.push_str("\n\n");
                }
                paragraph.clear();
                heading = 0;
                if out.len() > MAX_TEXT {
                    break;
                }
            }
            Ok(Event::Eof) => break,
            Err(e) => return Err(format!("word/document.xml is not well-formed: {e}")),
            _ => {}
        }
    }
    Ok(out.trim_end().to_owned())
}

/// "Heading2" → 2 (Word's built-in heading styles; "Title" is 1).
fn heading_level(style: Option<&str>) -> usize {
    match style {
        Some("Title") => 1,
        Some(s) => s
            .strip_prefix("Heading")
            .and_then(|n| n.parse::<usize>().ok())
            .map_or(0, |n| n.clamp(1, 6)),
        None => 0,
    }
}

/// The most bytes all of a book's chapters may decompress to.
const MAX_BOOK: u64 = 128 * 1024 * 1024;

/// An EPUB book's chapters, in reading order (each once), as Markdown (`html` turns a chapter's
/// XHTML into Markdown, or refuses it; a refused chapter refuses the book).
pub fn epub(bytes: &[u8], html: impl Fn(&str) -> Result<String, String>) -> Result<String, String> {
    let mut archive = open(bytes)?;
    let container = part(&mut archive, "META-INF/container.xml")?;
    let opf_path = first_attr(&container, "rootfile", "full-path")
        .ok_or("META-INF/container.xml names no package")?;
    let opf = part(&mut archive, &opf_path)?;
    let base = opf_path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let (manifest, spine) = manifest_and_spine(&opf)?;
    let mut out = String::new();
    let (mut seen, mut read) = (std::collections::HashSet::new(), 0u64);
    for id in spine {
        let Some(href) = manifest.get(&id).filter(|_| seen.insert(id.clone())) else {
            continue;
        };
        let path = if base.is_empty() {
            href.clone()
        } else {
            format!("{base}/{href}")
        };
        let Ok(chapter) = part(&mut archive, &path) else {
            continue;
        };
        read += chapter.len() as u64;
        if read > MAX_BOOK {
            return Err(format!(
                "its chapters decompress to more than {} MiB",
                MAX_BOOK / (1024 * 1024)
            ));
        }
        let text = html(&chapter).map_err(|e| format!("{path}: {e}"))?;
        if !text.trim().is_empty() {
            out.push_str(text.trim());
            out.push_str("\n\n");
        }
        if out.len() > MAX_TEXT {
            break;
        }
    }
    if out.trim().is_empty() {
        return Err("its chapters have no text".to_owned());
    }
    Ok(out.trim_end().to_owned())
}

fn first_attr(xml: &str, element: &str, key: &str) -> Option<String> {
    let mut reader = Reader::from_str(xml);
    loop {
        match reader.read_event() {
            Ok(Event::Empty(e) | Event::Start(e)) if local(e.name().as_ref()) == element => {
                return attr(&e, key);
            }
            Ok(Event::Eof) | Err(_) => return None,
            _ => {}
        }
    }
}

/// The package's manifest (id → href, percent-decoded) and spine (ids in reading order).
fn manifest_and_spine(opf: &str) -> Result<(HashMap<String, String>, Vec<String>), String> {
    let mut reader = Reader::from_str(opf);
    let (mut manifest, mut spine) = (HashMap::new(), Vec::new());
    loop {
        match reader.read_event() {
            Ok(Event::Empty(e) | Event::Start(e)) => match local(e.name().as_ref()) {
                "item" => {
                    if let (Some(id), Some(href)) = (attr(&e, "id"), attr(&e, "href")) {
                        let href = percent_decode(&href);
                        manifest.insert(id, href);
                    }
                }
                "itemref" => spine.extend(attr(&e, "idref")),
                _ => {}
            },
            Ok(Event::Eof) => break,
            Err(e) => return Err(format!("the package file is not well-formed: {e}")),
            _ => {}
        }
    }
    Ok((manifest, spine))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
pub(crate) mod tests_support {
    use std::io::{Cursor, Write};

    /// A zip of `(name, text)` entries.
    pub(crate) fn package(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, text) in entries {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::package;
    use super::*;

    #[test]
    fn a_word_document_is_read_with_its_headings_tabs_and_entities() {
        let xml = r#"<?xml version="1.0"?><w:document xmlns:w="x"><w:body>
            <w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Boiler &amp; pump</w:t></w:r></w:p>
            <w:p><w:r><w:t xml:space="preserve">Service </w:t></w:r><w:r><w:tab/><w:t>every April.</w:t></w:r></w:p>
            <w:p><w:r><w:t>会议</w:t></w:r></w:p></w:body></w:document>"#;
        let bytes = package(&[("word/document.xml", xml)]);
        assert_eq!(
            docx(&bytes).unwrap(),
            "# Boiler & pump\n\nService \tevery April.\n\n会议"
        );
    }

    #[test]
    fn an_epub_is_read_in_spine_order() {
        let bytes = package(&[
            (
                "META-INF/container.xml",
                r#"<container><rootfiles><rootfile full-path="OEBPS/book.opf"/></rootfiles></container>"#,
            ),
            (
                "OEBPS/book.opf",
                r#"<package><manifest><item id="b" href="ch%202.xhtml"/><item id="a" href="ch1.xhtml"/></manifest><spine><itemref idref="a"/><itemref idref="b"/></spine></package>"#,
            ),
            ("OEBPS/ch1.xhtml", "<html><body><h1>One</h1></body></html>"),
            ("OEBPS/ch 2.xhtml", "<html><body><p>Two</p></body></html>"),
        ]);
        let strip = |h: &str| Ok(h.replace("<html><body>", "").replace("</body></html>", ""));
        let text = epub(&bytes, strip).unwrap();
        assert_eq!(text, "<h1>One</h1>\n\n<p>Two</p>");
    }

    #[test]
    fn broken_packages_say_what_is_wrong() {
        assert!(
            docx(b"not a zip")
                .unwrap_err()
                .starts_with("not a zip package")
        );
        let empty = package(&[("a.txt", "x")]);
        assert_eq!(docx(&empty).unwrap_err(), "it has no word/document.xml");
        assert_eq!(
            epub(&empty, |h| Ok(h.to_owned())).unwrap_err(),
            "it has no META-INF/container.xml"
        );
    }
}
