//! The built-in `web` server through [`McpClient`], as the app connects it: `search` against
//! HTTP servers on 127.0.0.1 that replay each provider's recorded answers
//! (`tests/fixtures/web-search/`, sources in its SOURCES.md) and record what they were sent;
//! providers that are down, hang, fail or answer garbage; `read` of a page's main content.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::builtin::{call, client, text};
use crate::mcp::builtin::BuiltinServer;
use crate::mcp::client::McpClient;
use crate::vocab::mcp::ToolResult;

const SEARXNG: &str = include_str!("../../../../../tests/fixtures/web-search/searxng.json");
const BRAVE: &str = include_str!("../../../../../tests/fixtures/web-search/brave.json");
const TAVILY: &str = include_str!("../../../../../tests/fixtures/web-search/tavily.json");
const GOOGLE: &str = include_str!("../../../../../tests/fixtures/web-search/google.json");
const BRAVE_429: &str = include_str!("../../../../../tests/fixtures/web-search/brave-error.json");
const GOOGLE_400: &str = include_str!("../../../../../tests/fixtures/web-search/google-error.json");

/// What a replaying server answers.
#[derive(Clone)]
enum Answer {
    /// This status, content type and body.
    Reply(u16, &'static str, String),
    /// Nothing, ever (the connection stays open).
    Hang,
}

/// A loopback server answering every request with `answer`; returns its base URL and the
/// requests it got (head and body as text).
async fn replaying(answer: Answer) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let answer = answer.clone();
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let request = read_request(&mut socket).await;
                log.lock().expect("log").push(request);
                match answer {
                    Answer::Hang => tokio::time::sleep(Duration::from_secs(60)).await,
                    Answer::Reply(status, content_type, body) => {
                        let head = format!(
                            "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nlocation: http://elsewhere.example/\r\nconnection: close\r\n\r\n",
                            body.len()
                        );
                        let _ = socket.write_all(head.as_bytes()).await;
                        let _ = socket.write_all(body.as_bytes()).await;
                    }
                }
            });
        }
    });
    (format!("http://127.0.0.1:{port}"), seen)
}

