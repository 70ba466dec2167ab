//! PDFs as their text — an attached PDF (`agent::upload`, which re-exports this module) and a
//! knowledge base's — page by page: the first pages up to a limit, through `lopdf` (pure Rust),
//! within bounds — the file's size, each stream's decompressed size, the text kept and the
//! time spent — with refusals that say what is wrong: not a PDF, cut short, nested too deep,
//! or a scan with no text layer. A malformed file that makes the parser panic is refused like
//! any unreadable one.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use lopdf::{Document, LoadOptions};

use crate::vocab::content::PdfPages;
use crate::vocab::error::UploadError;

/// What a read of the pages gave: each page's text with its number, the counts, and a problem
/// met on the way.
type Read = (Vec<(u32, String)>, PdfPages, Option<String>);

/// The most pages whose text is taken; the rest are left out (and said so).
pub const PAGE_LIMIT: u32 = 100;
/// The largest PDF read (an attachment's limit).
pub const MAX_PDF_BYTES: u64 = 50 * 1024 * 1024;
/// The most text kept; the pages after it are left out (and said so).
pub const MAX_PDF_TEXT: usize = 1024 * 1024;
/// The most one object or cross-reference stream may decompress to (lopdf parses each whole,
/// at some ten times its size in memory).
const MAX_STREAM: usize = 16 * 1024 * 1024;
/// The most one page's content may decompress to (a 20 MB page of text took 350 MB and 16 s
/// in a debug build before the text cap could apply).
const MAX_CONTENT: usize = 8 * 1024 * 1024;
/// How long pages are read before the rest are left out.
pub const TIME_BUDGET: Duration = Duration::from_secs(20);
/// How deep arrays and dictionaries may nest (lopdf gives up on deeper objects).
const MAX_NESTING: usize = 100;

/// Whether `bytes` start like a PDF (the header may follow some junk, as readers allow).
pub fn sniff(bytes: &[u8]) -> bool {
    bytes
        .get(..1024.min(bytes.len()))
        .is_some_and(|head| head.windows(5).any(|w| w == b"%PDF-"))
}

/// The text of the first [`PAGE_LIMIT`] pages of `bytes`, pages separated by a blank line.
pub fn extract(name: &str, bytes: &[u8]) -> Result<(String, PdfPages), UploadError> {
    extract_pages(name, bytes, PAGE_LIMIT)
}

/// The text of the first `limit` pages of `bytes`, within [`MAX_PDF_TEXT`] and
/// [`TIME_BUDGET`], pages separated by a blank line.
pub fn extract_pages(
    name: &str,
    bytes: &[u8],
    limit: u32,
) -> Result<(String, PdfPages), UploadError> {
    let (pages, counts) = page_texts(name, bytes, limit)?;
    let texts: Vec<&str> = pages.iter().map(|(_, text)| text.as_str()).collect();
    Ok((texts.join("\n\n"), counts))
}

/// The text of each of the first `limit` pages of `bytes` that has any, with its number (from
/// 1), within [`MAX_PDF_TEXT`] in all and [`TIME_BUDGET`].
pub fn page_texts(
    name: &str,
    bytes: &[u8],
    limit: u32,
) -> Result<(Vec<(u32, String)>, PdfPages), UploadError> {
    let size = bytes.len() as u64;
    if size > MAX_PDF_BYTES {
        let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
        return Err(UploadError::TooLarge {
            name: name.to_owned(),
            size_mb: mb(size),
            limit_mb: MAX_PDF_BYTES / (1024 * 1024),
        });
    }
    let not_pdf = |reason: String| UploadError::NotAPdf {
        name: name.to_owned(),
        reason: one_line(&reason),
    };
    if !sniff(bytes) {
        return Err(not_pdf("it has no PDF header".into()));
    }
    let started = Instant::now();
    let run = || -> Result<Read, String> {
        let options = LoadOptions {
            max_decompressed_size: Some(MAX_STREAM),
            ..LoadOptions::default()
        };
        let doc = Document::load_mem_with_options(bytes, options).map_err(|e| e.to_string())?;
        let pages: Vec<(u32, lopdf::ObjectId)> = doc.get_pages().into_iter().collect();
        let total = u32::try_from(pages.len()).unwrap_or(u32::MAX);
        let mut texts: Vec<(u32, String)> = Vec::new();
        let mut kept = 0usize;
        let mut extracted = 0u32;
        let mut deep = false;
        let mut failed = None::<String>;
        for (page, id) in pages.iter().take(limit as usize) {
            if started.elapsed() > TIME_BUDGET || kept >= MAX_PDF_TEXT {
                break;
            }
            extracted += 1;
            let page_text = match doc.extract_text_with_limit(&[*page], MAX_CONTENT) {
                Ok(page_text) => page_text,
                Err(e) => {
                    // Content operands nested past the parser's depth (inside a stream, maybe
                    // compressed, so not seen in the file's bytes).
                    let content = doc.get_page_content_with_limit(*id, MAX_CONTENT);
                    deep |= content.is_ok_and(|c| nesting(&c) > MAX_NESTING);
                    failed.get_or_insert_with(|| {
                        let cause = std::error::Error::source(&e)
                            .map(|c| format!(": {c}"))
                            .unwrap_or_default();
                        format!("the text of page {page} cannot be read: {e}{cause}")
                    });
                    String::new()
                }
            };
            let mut page_text = page_text.trim().to_owned();
            if !page_text.is_empty() {
                // The separator the joined text puts between pages counts toward the cap.
                let room = MAX_PDF_TEXT.saturating_sub(kept + if kept > 0 { 2 } else { 0 });
                if page_text.len() > room {
                    let mut end = room;
                    while !page_text.is_char_boundary(end) {
                        end -= 1;
                    }
                    page_text.truncate(end);
                }
                kept += page_text.len() + if kept > 0 { 2 } else { 0 };
                if !page_text.is_empty() {
                    texts.push((*page, page_text));
                }
            }
        }
        let problem = if deep { Some(too_deep()) } else { failed };
        Ok((texts, PdfPages { total, extracted }, problem))
    };
    let (texts, pages, problem) = match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(result)) => result,
        Ok(Err(reason)) => return Err(not_pdf(diagnosis(bytes).unwrap_or(reason))),
        Err(_) => {
            return Err(not_pdf(
                diagnosis(bytes).unwrap_or_else(|| "its structure cannot be read".into()),
            ));
        }
    };
    if pages.total == 0 {
        return Err(not_pdf(
            diagnosis(bytes).unwrap_or_else(|| "it has no pages".into()),
        ));
    }
    if texts.is_empty() {
        if let Some(reason) = diagnosis(bytes).or(problem) {
            return Err(not_pdf(reason));
        }
        if started.elapsed() > TIME_BUDGET {
            return Err(not_pdf(format!(
                "its text could not be read within {} s",
                TIME_BUDGET.as_secs()
            )));
        }
        return Err(UploadError::NoTextLayer {
            name: name.to_owned(),
        });
    }
    Ok((texts, pages))
}

