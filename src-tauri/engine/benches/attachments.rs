//! Attachments at real sizes: a 12-megapixel photo made ready to send (decoded, turned
//! upright, downscaled, re-encoded, thumbnailed, hashed and stored — what the composer waits
//! for before it shows the thumbnail and can send); the database's growth when the same
//! photo is in ten messages (stored once); and a 300-page PDF's text extraction (the first
//! 100 pages, as attached, and all 300). Medians of several runs with their spread (min–max).
//!
//! `make bench-attach`; underneath, `SWITCHBOARD_BENCH_RUNS=R cargo bench -p
//! switchboard-engine --bench attachments` (release build; 15 runs unless told).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use image::{DynamicImage, ImageFormat, RgbImage};
use switchboard_engine::agent::upload::pdf;
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::store::{MessageStatus, NewConversation, NewMessage, Role};
use switchboard_engine::vocab::content::ContentPart;
use switchboard_engine::{Engine, Paths, Redactor, Secrets};

fn runs() -> usize {
    std::env::var("SWITCHBOARD_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n: &usize| *n >= 1)
        .unwrap_or(15)
}

/// Median, min and max of `samples`.
fn summary(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    format!(
        "median {:.1} ms (min {:.1}, max {:.1}, {} runs)",
        ms(samples[samples.len() / 2]),
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
        samples.len()
    )
}

/// A 4000×3000 photo-like JPEG (gradients with noise, so it compresses like a photo).
fn photo() -> Vec<u8> {
    let mut seed = 0x2545_f491_u32;
    let img = RgbImage::from_fn(4000, 3000, |x, y| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let n = (seed % 48) as u8;
        image::Rgb([
            ((x / 16) as u8).wrapping_add(n),
            ((y / 12) as u8).wrapping_add(n / 2),
            (((x + y) / 28) as u8).wrapping_add(n),
        ])
    });
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgb8(img)
        .write_to(&mut out, ImageFormat::Jpeg)
        .unwrap();
    out.into_inner()
}

fn file_size(dir: &Path) -> u64 {
    ["switchboard.db", "switchboard.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(dir.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

async fn engine_at(dir: &Path) -> Engine {
    let redactor = Redactor::default();
    let store = Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(store, Arc::new(|_: &str| None), redactor.clone());
    Engine::open(Paths::under(dir), redactor, secrets)
        .await
        .unwrap()
}

async fn photo_ready(engine: &Engine, bytes: &[u8]) {
    let mut samples = Vec::new();
    for _ in 0..runs() {
        // Each run stores the photo anew (the previous copy is dropped first).
        engine.store().delete_unused_blobs(i64::MAX).await.unwrap();
        let start = Instant::now();
        let ready = engine
            .agent()
            .attach_bytes("photo.jpg", bytes.to_vec())
            .await
            .unwrap();
        samples.push(start.elapsed());
        assert!(ready.thumbnail.is_some());
    }
    println!(
        "12 MP photo ({:.1} MB JPEG) → thumbnail and send-ready (stored): {}",
        bytes.len() as f64 / 1e6,
        summary(samples)
    );
}

async fn ten_messages(engine: &Engine, dir: &Path, bytes: &[u8]) {
    engine.store().delete_unused_blobs(i64::MAX).await.unwrap();
    engine.store().checkpoint().await.unwrap();
    let before = file_size(dir);
    let conv = engine
        .store()
        .create_conversation(NewConversation::default())
        .await
        .unwrap();
    let mut parent = None;
    for i in 0..10 {
        let ready = engine
            .agent()
            .attach_bytes("photo.jpg", bytes.to_vec())
            .await
            .unwrap();
        let m = engine
            .store()
            .append_message(NewMessage {
                conversation_id: conv.id.clone(),
                parent_id: parent.clone(),
                role: Role::User,
                content: vec![ContentPart::text(format!("photo {i}")), ready.part],
                status: MessageStatus::Complete,
                model: None,
            })
            .await
            .unwrap();
        parent = Some(m.id);
    }
    engine.store().checkpoint().await.unwrap();
    let (rows, blob_bytes) = engine.store().blob_totals().await.unwrap();
    println!(
        "same photo in 10 messages: {rows} stored image ({:.2} MB with its thumbnail); database grew {:.2} MB",
        blob_bytes as f64 / 1e6,
        file_size(dir).saturating_sub(before) as f64 / 1e6
    );
}

fn pdf_text() {
    let page: String = (1..=40)
        .map(|l| format!("Line {l} of this page: the quick brown fox jumps over the lazy dog.\n"))
        .collect();
    let pages: Vec<&str> = (0..300).map(|_| page.as_str()).collect();
    let bytes = pdf::sample(&pages);
    for (label, limit) in [
        ("first 100 pages, as attached", pdf::PAGE_LIMIT),
        ("all 300 pages", 300),
    ] {
        let mut samples = Vec::new();
        let mut chars = 0;
        for _ in 0..runs() {
            let start = Instant::now();
            let (text, _) = pdf::extract_pages("book.pdf", &bytes, limit).unwrap();
            samples.push(start.elapsed());
            chars = text.len();
        }
        println!(
            "300-page PDF ({:.1} MB) text, {label} ({chars} chars): {}",
            bytes.len() as f64 / 1e6,
            summary(samples)
        );
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let bytes = photo();
    rt.block_on(async {
        let engine = engine_at(dir.path()).await;
        photo_ready(&engine, &bytes).await;
        // A fresh profile, so that the file's growth is not hidden by pages freed before.
        let fresh = tempfile::tempdir().unwrap();
        let second = engine_at(fresh.path()).await;
        ten_messages(&second, fresh.path(), &bytes).await;
    });
    pdf_text();
}
