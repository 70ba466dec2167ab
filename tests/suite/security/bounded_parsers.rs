//! Security, second pass: untrusted files: GGUF, chat templates, PDFs, images and bundles parsed under bounds (issue 31, points 5 and 8).
//!
//! A GGUF whose arrays nest a hundred thousand deep is refused by name and the model listing
//! (the real `switchboard models list`) still lists the good model beside it; a chat template
//! that loops without end stops on its fuel, and one that writes without end on its output
//! cap, within seconds; a 20,000 × 20,000 PNG (all zeros, a few MB compressed) is refused from
//! its header; a truncated PDF and a deeply nested one are refused as what they are, not as
//! scans; a JPEG cut in its header is refused on one line.

use std::path::Path;
use std::process::Output;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use switchboard_engine::agent::upload::{Ready, pdf, ready};
use switchboard_engine::local::template::{TemplateInput, render};
use switchboard_engine::vocab::error::UploadError;

fn switchboard(data_dir: &Path, args: &[&str]) -> Output {
    crate::suite::support_cli::switchboard(data_dir, args)
}

/// A GGUF header with `pairs` key/value pairs written by `body`.
fn gguf(pairs: u64, body: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend(0u64.to_le_bytes());
    b.extend(pairs.to_le_bytes());
    body(&mut b);
    b
}

fn key(b: &mut Vec<u8>, k: &str, kind: u32) {
    b.extend((k.len() as u64).to_le_bytes());
    b.extend(k.as_bytes());
    b.extend(kind.to_le_bytes());
}

