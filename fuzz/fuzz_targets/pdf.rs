//! Fuzzes PDF text extraction: any bytes named `.pdf` must give text within the text cap and
//! page limit, or a refusal on one line — never panic (lopdf's own panics are caught and
//! refused).

#![no_main]

use libfuzzer_sys::fuzz_target;
use switchboard_engine::agent::upload::pdf::{MAX_PDF_TEXT, PAGE_LIMIT, extract};

fuzz_target!(|data: &[u8]| {
    match extract("fuzz.pdf", data) {
        Ok((text, pages)) => {
            assert!(text.len() <= MAX_PDF_TEXT);
            assert!(pages.extracted <= pages.total.min(PAGE_LIMIT));
            assert!(!text.trim().is_empty());
        }
        Err(e) => {
            let text = e.to_string();
            assert!(!text.contains('\n'), "{text}");
        }
    }
});
