//! The built-in `web` server's `read` at the size it accepts: a 5 MB article page (nav, a long
//! sidebar, ads, tables, 5 MB of paragraphs) in English and one in Chinese, served by a local
//! HTTP server on 127.0.0.1 and read through [`McpClient`] as the app calls it (download, main
//! content by Readability, Markdown). The same pages through the built-in `fetch` tool (the
//! whole page to Markdown, no extraction) for comparison. Medians with their spread; nothing is
//! asserted.
//!
//! `make bench-web`; underneath, `SWITCHBOARD_BENCH_RUNS=R cargo bench -p switchboard-engine
//! --bench web` (release build; 15 runs unless told).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_engine::mcp::{BuiltinServer, IgnoreNotifications, McpClient};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// The page size measured (the most `read` downloads).
const PAGE_BYTES: usize = 5 * 1024 * 1024;

fn runs() -> usize {
    std::env::var("SWITCHBOARD_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n: &usize| *n >= 1)
        .unwrap_or(15)
}

/// Median, min and max of `samples`.
fn summary(mut samples: Vec<Duration>) -> (f64, String) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = ms(samples[samples.len() / 2]);
    let text = format!(
        "median {median:.0} ms (min {:.0}, max {:.0}, {} runs)",
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
        samples.len()
    );
    (median, text)
}

/// An article page of about `PAGE_BYTES`: the clutter around it, then numbered paragraphs built
/// from `words`, a table every 50 paragraphs.
fn article(title: &str, words: &[&str]) -> String {
    let mut page = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title>\
         <script>window.track = () => {{}};</script><style>body {{ font: 16px serif }}</style></head><body>\
         <nav><ul>"
    );
    for i in 0..200 {
        let _ = write!(page, "<li><a href=\"/section/{i}\">Section {i}</a></li>");
    }
    page.push_str("</ul></nav><aside class=\"sidebar\"><h3>Trending</h3><ul>");
    for i in 0..500 {
        let _ = write!(page, "<li><a href=\"/t/{i}\">Trending story {i}</a></li>");
    }
    let _ = write!(page, "</ul></aside><main><article><h1>{title}</h1>");
    let mut n = 0usize;
    while page.len() < PAGE_BYTES - 4096 {
        n += 1;
        if n.is_multiple_of(40) {
            let _ = write!(page, "<h2>Part {}</h2>", n / 40);
        }
        page.push_str("<p>");
        for k in 0..60 {
            page.push_str(words[(n * 7 + k * 13) % words.len()]);
            page.push(' ');
        }
        page.push_str("</p>\n");
        if n.is_multiple_of(50) {
            page.push_str("<table><tr><th>Year</th><th>Value</th></tr>");
            for y in 0..5 {
                let _ = write!(page, "<tr><td>{}</td><td>{}</td></tr>", 2000 + y, n * y);
            }
            page.push_str("</table>");
        }
        if n.is_multiple_of(97) {
            page.push_str("<div class=\"ad\">Advertisement: buy now</div>");
        }
    }
    page.push_str("</article></main><footer>Copyright</footer></body></html>");
    page
}

/// A loopback server answering every request with `page` as HTML; returns its port.
async fn serve(page: String) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let page = Arc::new(page);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let page = Arc::clone(&page);
            tokio::spawn(async move {
                let mut request = vec![0u8; 4096];
                let _ = socket.read(&mut request).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    page.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(page.as_bytes()).await;
            });
        }
    });
    port
}

/// `tool` of `client` on `url`, `runs` times after one warm-up: the durations and the length
/// of the last answer.
async fn measure(client: &McpClient, tool: &str, url: &str, runs: usize) -> (Vec<Duration>, usize) {
    let args = json!({"url": url, "max_length": 20_000});
    let args = args.as_object().unwrap().clone();
    let mut samples = Vec::new();
    let mut length = 0;
    for i in 0..=runs {
        let started = Instant::now();
        let result = client
            .call_tool(
                tool,
                args.clone(),
                Duration::from_secs(60),
                CancellationToken::new(),
            )
            .await
            .unwrap();
        let took = started.elapsed();
        assert!(!result.is_error, "{tool} failed: {result:?}");
        length = format!("{:?}", result.content).len();
        if i > 0 {
            samples.push(took);
        }
    }
    (samples, length)
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let english = [
            "the",
            "engine",
            "was",
            "designed",
            "to",
            "compute",
            "tables",
            "of",
            "numbers",
            "by",
            "the",
            "method",
            "of",
            "finite",
            "differences",
            "and",
            "its",
            "inventor",
            "spent",
            "decades",
            "refining",
            "a",
            "machine",
            "that",
            "could",
            "be",
            "programmed",
        ];
        let chinese = [
            "人工智能",
            "是",
            "计算机科学",
            "的",
            "一个",
            "分支，",
            "它",
            "企图",
            "了解",
            "智能",
            "的",
            "实质，",
            "并",
            "生产",
            "出",
            "一种",
            "新的",
            "智能机器。",
            "研究",
            "包括",
            "机器人、",
            "语言识别",
            "和",
            "自然语言处理。",
        ];
        let runs = runs();
        let web = McpClient::connect(
            &BuiltinServer::Web {
                settings: BTreeMap::new(),
                allow_private: true,
            }
            .spec(),
            IgnoreNotifications,
        )
        .await
        .unwrap();
        let fetch = McpClient::connect(
            &BuiltinServer::Fetch {
                allow_private: true,
            }
            .spec(),
            IgnoreNotifications,
        )
        .await
        .unwrap();
        for (label, words) in [("English", &english[..]), ("Chinese", &chinese[..])] {
            let page = article(&format!("{label} article"), words);
            let bytes = page.len();
            let port = serve(page).await;
            let url = format!("http://127.0.0.1:{port}/article");
            let (read, read_len) = measure(&web, "read", &url, runs).await;
            let (fetched, fetch_len) = measure(&fetch, "fetch", &url, runs).await;
            let (read_ms, read_text) = summary(read);
            let (fetch_ms, fetch_text) = summary(fetched);
            println!("{label} page, {:.1} MB:", bytes as f64 / 1_048_576.0);
            println!("  web read (main content): {read_text}; first answer {read_len} bytes");
            println!("  fetch (whole page):      {fetch_text}; first answer {fetch_len} bytes");
            println!("  read / fetch: {:.2}", read_ms / fetch_ms);
        }
        web.shutdown().await;
        fetch.shutdown().await;
    });
}