#[test]
fn a_gguf_nesting_arrays_deep_is_refused_and_the_listing_still_lists_the_good_model() {
    let data = tempfile::tempdir().unwrap();
    let models = data.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    let good = gguf(1, |b| {
        key(b, "general.architecture", 8);
        b.extend(5u64.to_le_bytes());
        b.extend(b"qwen2");
    });
    std::fs::write(models.join("good.gguf"), good).unwrap();
    // 100,000 arrays each holding one array: 1.2 MB.
    let nested = gguf(1, |b| {
        key(b, "evil", 9);
        for _ in 0..100_000 {
            b.extend(9u32.to_le_bytes());
            b.extend(1u64.to_le_bytes());
        }
        b.extend(4u32.to_le_bytes());
        b.extend(0u64.to_le_bytes());
    });
    let nested_path = models.join("nested.gguf");
    std::fs::write(&nested_path, nested).unwrap();

    let refused = switchboard_engine::local::gguf::read_info(&nested_path).unwrap_err();
    assert!(
        refused.to_string().contains("nest deeper than"),
        "{refused}"
    );
    assert!(refused.to_string().contains("nested.gguf"), "{refused}");

    let out = switchboard(data.path(), &["models", "list"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let line = |name: &str| stdout.lines().find(|l| l.starts_with(name)).unwrap_or("");
    assert!(line("good.gguf").contains("no tool template"), "{stdout}");
    assert!(
        line("nested.gguf").contains("unreadable header"),
        "{stdout}"
    );
}

/// Renders `template` on its own thread, failing the test when it runs past 30 s (the code
/// before the fix never returned).
fn render_within_30s(template: &'static str) -> (Result<String, String>, Duration) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let started = Instant::now();
        let result = render(template, &TemplateInput::default()).map_err(|e| e.to_string());
        let _ = tx.send((result, started.elapsed()));
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the template was still rendering after 30 s")
}

#[test]
fn a_template_looping_without_end_stops_on_its_fuel() {
    let (result, took) = render_within_30s(
        "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
    );
    let error = result.unwrap_err();
    assert!(error.contains("steps"), "{error}");
    assert!(!error.contains('\n'), "{error}");
    // ~1 s is the aim; the bound is generous for a loaded debug build.
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_template_writing_without_end_stops_on_its_output_cap() {
    let (result, took) =
        render_within_30s("{% for a in range(100000) %}{{ 'x' * 100000 }}{% endfor %}");
    let error = result.unwrap_err();
    assert!(error.contains("writes more than 16 MiB"), "{error}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

/// Found by the `chat_template` fuzz target: a list repeated billions of times, then printed,
/// listed or serialized, ran for minutes (minijinja 2 made the repetition lazily and iterated
/// it past the output cap; fuel did not count the items). minijinja 3.1 refuses a repetition
/// over 100 million items and charges fuel for the items a filter goes through.
#[test]
fn a_template_repeating_a_list_billions_of_times_is_refused() {
    for template in [
        "{{ 77777*[1,2,3]*77777. }}",
        "{{ ([1,2,3]*10000*3000)|list|length }}",
        "{{ ([1,2,3]*10000*3000)|tojson }}",
        "{{ ([1,2,3]*10000*3000)|join(',') }}",
    ] {
        let (result, _) = render_within_30s(template);
        let error = result.expect_err(template);
        assert!(!error.contains('\n'), "{template}: {error}");
    }
}

/// Like [`render_within_30s`], with four messages in the context (as the fuzz target has).
fn render_with_messages_within_30s(template: &'static str) -> Result<String, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let message = serde_json::json!({"role": "user", "content": "What is the weather?"});
        let input = TemplateInput {
            messages: vec![message; 4],
            ..TemplateInput::default()
        };
        let _ = tx.send(render(template, &input).map_err(|e| e.to_string()));
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the template was still rendering after 30 s")
}

/// Found by the `chat_template` fuzz target after 4.5 million runs: `~` printed a list
/// repeated 31 million times item by item (a minute of CPU, then 2 GB), and a few nested
/// repetitions of a shared list make printing, comparing or hashing it visit billions of
/// items for a handful of instructions. The vendored minijinja counts those walks against the
/// render's fuel.
#[test]
fn a_template_walking_a_list_billions_of_items_long_is_refused_on_its_fuel() {
    const NESTED: &str = "{% set a = ['x' * 100000] * 100 %}{% set b = [a] * 100 %}\
        {% set c = [b] * 100 %}{% set d = [[['x' * 100000] * 100] * 100] * 100 %}";
    for template in [
        "%  {{ messages*7777777~70}}",
        "{{ (messages * 7777777)|string|length }}",
        const_format(NESTED, "{{ (c ~ '')|length }}"),
        const_format(NESTED, "{{ c|string|length }}"),
        const_format(NESTED, "{{ c == d }}"),
        const_format(NESTED, "{{ [c, d]|sort|length }}"),
        const_format(NESTED, "{{ [c, d]|unique|list|length }}"),
        const_format(NESTED, "{{ 'z' in c|string }}"),
    ] {
        let error = render_with_messages_within_30s(template).expect_err(template);
        assert!(error.contains("steps"), "{template}: {error}");
        assert!(!error.contains('\n'), "{template}: {error}");
    }
}

/// `prefix` then `rest`, leaked for the life of the test (the renders run on their own
/// threads).
fn const_format(prefix: &str, rest: &str) -> &'static str {
    Box::leak(format!("{prefix}{rest}").into_boxed_str())
}

/// Found by the `chat_template` fuzz target: `tojson(indent=…)` allocated the indent's spaces
/// before writing anything, so a huge one aborted the process.
#[test]
fn a_huge_tojson_indent_is_refused_and_an_ordinary_one_still_renders() {
    let error = render_with_messages_within_30s("{{ messages | tojson(indent=2777777777777*77) }}")
        .unwrap_err();
    assert!(error.contains("at most 64"), "{error}");
    let out = render_with_messages_within_30s("{{ messages[0] | tojson(indent=2) }}").unwrap();
    assert!(out.starts_with("{\n  \""), "{out}");
}

#[test]
fn a_template_printing_and_comparing_ordinary_lists_still_renders() {
    let out = render_with_messages_within_30s(
        "{{ messages|length }}|{{ (messages * 2)|length }}|{{ messages[0] == messages[1] }}|\
         {{ ([3, 1, 2]|sort ~ '') }}|{{ ['a', 'b', 'a']|unique|list|length }}",
    )
    .unwrap();
    assert_eq!(out, "4|8|True|[1, 2, 3]|2");
}

/// CRC-32 (PNG's) of `bytes`.
fn crc32(bytes: &[u8]) -> u32 {
    let table: Vec<u32> = (0..256u32)
        .map(|n| {
            (0..8).fold(n, |c, _| {
                if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                }
            })
        })
        .collect();
    !bytes.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8)
    })
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend((data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend(data);
    out.extend(&body);
    out.extend(crc32(&body).to_be_bytes());
}

/// A valid `side` × `side` RGB PNG of zeros, its pixels one fixed-Huffman deflate block of
/// 258-byte matches (13 bits per 258 bytes), written without holding the pixels.
fn zero_png(side: u32) -> Vec<u8> {
    let raw = u64::from(side) * (1 + 3 * u64::from(side));
    let (mut bits, mut acc, mut n) = (Vec::new(), 0u64, 0u32);
    let mut put = |value: u64, len: u32, huffman: bool| {
        // Huffman codes go most significant bit first, other fields least first.
        let v = if huffman {
            (0..len).fold(0, |r, i| r | (((value >> i) & 1) << (len - 1 - i)))
        } else {
            value
        };
        acc |= v << n;
        n += len;
        while n >= 8 {
            bits.push(acc as u8);
            acc >>= 8;
            n -= 8;
        }
    };
    put(0b011, 3, false); // the final block, fixed Huffman codes
    put(0x30, 8, true); // literal 0
    let rest = raw - 1;
    for _ in 0..rest / 258 {
        put(0xC5, 8, true); // length 258
        put(0, 5, true); // distance 1
    }
    for _ in 0..rest % 258 {
        put(0x30, 8, true);
    }
    put(0, 7, true); // end of block
    put(0, 7, false); // pad to a byte
    let mut idat = vec![0x78, 0x01];
    idat.extend(bits);
    idat.extend((((raw % 65521) << 16) as u32 | 1).to_be_bytes());
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = side.to_be_bytes().to_vec();
    ihdr.extend(side.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &idat);
    chunk(&mut png, b"IEND", &[]);
    png
}

#[test]
fn a_png_of_twenty_thousand_pixels_square_is_refused_from_its_header() {
    let small = zero_png(64);
    assert!(matches!(ready("small.png", &small), Ok(Ready::Image(..))));
    let bomb = zero_png(20_000);
    assert!(bomb.len() < 10 << 20, "{} bytes", bomb.len());
    let started = Instant::now();
    let Err(error) = ready("bomb.png", &bomb) else {
        panic!("the PNG was decoded");
    };
    assert!(
        matches!(&error, UploadError::CorruptImage { reason, .. }
            if reason.contains("20000 × 20000 pixels") && reason.contains("MiB")),
        "{error}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_truncated_pdf_is_refused_as_cut_short_not_as_a_scan() {
    let whole = pdf::sample(&["The quick brown fox jumps over the lazy dog."]);
    let cut = &whole[..whole.len() * 2 / 3];
    let Err(error) = ready("cut.pdf", cut) else {
        panic!("the cut PDF was read");
    };
    assert!(
        matches!(&error, UploadError::NotAPdf { reason, .. } if reason.contains("cut short")),
        "{error}"
    );
}

/// `bytes` with the first `from` replaced by `to`.
fn replaced(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let at = bytes
        .windows(from.len())
        .position(|w| w == from)
        .expect("the bytes to replace");
    [&bytes[..at], to, &bytes[at + from.len()..]].concat()
}

#[test]
fn a_pdf_nested_deeper_than_the_parser_follows_is_refused_as_such_not_as_a_scan() {
    let whole = pdf::sample(&["Hello"]);
    let deep = format!("{}0{}", "[".repeat(500), "]".repeat(500));
    // An array nested 500 deep in the page's dictionary: lopdf gives up on the page.
    let in_page = replaced(
        &whole,
        b"/Type/Page/",
        format!("/Type/Page/Junk {deep}/").as_bytes(),
    );
    // And in the page's content stream, before its text: lopdf gives up on the content.
    let content = format!("{deep} pop\n");
    let in_content = replaced(
        &whole,
        b"<</Length 45>>stream\n",
        format!("<</Length {}>>stream\n{content}", 45 + content.len()).as_bytes(),
    );
    for (what, nested) in [("page", in_page), ("content", in_content)] {
        let error = ready("deep.pdf", &nested)
            .err()
            .unwrap_or_else(|| panic!("the PDF nested in its {what} was read"));
        assert!(
            matches!(&error, UploadError::NotAPdf { reason, .. } if reason.contains("nest deeper")),
            "{what}: {error}"
        );
    }
}

#[test]
fn a_jpeg_cut_in_its_header_is_refused_on_one_line() {
    let img = image::RgbImage::from_fn(64, 48, |x, y| image::Rgb([x as u8, y as u8, 90]));
    let mut jpeg = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut jpeg, image::ImageFormat::Jpeg)
        .unwrap();
    let jpeg = jpeg.into_inner();
    // The decoder's own message for a JPEG cut in its header ends in a newline.
    let cuts = 4..jpeg.len().min(700);
    assert!(
        cuts.clone()
            .filter_map(|cut| image::load_from_memory(&jpeg[..cut]).err())
            .any(|e| e.to_string().contains('\n'))
    );
    // Cut in its header it is refused, on one line (cut in its pixels a decoder may fill in).
    for cut in cuts {
        let Err(error) = ready("cut.jpg", &jpeg[..cut]) else {
            assert!(cut > 300, "cut at {cut} bytes the JPEG was read");
            continue;
        };
        let text = error.to_string();
        assert!(matches!(error, UploadError::CorruptImage { .. }), "{text}");
        assert!(!text.contains('\n'), "{text:?}");
    }
}
