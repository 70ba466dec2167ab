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
