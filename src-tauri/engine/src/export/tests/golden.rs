//! Golden Markdown and HTML of representative conversations (insta snapshots), and the
//! options that leave reasoning and tool results out.

use super::fixtures::{branchy, weather};
use crate::export::{MemoryAssets, RenderOptions, html, markdown};
use crate::store::ImportItem;

fn md(item: &ImportItem, opts: RenderOptions) -> (String, MemoryAssets) {
    let mut out = Vec::new();
    let mut assets = MemoryAssets::default();
    markdown::render(
        &mut out,
        &item.conversation,
        &item.messages,
        opts,
        &mut assets,
    )
    .unwrap();
    (String::from_utf8(out).unwrap(), assets)
}

fn page(item: &ImportItem, opts: RenderOptions) -> String {
    let mut out = Vec::new();
    html::render(&mut out, &item.conversation, &item.messages, opts).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn the_seed_003_weather_exchange_renders_as_markdown() {
    let (text, assets) = md(&weather(), RenderOptions::default());
    assert!(assets.saved.is_empty());
    insta::assert_snapshot!("weather_md", text);
}

#[test]
fn the_seed_003_weather_exchange_renders_as_html() {
    insta::assert_snapshot!("weather_html", page(&weather(), RenderOptions::default()));
}

#[test]
fn a_branchy_chinese_conversation_renders_its_shown_branch_as_markdown_with_the_image_saved() {
    let (text, assets) = md(&branchy(), RenderOptions::default());
    assert_eq!(assets.saved.len(), 1);
    assert_eq!(assets.saved[0].0, "files/image-1.png");
    assert!(assets.saved[0].1.starts_with(b"\x89PNG"));
    insta::assert_snapshot!("branchy_md", text);
}

#[test]
fn a_branchy_chinese_conversation_renders_as_html_with_the_image_inline() {
    insta::assert_snapshot!("branchy_html", page(&branchy(), RenderOptions::default()));
}

#[test]
fn reasoning_and_tool_results_can_be_left_out() {
    let opts = RenderOptions {
        tool_results: false,
        reasoning: false,
    };
    let (text, assets) = md(&branchy(), opts);
    assert!(!text.contains("用户想要一张图"), "{text}");
    assert!(!text.contains("渲染完成"), "{text}");
    assert!(
        text.contains("get-tiny-image"),
        "the call itself stays: {text}"
    );
    assert!(assets.saved.is_empty());
    let (weather_md, _) = md(&weather(), opts);
    assert!(!weather_md.contains("It's always raining"), "{weather_md}");
    assert!(
        weather_md.contains("always raining in California. This"),
        "the answer stays"
    );
    let html = page(&branchy(), opts);
    assert!(
        !html.contains("用户想要一张图")
            && !html.contains("渲染完成")
            && !html.contains("data:image")
    );
    let full = page(&branchy(), RenderOptions::default());
    assert!(
        full.contains("用户想要一张图")
            && full.contains("渲染完成")
            && full.contains("data:image/png;base64,")
    );
}

#[test]
fn an_attached_resource_renders_as_a_collapsed_block_and_an_attached_image_inline() {
    use crate::vocab::content::{Attachment, ContentPart};
    use crate::vocab::mcp::ResourceBody;
    let mut item = weather();
    let attach = |name: &str, mime: &str, body| {
        ContentPart::Resource(Attachment {
            server: "docs".into(),
            uri: format!("file:///{name}"),
            name: name.into(),
            mime_type: Some(mime.into()),
            body,
        })
    };
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    item.messages[0].content.extend([
        attach(
            "notes.md",
            "text/markdown",
            ResourceBody::Text("# Plan <b>".into()),
        ),
        attach("map.png", "image/png", ResourceBody::Blob(png.into())),
        attach(
            "data.bin",
            "application/octet-stream",
            ResourceBody::Blob("AAAA".into()),
        ),
    ]);
    let (text, assets) = md(&item, RenderOptions::default());
    assert!(
        text.contains(
            "<details>\n<summary>Attached: notes.md (file:///notes.md)</summary>\n\n```text\n# Plan <b>\n```\n\n</details>"
        ),
        "{text}"
    );
    assert_eq!(assets.saved.len(), 1, "the attached image is saved");
    assert!(
        text.contains("*[Attached: data.bin (file:///data.bin): binary contents]*"),
        "{text}"
    );
    let html = page(&item, RenderOptions::default());
    assert!(
        html.contains("<summary>Attached: notes.md (file:///notes.md)</summary>"),
        "{html}"
    );
    assert!(html.contains("# Plan &lt;b&gt;"), "{html}");
    assert!(html.contains("data:image/png;base64,iVBOR"), "{html}");
}
