//! Attached PDFs as their text: the first pages up to a limit, through `lopdf` (pure Rust),
//! with a clear refusal for a file that is not a PDF and for a scan with no text layer. A
//! malformed file that makes the parser panic is refused like any unreadable one.

use std::panic::{AssertUnwindSafe, catch_unwind};

use lopdf::Document;

use crate::vocab::content::PdfPages;
use crate::vocab::error::UploadError;

/// The most pages whose text is taken; the rest are left out (and said so).
pub const PAGE_LIMIT: u32 = 100;

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

/// The text of the first `limit` pages of `bytes`.
pub fn extract_pages(
    name: &str,
    bytes: &[u8],
    limit: u32,
) -> Result<(String, PdfPages), UploadError> {
    let not_pdf = |reason: String| UploadError::NotAPdf {
        name: name.to_owned(),
        reason,
    };
    if !sniff(bytes) {
        return Err(not_pdf("it has no PDF header".into()));
    }
    let run = || -> Result<(String, PdfPages), String> {
        let doc = Document::load_mem(bytes).map_err(|e| e.to_string())?;
        let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
        let total = u32::try_from(pages.len()).unwrap_or(u32::MAX);
        let taken = &pages[..pages.len().min(limit as usize)];
        let mut text = String::new();
        for page in taken {
            let page_text = doc.extract_text(&[*page]).unwrap_or_default();
            let page_text = page_text.trim();
            if !page_text.is_empty() {
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                text.push_str(page_text);
            }
        }
        let extracted = u32::try_from(taken.len()).unwrap_or(u32::MAX);
        Ok((text, PdfPages { total, extracted }))
    };
    let (text, pages) = match catch_unwind(AssertUnwindSafe(run)) {
        Ok(result) => result.map_err(not_pdf)?,
        Err(_) => return Err(not_pdf("its structure cannot be read".into())),
    };
    if pages.total == 0 {
        return Err(not_pdf("it has no pages".into()));
    }
    if text.trim().is_empty() {
        return Err(UploadError::NoTextLayer {
            name: name.to_owned(),
        });
    }
    Ok((text, pages))
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
