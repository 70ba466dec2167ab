//! Search tests for Chinese and Japanese on real SQLite files: one-, two- and three-character
//! terms, words followed by many different characters (so a two-character term expands to
//! many trigrams), mixed Chinese and English, kana, and a database written at schema v5 that
//! is upgraded and searched.

use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};

use super::*;
use crate::vocab::content::ContentPart;

async fn fresh() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).await.unwrap();
    (dir, store)
}

/// One conversation per text, each with one user message; returns the message ids in order.
async fn messages(store: &Store, texts: &[&str]) -> Vec<String> {
    let mut ids = Vec::new();
    for text in texts {
        let c = store
            .create_conversation(NewConversation {
                title: Some((*text).into()),
                ..Default::default()
            })
            .await
            .unwrap();
        let m = store
            .append_message(NewMessage {
                conversation_id: c.id,
                parent_id: None,
                role: Role::User,
                content: vec![ContentPart::text(*text)],
                status: MessageStatus::Complete,
                model: None,
            })
            .await
            .unwrap();
        ids.push(m.id);
    }
    ids
}

/// The ids of the messages found for `query`, in the order search returns them.
async fn found(store: &Store, query: &str) -> Vec<String> {
    store
        .search_messages(query, &PageRequest::first(100))
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|h| h.message_id)
        .collect()
}

/// The ids of `texts` containing every whitespace-separated term of `query`, newest first
/// (what search must return, worked out by hand over the same texts).
fn expected(ids: &[String], texts: &[&str], query: &str) -> Vec<String> {
    let terms: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    ids.iter()
        .zip(texts)
        .rev()
        .filter(|(_, t)| terms.iter().all(|q| t.to_lowercase().contains(q.as_str())))
        .map(|(id, _)| id.clone())
        .collect()
}

const CHINESE: &[&str] = &[
    "北京今天的天气怎么样？",
    "明天天气预报说有雨",
    "天气",
    "上海的天气很好，气温二十五度。",
    "今天晴，适合出门",
    "天空很蓝",
    "你觉得天气，还是气候更重要？",
    "我们聊聊服务器和数据库",
];

#[tokio::test]
async fn one_two_and_three_character_chinese_terms_find_every_message_containing_them_newest_first()
{
    let (_d, store) = fresh().await;
    let ids = messages(&store, CHINESE).await;
    for query in [
        "晴",
        "天",
        "雨",
        "天气",
        "气温",
        "今天",
        "天空",
        "服务",
        "怎么样",
        "天气预",
        "数据库",
        "二十五度",
    ] {
        let want = expected(&ids, CHINESE, query);
        assert!(!want.is_empty(), "{query} should occur in the corpus");
        assert_eq!(found(&store, query).await, want, "{query}");
    }
    for absent in ["雪", "下雪", "大雪天"] {
        assert!(found(&store, absent).await.is_empty(), "{absent}");
    }
}

#[tokio::test]
async fn a_two_character_word_followed_by_many_different_characters_is_found_everywhere() {
    let (_d, store) = fresh().await;
    let followers = "预怎很，。！？的是也在和与或不好坏冷热晴阴雨雪风云abcXYZ123 ";
    let texts: Vec<String> = followers.chars().map(|c| format!("今天天气{c}")).collect();
    let mut refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    refs.push("天是蓝的，气是清的");
    let ids = messages(&store, &refs).await;
    let hits = found(&store, "天气").await;
    assert_eq!(hits.len(), followers.chars().count());
    assert_eq!(hits, expected(&ids, &refs, "天气"));
}

