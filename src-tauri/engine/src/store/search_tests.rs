//! Search and branch tests on real SQLite files: English and Chinese text, short terms,
//! snippets, updates and deletions reaching the index, paging.

use super::*;
use crate::vocab::content::ContentPart;

async fn fresh() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).await.unwrap();
    (dir, store)
}

async fn conv_with(store: &Store, title: &str, texts: &[(Role, &str)]) -> (String, Vec<String>) {
    let c = store
        .create_conversation(NewConversation {
            title: Some(title.into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut parent = None;
    let mut ids = Vec::new();
    for (role, text) in texts {
        let m = store
            .append_message(NewMessage {
                conversation_id: c.id.clone(),
                parent_id: parent.clone(),
                role: *role,
                content: vec![ContentPart::text(*text)],
                status: MessageStatus::Complete,
                model: None,
            })
            .await
            .unwrap();
        parent = Some(m.id.clone());
        ids.push(m.id);
    }
    (c.id, ids)
}

fn titles(page: &Page<SearchHit>) -> Vec<&str> {
    page.items
        .iter()
        .map(|h| h.conversation_title.as_str())
        .collect()
}

fn marked(hit: &SearchHit) -> String {
    hit.snippet
        .iter()
        .map(|s| {
            if s.hit {
                format!("[{}]", s.text)
            } else {
                s.text.clone()
            }
        })
        .collect()
}

async fn corpus(store: &Store) {
    conv_with(
        store,
        "Weather",
        &[
            (Role::User, "What's the weather in California?"),
            (Role::Assistant, "It's always raining in California."),
        ],
    )
    .await;
    conv_with(
        store,
        "天气",
        &[
            (Role::User, "北京今天的天气怎么样？"),
            (Role::Assistant, "北京今天晴，气温二十五度。"),
        ],
    )
    .await;
    conv_with(
        store,
        "Rust",
        &[
            (Role::User, "How do I read a file in Rust?"),
            (Role::Assistant, "Use std::fs::read_to_string."),
        ],
    )
    .await;
}

#[tokio::test]
async fn english_words_find_their_conversation_case_insensitively_with_a_marked_snippet() {
    let (_d, store) = fresh().await;
    corpus(&store).await;
    let page = store
        .search_messages("CALIFORNIA rain", &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(titles(&page), ["Weather"]);
    assert_eq!(
        marked(&page.items[0]),
        "It's always [rain]ing in [California]."
    );
    assert_eq!(page.items[0].role, Role::Assistant);
}

#[tokio::test]
async fn chinese_text_is_found_by_long_and_two_character_terms() {
    let (_d, store) = fresh().await;
    corpus(&store).await;
    let page = store
        .search_messages("气温二十", &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(titles(&page), ["天气"]);
    assert_eq!(marked(&page.items[0]), "北京今天晴，[气温二十]五度。");
    let page = store
        .search_messages("天气", &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(titles(&page), ["天气"]);
    assert_eq!(marked(&page.items[0]), "北京今天的[天气]怎么样？");
    let page = store
        .search_messages("北京 晴", &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
}

#[tokio::test]
async fn every_term_must_occur_and_quotes_or_operators_are_plain_text() {
    let (_d, store) = fresh().await;
    corpus(&store).await;
    let none = store
        .search_messages("California Rust", &PageRequest::first(10))
        .await
        .unwrap();
    assert!(none.items.is_empty());
    for q in ["\"unbalanced", "NEAR(", "a OR b*", "100%_\\"] {
        let page = store.search_messages(q, &PageRequest::first(10)).await;
        assert!(page.is_ok(), "{q}: {page:?}");
    }
    let page = store
        .search_messages("std::fs", &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(titles(&page), ["Rust"]);
}

#[tokio::test]
async fn edits_and_deletions_reach_the_index() {
    let (_d, store) = fresh().await;
    let (conv, ids) = conv_with(&store, "Draft", &[(Role::Assistant, "first draft text")]).await;
    let update = MessageUpdate {
        content: Some(vec![ContentPart::text("final wording")]),
        ..Default::default()
    };
    store.update_message(&ids[0], update).await.unwrap();
    let q = |s: &'static str| {
        let store = store.clone();
        async move {
            store
                .search_messages(s, &PageRequest::first(10))
                .await
                .unwrap()
                .items
                .len()
        }
    };
    assert_eq!(q("draft").await, 0);
    assert_eq!(q("wording").await, 1);
    store.delete_conversation(&conv).await.unwrap();
    assert_eq!(q("wording").await, 0);
}

#[tokio::test]
async fn results_are_paged_without_repeats() {
    let (_d, store) = fresh().await;
    for i in 0..7 {
        conv_with(
            &store,
            &format!("c{i}"),
            &[(Role::User, "needle in a haystack")],
        )
        .await;
    }
    let first = store
        .search_messages("needle", &PageRequest::first(4))
        .await
        .unwrap();
    assert_eq!(first.items.len(), 4);
    let next = PageRequest {
        limit: 4,
        cursor: first.next_cursor.clone(),
    };
    let second = store.search_messages("needle", &next).await.unwrap();
    assert_eq!(second.items.len(), 3);
    assert_eq!(second.next_cursor, None);
    let mut all: Vec<&str> = titles(&first).into_iter().chain(titles(&second)).collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 7);
}

#[tokio::test]
async fn a_branch_runs_from_the_root_to_its_head_and_newest_leaf_follows_the_latest_child() {
    let (_d, store) = fresh().await;
    let (conv, ids) = conv_with(&store, "b", &[(Role::User, "q"), (Role::Assistant, "a1")]).await;
    let alt = store
        .append_message(NewMessage {
            conversation_id: conv.clone(),
            parent_id: Some(ids[0].clone()),
            role: Role::Assistant,
            content: vec![ContentPart::text("a2")],
            status: MessageStatus::Complete,
            model: None,
        })
        .await
        .unwrap();
    let branch: Vec<String> = store
        .branch(&ids[1])
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(branch, [ids[0].clone(), ids[1].clone()]);
    assert_eq!(
        store.siblings(&ids[1]).await.unwrap(),
        [ids[1].clone(), alt.id.clone()]
    );
    assert_eq!(store.newest_leaf(&ids[0]).await.unwrap(), alt.id);
}

#[test]
fn a_snippet_of_a_long_text_is_cut_around_the_first_match() {
    let body = format!("{}needle{}", "a".repeat(100), "b".repeat(200));
    let s = search::snippet(&body, &["needle"]);
    let text: String = s.iter().map(|x| x.text.as_str()).collect();
    assert!(text.starts_with('…') && text.ends_with('…'), "{text}");
    assert_eq!(s.iter().filter(|x| x.hit).count(), 1);
}
