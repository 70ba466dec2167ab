//! Attached files made ready: images downscaled and kept or re-encoded once, refusals that
//! say why (corrupt image, a "PDF" that is not one, a scan, a file too large, a binary file),
//! PDF text with its page limit, fenced text with its language, and one stored copy of an
//! image attached many times.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, RgbImage, RgbaImage};

use super::{MAX_BYTES, Ready, pdf, ready, text};
use crate::store::Store;
use crate::vocab::content::PdfPages;
use crate::vocab::error::UploadError;

fn encoded(img: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

fn photo(w: u32, h: u32) -> Vec<u8> {
    let img = RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    });
    encoded(&DynamicImage::ImageRgb8(img), ImageFormat::Jpeg)
}

fn image_of(r: Result<Ready, UploadError>) -> crate::store::NewBlob {
    match r.unwrap() {
        Ready::Image(blob, _) => blob,
        Ready::File(f) => panic!("expected an image, got the file {}", f.name),
    }
}

fn file_of(r: Result<Ready, UploadError>) -> crate::vocab::content::FileText {
    match r.unwrap() {
        Ready::File(f) => f,
        Ready::Image(..) => panic!("expected a file, got an image"),
    }
}

#[test]
fn a_large_photo_is_downscaled_to_the_long_side_limit_and_reencoded_as_jpeg() {
    let blob = image_of(ready("photo.jpg", &photo(3000, 2000)));
    assert_eq!((blob.width, blob.height), (1568, 1045));
    assert_eq!(blob.mime_type, "image/jpeg");
    assert_eq!(blob.hash, crate::store::image::sha256_hex(&blob.data));
    let back = image::load_from_memory(&blob.data).unwrap();
    assert_eq!((back.width(), back.height()), (1568, 1045));
    let thumb = image::load_from_memory(&blob.thumb).unwrap();
    assert_eq!(
        thumb.width().max(thumb.height()),
        crate::store::image::THUMB_SIDE
    );
}

#[test]
fn a_small_png_is_stored_byte_for_byte() {
    let png = encoded(
        &DynamicImage::ImageRgba8(RgbaImage::from_pixel(40, 30, image::Rgba([1, 2, 3, 128]))),
        ImageFormat::Png,
    );
    let blob = image_of(ready("dot.png", &png));
    assert_eq!(blob.data, png);
    assert_eq!(
        (blob.mime_type.as_str(), blob.width, blob.height),
        ("image/png", 40, 30)
    );
}

#[test]
fn a_webp_is_reencoded_to_a_format_every_provider_takes() {
    let webp = encoded(
        &DynamicImage::ImageRgba8(RgbaImage::from_pixel(20, 20, image::Rgba([9, 9, 9, 255]))),
        ImageFormat::WebP,
    );
    let blob = image_of(ready("a.webp", &webp));
    assert_eq!(blob.mime_type, "image/png");
}

#[test]
fn a_corrupt_image_is_refused_with_its_name_and_nothing_decoded() {
    let mut bytes = photo(64, 64);
    bytes.truncate(200);
    let err = ready("broken.jpg", &bytes).unwrap_err();
    assert!(matches!(&err, UploadError::CorruptImage { name, .. } if name == "broken.jpg"));
    assert!(
        err.to_string()
            .starts_with("“broken.jpg” is not an image that can be read")
    );
}

#[test]
fn a_file_named_like_an_image_that_is_not_one_is_refused() {
    let err = ready("cat.png", b"hello, I am text").unwrap_err();
    assert!(matches!(err, UploadError::CorruptImage { .. }), "{err}");
}

#[test]
fn a_pdf_that_is_not_a_pdf_is_refused() {
    let err = ready("report.pdf", b"<html>not a pdf</html>").unwrap_err();
    assert_eq!(
        err.to_string(),
        "“report.pdf” is not a readable PDF (it has no PDF header)"
    );
    let err = ready("broken.pdf", b"%PDF-1.7\n garbage garbage").unwrap_err();
    assert!(matches!(err, UploadError::NotAPdf { .. }), "{err}");
}