#[tokio::test]
async fn a_two_character_term_pages_newest_first_without_repeats() {
    let (_d, store) = fresh().await;
    let texts: Vec<String> = (0..9).map(|i| format!("第{i}次查天气{i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let ids = messages(&store, &refs).await;
    let first = store
        .search_messages("天气", &PageRequest::first(4))
        .await
        .unwrap();
    let next = PageRequest {
        limit: 5,
        cursor: first.next_cursor.clone(),
    };
    let second = store.search_messages("天气", &next).await.unwrap();
    assert_eq!(second.next_cursor, None);
    let all: Vec<String> = first
        .items
        .iter()
        .chain(&second.items)
        .map(|h| h.message_id.clone())
        .collect();
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    assert_eq!(all, newest_first);
}

#[tokio::test]
async fn mixed_chinese_and_english_terms_must_all_occur_and_are_marked_in_the_snippet() {
    let (_d, store) = fresh().await;
    let texts = [
        "用Rust写一个MCP服务器",
        "The weather API 返回了天气数据",
        "weather 很好",
        "调用API失败了",
        "rust 天气",
    ];
    let ids = messages(&store, &texts).await;
    for query in [
        "API",
        "api 天气",
        "Rust 服务器",
        "weather 天气",
        "MCP服务",
        "用Rust",
        "I失",
        "rust 天",
    ] {
        assert_eq!(
            found(&store, query).await,
            expected(&ids, &texts, query),
            "{query}"
        );
    }
    let page = store
        .search_messages("api 天气", &PageRequest::first(10))
        .await
        .unwrap();
    let marked: String = page.items[0]
        .snippet
        .iter()
        .map(|s| {
            if s.hit {
                format!("[{}]", s.text)
            } else {
                s.text.clone()
            }
        })
        .collect();
    assert_eq!(marked, "The weather [API] 返回了[天气]数据");
}

#[tokio::test]
async fn japanese_kana_and_kanji_terms_of_one_two_and_three_characters_are_found() {
    let (_d, store) = fresh().await;
    let texts = [
        "今日はいい天気ですね",
        "カタカナのテストです",
        "すしとてんぷらが好き",
        "テスト",
        "ひらがなとカタカナ",
    ];
    let ids = messages(&store, &texts).await;
    for query in [
        "す",
        "ね",
        "天気",
        "いい",
        "です",
        "テス",
        "カタカナ",
        "すし",
        "ひらが",
        "てんぷら",
        "天気 です",
    ] {
        let want = expected(&ids, &texts, query);
        assert!(!want.is_empty(), "{query} should occur in the corpus");
        assert_eq!(found(&store, query).await, want, "{query}");
    }
    assert!(found(&store, "ラーメン").await.is_empty());
    assert!(found(&store, "ぷよ").await.is_empty());
}

#[tokio::test]
async fn a_database_written_at_schema_v5_is_upgraded_and_its_old_messages_are_found_by_short_terms()
{
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .unwrap();
        MIGRATOR.run_to(5, &pool).await.unwrap();
        sqlx::query(
            "INSERT INTO conversations (id, title, created_at, updated_at) \
             VALUES ('c1', '旧的', 1, 1)",
        )
        .execute(&pool)
        .await
        .unwrap();
        for (i, text) in ["去年的天气预报", "旧消息：天气很冷", "old English note"]
            .iter()
            .enumerate()
        {
            let content = serde_json::json!([{"type": "text", "text": text}]).to_string();
            sqlx::query(
                "INSERT INTO messages (id, conversation_id, role, content, status, created_at, \
                 updated_at) VALUES (?, 'c1', 'user', ?, 'complete', ?, ?)",
            )
            .bind(format!("m{i}"))
            .bind(content)
            .bind(i as i64)
            .bind(i as i64)
            .execute(&pool)
            .await
            .unwrap();
        }
        pool.close().await;
    }
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.schema_version().await.unwrap(), latest_version());
    assert_eq!(found(&store, "天气").await, ["m1", "m0"]);
    assert_eq!(found(&store, "预报").await, ["m0"]);
    assert_eq!(found(&store, "no").await, ["m2"]);
    let new = messages(&store, &["新的天气"]).await;
    assert_eq!(found(&store, "天气").await, [new[0].as_str(), "m1", "m0"]);
}
