//! Requests and answers of each search provider, without a network (the recorded answers
//! replayed by real HTTP servers are in `mcp/tests/web.rs`).

use serde_json::json;

use super::*;

fn url(text: &str) -> Url {
    Url::parse(text).expect("url")
}

fn brave() -> Provider {
    Provider::Brave {
        key: "brave-key".into(),
        endpoint: url("https://api.search.brave.com/res/v1/web/search"),
    }
}

fn google() -> Provider {
    Provider::Google {
        key: "g-key".into(),
        engine: "cx1".into(),
        endpoint: url("https://www.googleapis.com/customsearch/v1"),
    }
}

#[test]
fn searxng_asks_its_instance_for_json_under_the_instance_path() {
    let p = Provider::Searxng {
        url: url("http://localhost:8080/searx/"),
    };
    let r = p.request("rust 异步", 3, Some("zh-CN"));
    assert_eq!(
        r.url.as_str(),
        "http://localhost:8080/searx/search?q=rust+%E5%BC%82%E6%AD%A5&format=json&language=zh-CN"
    );
    assert!(r.body.is_none());
    assert!(
        r.headers
            .contains(&("Accept", "application/json, text/html;q=0.5".into()))
    );
}

#[test]
fn brave_sends_its_token_in_a_header_and_its_own_language_codes() {
    let r = brave().request("tokio", 20, Some("zh-TW"));
    assert_eq!(
        r.url.as_str(),
        "https://api.search.brave.com/res/v1/web/search?q=tokio&count=10&search_lang=zh-hant"
    );
    assert!(
        r.headers
            .contains(&("X-Subscription-Token", "brave-key".into()))
    );
    assert_eq!(brave_language("ja-JP"), "jp");
    assert_eq!(brave_language("zh"), "zh-hans");
    assert_eq!(brave_language("en-GB"), "en");
}

#[test]
fn tavily_posts_the_query_with_a_bearer_key() {
    let p = Provider::Tavily {
        key: "tvly-1".into(),
        endpoint: url("https://api.tavily.com/search"),
    };
    let r = p.request("mcp", 0, Some("fr"));
    assert_eq!(
        r.body,
        Some(
            json!({"query": "mcp", "max_results": 1, "search_depth": "basic", "include_answer": false})
        )
    );
    assert!(
        r.headers
            .contains(&("Authorization", "Bearer tvly-1".into()))
    );
}

#[test]
fn google_puts_key_engine_count_and_language_in_the_query() {
    let r = google().request("a b", 5, Some("zh-Hans"));
    assert_eq!(
        r.url.as_str(),
        "https://www.googleapis.com/customsearch/v1?key=g-key&cx=cx1&q=a+b&num=5&lr=lang_zh-CN"
    );
}

#[test]
fn answers_become_hits_with_markup_made_plain_and_the_count_kept() {
    let answer = json!({"type": "search", "web": {"results": [
        {"title": "Tokio &amp; friends", "url": "https://tokio.rs", "description": "An <strong>async</strong>\n runtime"},
        {"title": "no url"},
        {"title": "Two", "url": "https://two.example", "description": ""},
        {"title": "Three", "url": "https://three.example"}
    ]}});
    let hits = brave().parse(&answer, 2).expect("hits");
    assert_eq!(
        hits,
        [
            Hit {
                title: "Tokio & friends".into(),
                url: "https://tokio.rs".into(),
                snippet: "An **async** runtime".into()
            },
            Hit {
                title: "Two".into(),
                url: "https://two.example".into(),
                snippet: String::new()
            }
        ]
    );
}

#[test]
fn no_results_is_an_empty_list_and_a_foreign_answer_is_an_error() {
    assert_eq!(brave().parse(&json!({"type": "search"}), 5), Ok(vec![]));
    let nothing =
        json!({"kind": "customsearch#search", "searchInformation": {"totalResults": "0"}});
    assert_eq!(google().parse(&nothing, 5), Ok(vec![]));
    let err = google().parse(&json!({"hello": 1}), 5).unwrap_err();
    assert_eq!(
        err,
        "Google Programmable Search answered JSON without a list of results"
    );
}

#[test]
fn failures_say_the_provider_status_its_words_and_what_to_do() {
    let body = r#"{"type":"ErrorResponse","error":{"id":"x","status":422,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid."}}"#;
    assert_eq!(
        brave().failure(422, body),
        "Brave Search answered 422: The provided subscription token is invalid. (check the API key in the web server's settings)"
    );
    let google_err = r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#;
    assert_eq!(
        google().failure(400, google_err),
        "Google Programmable Search answered 400: API key not valid. Please pass a valid API key."
    );
    let with_reason = google_err.replace(r#""status""#, r#""reason":"API_KEY_INVALID","status""#);
    assert!(
        google()
            .failure(400, &with_reason)
            .ends_with("(check the API key in the web server's settings)")
    );
    let searx = Provider::Searxng {
        url: url("http://127.0.0.1:1"),
    };
    assert!(
        searx
            .failure(403, "<html>Forbidden</html>")
            .contains("add `json` to `search.formats`")
    );
    let tavily = Provider::Tavily {
        key: String::new(),
        endpoint: url("https://api.tavily.com/search"),
    };
    assert_eq!(
        tavily.failure(
            401,
            r#"{"detail":{"error":"Unauthorized: missing or invalid API key."}}"#
        ),
        "Tavily answered 401: Unauthorized: missing or invalid API key. (check the API key in the web server's settings)"
    );
}

#[test]
fn one_line_joins_whitespace_and_cuts_at_a_character_boundary() {
    assert_eq!(one_line("a\n  b\tc", 10), "a b c");
    assert_eq!(one_line("日本語のテキスト", 3), "日本語…");
}
