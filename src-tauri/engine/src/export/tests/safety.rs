//! HTML safety: every payload of the UI's XSS corpus placed in every field of a
//! conversation, exported as HTML (a folder with an index), each page parsed and checked for
//! scripts, event handlers, `javascript:` URLs and external sources.

use std::cell::RefCell;

use html5ever::tendril::TendrilSink;
use markup5ever_rcdom::{Handle, NodeData, RcDom};
use serde_json::json;

use super::fixtures::{conversation, message, text_result};
use super::{seed, store};
use crate::export::{ExportFormat, ExportRequest, ExportScope, export};
use crate::store::{ImportItem, Role};
use crate::vocab::content::ContentPart;

/// The payloads of `ui/src/test/xss-corpus.ts`, copied.
const CORPUS: &str = include_str!("xss_corpus.json");

fn payloads() -> Vec<String> {
    serde_json::from_str(CORPUS).unwrap()
}

/// A conversation whose every field is `p`.
fn hostile(n: usize, p: &str) -> ImportItem {
    let c = format!("xss-{n}");
    let result = ContentPart::ToolResult {
        call_id: p.into(),
        content: json!({"content": [
            {"type": "text", "text": p},
            {"type": "image", "mime": p, "data": p},
            {"type": "image", "mime": "image/png", "data": p},
            {"type": "resource_link", "uri": p, "name": p, "title": p, "description": p, "mime": p, "size": null},
            {"type": "resource", "uri": p, "mime": p, "body": {"kind": "text", "value": p}}
        ], "structured": {"k": p}, "is_error": true}),
        is_error: true,
    };
    let mut item = conversation(
        &c,
        p,
        vec![
            message(
                &c,
                &format!("{c}-0"),
                None,
                Role::User,
                0,
                vec![
                    ContentPart::text(p),
                    ContentPart::text(format!(
                        "[link]({p}) ![img]({p}) <{p}> `{p}`\n\n```{p}\n{p}\n```"
                    )),
                    ContentPart::Image {
                        mime_type: p.into(),
                        data: p.into(),
                        name: Some(p.into()),
                    },
                    ContentPart::Resource(crate::vocab::content::Attachment {
                        server: p.into(),
                        uri: p.into(),
                        name: p.into(),
                        mime_type: Some(p.into()),
                        body: crate::vocab::mcp::ResourceBody::Text(p.into()),
                    }),
                    ContentPart::Resource(crate::vocab::content::Attachment {
                        server: p.into(),
                        uri: p.into(),
                        name: p.into(),
                        mime_type: Some("image/png".into()),
                        body: crate::vocab::mcp::ResourceBody::Blob(p.into()),
                    }),
                ],
            ),
            message(
                &c,
                &format!("{c}-1"),
                Some(&format!("{c}-0")),
                Role::Assistant,
                1,
                vec![
                    ContentPart::Reasoning { text: p.into() },
                    ContentPart::ToolCall {
                        id: p.into(),
                        server: p.into(),
                        tool: p.into(),
                        arguments: json!({p: p}),
                    },
                ],
            ),
            message(
                &c,
                &format!("{c}-2"),
                Some(&format!("{c}-1")),
                Role::Tool,
                2,
                vec![result, text_result("x", p)],
            ),
        ],
    );
    let last = item.messages.last_mut().unwrap();
    last.error = Some(p.into());
    last.model = Some(p.into());
    item.messages[1].model = Some(p.into());
    item.conversation.model = Some(p.into());
    item.conversation.system_prompt = Some(p.into());
    item
}

/// What is wrong with a parsed page, one line each.
fn dangers(dom: &RcDom) -> Vec<String> {
    let found = RefCell::new(Vec::new());
    let styles = RefCell::new(0);
    walk(&dom.document, &mut |name, attrs| {
        let mut f = found.borrow_mut();
        match name {
            "script" | "iframe" | "frame" | "object" | "embed" | "base" | "link" | "form"
            | "svg" | "math" => {
                f.push(format!("<{name}>"));
            }
            "style" => *styles.borrow_mut() += 1,
            "meta"
                if attrs.iter().any(|(k, v)| {
                    k == "http-equiv" && !v.eq_ignore_ascii_case("Content-Security-Policy")
                }) =>
            {
                f.push("<meta http-equiv>".into());
            }
            _ => {}
        }
        for (k, v) in attrs {
            let value: String = v
                .chars()
                .filter(|c| !c.is_whitespace() && !c.is_control())
                .collect::<String>()
                .to_lowercase();
            if k.starts_with("on") {
                f.push(format!("<{name} {k}>"));
            }
            if k == "style"
                || k == "formaction"
                || k == "srcdoc"
                || k == "background"
                || k == "poster"
            {
                f.push(format!("<{name} {k}>"));
            }
            if ["href", "src", "action", "xlink:href", "data"].contains(&k.as_str())
                && (value.starts_with("javascript:")
                    || value.starts_with("vbscript:")
                    || value.starts_with("data:text"))
            {
                f.push(format!("<{name} {k}={v}>"));
            }
            if k == "src" && !value.starts_with("data:image/") {
                f.push(format!("<{name} src={v}> (external)"));
            }
        }
    });
    let mut f = found.into_inner();
    if styles.into_inner() != 1 {
        f.push("not exactly one <style>".into());
    }
    f
}

/// An element's attributes as (name, value).
type Attrs = [(String, String)];

fn walk(node: &Handle, visit: &mut dyn FnMut(&str, &Attrs)) {
    if let NodeData::Element { name, attrs, .. } = &node.data {
        let attrs: Vec<(String, String)> = attrs
            .borrow()
            .iter()
            .map(|a| (a.name.local.to_string(), a.value.to_string()))
            .collect();
        visit(&name.local, &attrs);
    }
    for child in node.children.borrow().iter() {
        walk(child, visit);
    }
}

#[tokio::test]
async fn every_xss_payload_in_every_field_yields_html_without_scripts_handlers_or_external_urls() {
    let payloads = payloads();
    assert!(
        payloads.len() > 100,
        "the corpus has {} payloads",
        payloads.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path(), "x.db").await;
    let items: Vec<ImportItem> = payloads
        .iter()
        .enumerate()
        .map(|(n, p)| hostile(n, p))
        .collect();
    seed(&s, &items).await;
    let out = dir.path().join("html");
    let req = ExportRequest {
        format: ExportFormat::Html,
        scope: ExportScope::All,
        out: out.display().to_string(),
        no_tool_results: false,
        no_reasoning: false,
    };
    let summary = export(&s, &req, |_, _| {}).await.unwrap();
    assert_eq!(summary.conversations as usize, payloads.len());
    let mut pages = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(
            path.extension().and_then(|e| e.to_str()),
            Some("html"),
            "{}",
            path.display()
        );
        let html = std::fs::read_to_string(&path).unwrap();
        let dom =
            html5ever::parse_document(RcDom::default(), Default::default()).one(html.as_str());
        let bad = dangers(&dom);
        assert!(bad.is_empty(), "{}: {bad:?}", path.display());
        pages += 1;
    }
    assert_eq!(
        pages,
        payloads.len() + 1,
        "one page per conversation and the index"
    );
}

#[test]
fn the_checker_finds_what_it_looks_for() {
    let page = "<html><head><style></style></head><body><script>x</script><img src=\"https://evil.example/a.png\" onerror=\"x\"><a href=\" JaVa\tscript:x\">a</a></body></html>";
    let dom = html5ever::parse_document(RcDom::default(), Default::default()).one(page);
    let bad = dangers(&dom);
    assert_eq!(bad.len(), 4, "{bad:?}");
}