#[test]
fn a_pdf_made_in_the_test_gives_the_text_of_its_pages() {
    let bytes = pdf::sample(&["The quick brown fox jumps over the lazy dog.", "Page two."]);
    let file = file_of(ready("fox.pdf", &bytes));
    assert!(
        file.text
            .contains("The quick brown fox jumps over the lazy dog."),
        "{}",
        file.text
    );
    assert!(file.text.contains("Page two."));
    assert_eq!(
        file.pages,
        Some(PdfPages {
            total: 2,
            extracted: 2
        })
    );
    assert!(file.tokens > 10);
}

#[test]
fn a_pdf_longer_than_the_page_limit_sends_its_first_pages_and_says_so() {
    let lines: Vec<String> = (1..=pdf::PAGE_LIMIT + 5)
        .map(|i| format!("Line of page {i}."))
        .collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let file = file_of(ready("long.pdf", &pdf::sample(&refs)));
    assert_eq!(
        file.pages,
        Some(PdfPages {
            total: pdf::PAGE_LIMIT + 5,
            extracted: pdf::PAGE_LIMIT
        })
    );
    assert!(
        file.text
            .contains(&format!("Line of page {}.", pdf::PAGE_LIMIT))
    );
    assert!(
        !file
            .text
            .contains(&format!("Line of page {}.", pdf::PAGE_LIMIT + 1))
    );
    assert!(text::for_model(&file).starts_with(&format!(
        "File: long.pdf (PDF, the text of its first {} of {} pages)",
        pdf::PAGE_LIMIT,
        pdf::PAGE_LIMIT + 5
    )));
}

#[test]
fn a_scanned_pdf_with_no_text_layer_is_refused_as_such() {
    let err = ready("scan.pdf", &pdf::sample(&["", ""])).unwrap_err();
    assert_eq!(
        err,
        UploadError::NoTextLayer {
            name: "scan.pdf".into()
        }
    );
    assert!(err.to_string().contains("scanned PDF"));
}

#[test]
fn a_200_mb_file_is_refused_before_it_is_looked_at() {
    let big = vec![b'a'; 200 * 1024 * 1024];
    let err = ready("huge.log", &big).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "“huge.log” is 200.0 MB; attachments can be at most {} MB",
            MAX_BYTES / 1024 / 1024
        )
    );
}

#[test]
fn a_text_file_over_the_text_limit_is_refused() {
    let err = ready("big.txt", &vec![b'a'; 2 * 1024 * 1024]).unwrap_err();
    assert!(
        matches!(err, UploadError::TooLarge { limit_mb: 1, .. }),
        "{err}"
    );
}

#[test]
fn a_code_file_is_fenced_with_the_language_of_its_extension_and_counted() {
    let file = file_of(ready(
        "main.rs",
        b"fn main() {\n    println!(\"```\");\n}\n",
    ));
    assert_eq!(file.language, "rust");
    assert_eq!(
        text::for_model(&file),
        "File: main.rs\n````rust\nfn main() {\n    println!(\"```\");\n}\n````"
    );
    assert_eq!(
        file.tokens,
        crate::agent::budget::count(&text::for_model(&file))
    );
}

#[test]
fn a_binary_file_is_refused() {
    let err = ready("data.bin", &[0u8, 1, 2, 3, 0, 255]).unwrap_err();
    assert_eq!(
        err,
        UploadError::Unsupported {
            name: "data.bin".into()
        }
    );
}

#[tokio::test]
async fn the_same_image_attached_ten_times_is_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
    let bytes = photo(800, 600);
    let mut new = 0;
    for _ in 0..10 {
        let blob = image_of(ready("same.jpg", &bytes));
        new += usize::from(store.put_blob(&blob).await.unwrap());
    }
    assert_eq!(new, 1);
    assert_eq!(store.blob_totals().await.unwrap().0, 1);
}