/// One request's head and body (by its content-length).
async fn read_request(socket: &mut tokio::net::TcpStream) -> String {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = socket.read(&mut buf).await {
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if bytes.len() >= end + 4 + length {
                break;
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn settings(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

async fn web(pairs: &[(&str, &str)], allow_private: bool) -> McpClient {
    client(BuiltinServer::Web {
        settings: settings(pairs),
        allow_private,
    })
    .await
}

/// `search` through a provider replaying `body`: the result text and the request it got.
async fn search_with(pairs: &[(&str, &str)], body: &str, args: Value) -> (ToolResult, String) {
    let (base, seen) = replaying(Answer::Reply(200, "application/json", body.to_owned())).await;
    let mut pairs = pairs.to_vec();
    let endpoint = format!("{base}/api");
    if pairs.iter().any(|(k, _)| *k == "SEARXNG_URL") {
        pairs.retain(|(k, _)| *k != "SEARXNG_URL");
        pairs.push(("SEARXNG_URL", &base));
    } else {
        pairs.push(("SEARCH_ENDPOINT", &endpoint));
    }
    let client = web(&pairs, false).await;
    let result = call(&client, "search", args).await;
    client.shutdown().await;
    let request = seen
        .lock()
        .expect("log")
        .first()
        .cloned()
        .unwrap_or_default();
    (result, request)
}

#[tokio::test]
async fn the_web_server_offers_search_and_read() {
    let client = web(&[], false).await;
    let mut names: Vec<String> = (client.list_tools().await.expect("list").into_iter())
        .map(|t| t.name)
        .collect();
    names.sort();
    assert_eq!(names, ["read", "search"]);
    client.shutdown().await;
}

#[tokio::test]
async fn searxng_results_are_numbered_with_titles_urls_and_snippets() {
    let pairs = [("SEARXNG_URL", "set below")];
    let args = json!({"query": "python", "count": 3, "language": "en"});
    let (result, request) = search_with(&pairs, SEARXNG, args).await;
    assert!(!result.is_error, "{}", text(&result));
    assert!(
        request.starts_with("GET /search?q=python&format=json&language=en HTTP/1.1"),
        "{request}"
    );
    let out = text(&result);
    assert!(out.starts_with("Results for \"python\" (SearXNG):\n\n[1] Welcome to Python.org\nhttps://www.python.org/\nPython is a versatile"), "{out}");
    assert!(out.contains("\n[3] "), "{out}");
    assert!(!out.contains("\n[4] "), "{out}");
    let sources = result.structured.expect("structured sources");
    assert_eq!(sources["provider"], "SearXNG");
    assert_eq!(sources["results"].as_array().map(Vec::len), Some(3));
    assert_eq!(sources["results"][0]["n"], 1);
    assert_eq!(sources["results"][0]["url"], "https://www.python.org/");
}

#[tokio::test]
async fn brave_gets_its_token_header_and_its_results_lose_their_markup() {
    let pairs = [("SEARCH_PROVIDER", "brave"), ("BRAVE_API_KEY", "BSA-test")];
    let (result, request) = search_with(&pairs, BRAVE, json!({"query": "python"})).await;
    assert!(!result.is_error, "{}", text(&result));
    assert!(
        request.starts_with("GET /api?q=python&count=5 HTTP/1.1"),
        "{request}"
    );
    assert!(
        request
            .to_lowercase()
            .contains("x-subscription-token: bsa-test"),
        "{request}"
    );
    let out = text(&result);
    assert!(
        out.contains("[1] Welcome to Python.org\nhttps://www.python.org\n"),
        "{out}"
    );
    assert!(out.contains("[5] "), "{out}");
    assert!(!out.contains("<strong>"), "{out}");
}

#[tokio::test]
async fn tavily_gets_a_bearer_key_and_a_json_query() {
    let pairs = [("TAVILY_API_KEY", "tvly-test")];
    let (result, request) = search_with(
        &pairs,
        TAVILY,
        json!({"query": "semantic kernel", "count": 2}),
    )
    .await;
    assert!(!result.is_error, "{}", text(&result));
    assert!(request.starts_with("POST /api HTTP/1.1"), "{request}");
    assert!(
        request
            .to_lowercase()
            .contains("authorization: bearer tvly-test"),
        "{request}"
    );
    let body = request.split("\r\n\r\n").nth(1).expect("body");
    let body: Value = serde_json::from_str(body).expect("json body");
    assert_eq!(body["query"], "semantic kernel");
    assert_eq!(body["max_results"], 2);
    let out = text(&result);
    assert!(
        out.contains("(Tavily):\n\n[1] Semantic Kernel overview for .NET"),
        "{out}"
    );
    assert!(!out.contains("[3] "), "{out}");
}

#[tokio::test]
async fn google_gets_key_and_engine_in_the_query() {
    let pairs = [
        ("SEARCH_PROVIDER", "google"),
        ("GOOGLE_API_KEY", "AIza-test"),
        ("GOOGLE_CSE_ID", "cx-test"),
    ];
    let args = json!({"query": "what is the semantic kernel", "language": "zh-CN"});
    let (result, request) = search_with(&pairs, GOOGLE, args).await;
    assert!(!result.is_error, "{}", text(&result));
    assert!(
        request.starts_with("GET /api?key=AIza-test&cx=cx-test&q=what+is+the+semantic+kernel&num=5&lr=lang_zh-CN HTTP/1.1"),
        "{request}"
    );
    let out = text(&result);
    assert!(out.contains("[1] Introduction to Semantic Kernel | Microsoft Learn\nhttps://learn.microsoft.com/en-us/semantic-kernel/overview/"), "{out}");
    assert!(out.contains("[4] "), "{out}");
}

/// A search through Brave at `endpoint` (or `base`/api) whose call must fail: its message.
async fn failing_search(pairs: &[(&str, &str)]) -> String {
    let client = web(pairs, false).await;
    let result = call(&client, "search", json!({"query": "python"})).await;
    client.shutdown().await;
    assert!(result.is_error, "{}", text(&result));
    text(&result)
}

#[tokio::test]
async fn a_provider_that_fails_says_its_status_words_and_what_to_do_without_the_key() {
    let (base, _) = replaying(Answer::Reply(429, "application/json", BRAVE_429.into())).await;
    let endpoint = format!("{base}/api");
    let brave = [
        ("BRAVE_API_KEY", "k"),
        ("SEARCH_ENDPOINT", endpoint.as_str()),
    ];
    assert_eq!(
        failing_search(&brave).await,
        "Brave Search answered 429: Request rate limit exceeded for plan (the plan's rate or usage limit was reached; try again later)"
    );
    let (base, _) = replaying(Answer::Reply(400, "application/json", GOOGLE_400.into())).await;
    let endpoint = format!("{base}/api");
    let google = [
        ("GOOGLE_API_KEY", "AIza-secret"),
        ("GOOGLE_CSE_ID", "cx"),
        ("SEARCH_ENDPOINT", endpoint.as_str()),
    ];
    let message = failing_search(&google).await;
    assert!(
        message.starts_with("Google Programmable Search answered 400: API key not valid."),
        "{message}"
    );
    assert!(
        message.ends_with("(check the API key in the web server's settings)"),
        "{message}"
    );
    assert!(!message.contains("AIza-secret"), "{message}");
}

#[tokio::test]
async fn a_provider_that_is_down_slow_redirecting_or_answering_garbage_is_a_clear_error() {
    // Down: a port nothing listens on (bound, then closed).
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let down = format!("http://{}/", closed.local_addr().expect("addr"));
    drop(closed);
    let message = failing_search(&[("SEARXNG_URL", down.as_str())]).await;
    assert!(
        message.starts_with("SearXNG could not be reached: "),
        "{message}"
    );

    let (hang, _) = replaying(Answer::Hang).await;
    let started = Instant::now();
    let pairs = [("SEARXNG_URL", hang.as_str()), ("SEARCH_TIMEOUT_SECS", "1")];
    let message = failing_search(&pairs).await;
    assert!(message.starts_with("SearXNG did not answer"), "{message}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the turn stalled"
    );

    let (moved, _) = replaying(Answer::Reply(302, "text/html", String::new())).await;
    let message = failing_search(&[("SEARXNG_URL", moved.as_str())]).await;
    assert!(
        message.contains(
            "answered 302 redirecting to http://elsewhere.example/; redirects are not followed"
        ),
        "{message}"
    );

    let (garbage, _) = replaying(Answer::Reply(200, "text/html", "<html>Hi</html>".into())).await;
    let message = failing_search(&[("SEARXNG_URL", garbage.as_str())]).await;
    assert!(
        message.starts_with("SearXNG answered something that is not JSON"),
        "{message}"
    );
    assert!(message.ends_with("it begins: <html>Hi</html>"), "{message}");

    let (foreign, _) = replaying(Answer::Reply(200, "application/json", "{\"a\":1}".into())).await;
    let message = failing_search(&[("SEARXNG_URL", foreign.as_str())]).await;
    assert_eq!(message, "SearXNG answered JSON without a list of results");
}

#[tokio::test]
async fn missing_or_wrong_settings_say_which_setting() {
    assert_eq!(
        failing_search(&[]).await,
        "web search has no provider: set SEARCH_PROVIDER (searxng, brave, tavily or google) and its URL or key in the web server's settings"
    );
    assert_eq!(
        failing_search(&[("SEARCH_PROVIDER", "brave")]).await,
        "web search needs a Brave Search API key: set BRAVE_API_KEY in the web server's settings"
    );
    assert_eq!(
        failing_search(&[("SEARCH_PROVIDER", "bing")]).await,
        "SEARCH_PROVIDER \"bing\" is not a search provider; use searxng, brave, tavily or google"
    );
    assert_eq!(
        failing_search(&[("SEARXNG_URL", "ftp://x")]).await,
        "SEARXNG_URL must be an http or https URL, not \"ftp://x\""
    );
    assert_eq!(
        failing_search(&[("SEARXNG_URL", "http://x"), ("SEARCH_TIMEOUT_SECS", "0")]).await,
        "SEARCH_TIMEOUT_SECS must be a number of seconds from 1 to 120, not \"0\""
    );
}

/// An article page with the clutter around it that `read` must leave out.
fn article_page(title: &str, paragraphs: &[&str]) -> String {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    format!(
        "<!doctype html><html><head><title>{title}</title><meta name=\"author\" content=\"Ada Lovelace\">\
         <script>track('visit')</script></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/news\">News</a> <a href=\"/login\">Sign in to continue</a></nav>\
         <aside class=\"sidebar\"><h3>Trending now</h3><ul><li><a href=\"/t1\">Celebrity gossip roundup</a></li></ul></aside>\
         <article><h1>{title}</h1>\n{body}<p>See <a href=\"/more\">more</a>.</p></article>\
         <div class=\"ad\">BUY CHEAP WATCHES TODAY</div><footer>Copyright footer text</footer></body></html>"
    )
}

const ENGLISH: [&str; 4] = [
    "The Analytical Engine was a proposed mechanical general-purpose computer designed by the English mathematician Charles Babbage, first described in 1837 as the successor to his difference engine.",
    "It incorporated an arithmetic logic unit, control flow in the form of conditional branching and loops, and integrated memory, making it the first design for a general-purpose computer.",
    "Ada Lovelace wrote the first algorithm intended to be carried out by such a machine, a method of calculating Bernoulli numbers, and she is often regarded as the first computer programmer.",
    "Babbage was never able to complete construction of any of his machines due to conflicts with his chief engineer and inadequate funding, but his designs were later shown to be sound.",
];

#[tokio::test]
async fn read_returns_the_main_content_as_markdown_without_menus_ads_or_scripts() {
    let page = article_page("The Analytical Engine", &ENGLISH);
    let (base, _) = replaying(Answer::Reply(200, "text/html; charset=utf-8", page)).await;
    let client = web(&[], true).await;
    let url = format!("{base}/history/engine");
    let out = text(&call(&client, "read", json!({"url": url})).await);
    assert!(
        out.starts_with(&format!(
            "# The Analytical Engine\n\nSource: {url}\nBy: Ada Lovelace\n\n"
        )),
        "{out}"
    );
    for p in ENGLISH {
        assert!(out.contains(p), "missing {p:?} in {out}");
    }
    assert!(
        out.contains(&format!("[more]({base}/more)")),
        "links are made absolute: {out}"
    );
    for clutter in [
        "Sign in to continue",
        "Celebrity gossip",
        "CHEAP WATCHES",
        "track(",
        "Copyright footer",
    ] {
        assert!(!out.contains(clutter), "{clutter:?} in {out}");
    }
    let first = text(&call(&client, "read", json!({"url": url, "max_length": 40})).await);
    assert!(first.ends_with("\n\nContent truncated. Call the read tool with a start_index of 40 to get more content."), "{first}");
    client.shutdown().await;
}

#[tokio::test]
async fn read_keeps_a_chinese_article() {
    let paragraphs = [
        "人工智能是计算机科学的一个分支，它企图了解智能的实质，并生产出一种新的能以人类智能相似的方式做出反应的智能机器。",
        "该领域的研究包括机器人、语言识别、图像识别、自然语言处理和专家系统等。自诞生以来，理论和技术日益成熟，应用领域也不断扩大。",
        "可以设想，未来人工智能带来的科技产品，将会是人类智慧的容器。人工智能可以对人的意识、思维的信息过程进行模拟。",
    ];
    let page = article_page("人工智能的发展", &paragraphs);
    let (base, _) = replaying(Answer::Reply(200, "text/html; charset=utf-8", page)).await;
    let client = web(&[], true).await;
    let out = text(&call(&client, "read", json!({"url": format!("{base}/ai")})).await);
    assert!(out.starts_with("# 人工智能的发展\n"), "{out}");
    for p in paragraphs {
        assert!(out.contains(p), "missing {p:?} in {out}");
    }
    assert!(!out.contains("CHEAP WATCHES"), "{out}");
    client.shutdown().await;
}

#[tokio::test]
async fn read_refuses_private_addresses_binary_files_and_hostile_nesting() {
    let (base, seen) =
        replaying(Answer::Reply(200, "text/html", article_page("T", &ENGLISH))).await;
    let guarded = web(&[], false).await;
    let result = call(&guarded, "read", json!({"url": format!("{base}/")})).await;
    assert!(result.is_error);
    assert!(
        text(&result).contains("private, loopback or link-local"),
        "{}",
        text(&result)
    );
    assert!(
        seen.lock().expect("log").is_empty(),
        "a refused read connected"
    );
    guarded.shutdown().await;

    let open = web(&[], true).await;
    let (pdf, _) = replaying(Answer::Reply(
        200,
        "application/pdf",
        "%PDF-1.7\n\0\0".into(),
    ))
    .await;
    let result = call(&open, "read", json!({"url": format!("{pdf}/a.pdf")})).await;
    assert!(result.is_error);
    assert!(
        text(&result)
            .ends_with("/a.pdf is application/pdf, not a web page or text; it is not read"),
        "{}",
        text(&result)
    );

    let deep = format!("<html><body>{}x</body></html>", "<div>".repeat(5000));
    let (nested, _) = replaying(Answer::Reply(200, "text/html", deep)).await;
    let result = call(&open, "read", json!({"url": format!("{nested}/deep")})).await;
    assert!(result.is_error);
    assert!(
        text(&result).ends_with("nests its HTML 5000 levels deep (more than 1000); it is not read"),
        "{}",
        text(&result)
    );

    let (plain, _) = replaying(Answer::Reply(
        200,
        "text/plain; charset=utf-8",
        "just text\n".into(),
    ))
    .await;
    let out = text(&call(&open, "read", json!({"url": format!("{plain}/t.txt")})).await);
    assert_eq!(out, format!("Source: {plain}/t.txt\n\njust text\n"));
    open.shutdown().await;
}