/// What is wrong with a PDF that gave no text, when it is more than a missing text layer:
/// objects nested deeper than the parser follows, or a file cut short (no `%%EOF` marker in
/// its last kilobyte).
fn diagnosis(bytes: &[u8]) -> Option<String> {
    if nesting(bytes) > MAX_NESTING {
        return Some(too_deep());
    }
    let tail = &bytes[bytes.len().saturating_sub(1024)..];
    if !tail.windows(5).any(|w| w == b"%%EOF") {
        return Some("it is cut short: it ends before its end-of-file marker".into());
    }
    None
}

fn too_deep() -> String {
    format!("its objects nest deeper than {MAX_NESTING} levels")
}

/// How deep arrays and dictionaries nest in `bytes`, outside strings, comments and stream
/// data.
fn nesting(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'[' => depth += 1,
            b'<' if bytes.get(i + 1) == Some(&b'<') => {
                depth += 1;
                i += 1;
            }
            b']' => depth = depth.saturating_sub(1),
            b'>' if bytes.get(i + 1) == Some(&b'>') => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'%' => {
                while i < bytes.len() && !matches!(bytes[i], b'\r' | b'\n') {
                    i += 1;
                }
            }
            b'(' => {
                let mut parens = 0usize;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 1,
                        b'(' => parens += 1,
                        b')' => {
                            parens -= 1;
                            if parens == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            b's' if bytes[i..].starts_with(b"stream") => {
                let body = &bytes[i..];
                i += body
                    .windows(9)
                    .position(|w| w == b"endstream")
                    .map_or(body.len(), |at| at + 8);
            }
            _ => {}
        }
        deepest = deepest.max(depth);
        i += 1;
    }
    deepest
}

/// `text` with its runs of whitespace (newlines too) as single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A PDF with one page per entry of `pages`, each showing its lines in Helvetica; an empty
/// entry makes a page with no text (like a scan). For tests and benchmarks.
pub fn sample(pages: &[&str]) -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{Object, Stream, dictionary};
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
    let mut kids: Vec<Object> = Vec::new();
    for line in pages {
        let operations = if line.is_empty() {
            Vec::new()
        } else {
            let mut ops = vec![
                Operation::new("BT", vec![]),
                Operation::new("Tf", vec!["F1".into(), 11.into()]),
                Operation::new("TL", vec![14.into()]),
                Operation::new("Td", vec![72.into(), 720.into()]),
            ];
            for text in line.lines() {
                ops.push(Operation::new("Tj", vec![Object::string_literal(text)]));
                ops.push(Operation::new("T*", vec![]));
            }
            ops.push(Operation::new("ET", vec![]));
            ops
        };
        let encoded = Content { operations }.encode().unwrap_or_default();
        let content_id = doc.add_object(Stream::new(dictionary! {}, encoded));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
        });
        kids.push(page_id.into());
    }
    let count = i64::try_from(kids.len()).unwrap_or(0);
    let pages_dict = dictionary! {
        "Type" => "Pages", "Kids" => kids, "Count" => count, "Resources" => resources_id,
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
    };
    doc.objects.insert(pages_id, Object::Dictionary(pages_dict));
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    let _ = doc.save_to(&mut out);
    out
}
