//! Tests of the assistants repository against a real SQLite file.

use serde_json::json;

use super::*;

async fn fresh() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).await.unwrap();
    (dir, store)
}

fn writer() -> AssistantDraft {
    AssistantDraft {
        name: "Writer".into(),
        icon: "✍️".into(),
        system_prompt: "You edit prose.".into(),
        provider_id: Some("p1".into()),
        model: Some("gpt-x".into()),
        settings: json!({"temperature": 0.3, "disabledTools": {"fs": ["write_file"]}}),
    }
}

#[tokio::test]
async fn an_assistant_is_created_read_back_listed_and_found_by_name_in_any_case() {
    let (_d, store) = fresh().await;
    let made = store.insert_assistant(&writer()).await.unwrap();
    assert_eq!(AssistantDraft::from(&made), writer());
    assert_eq!(store.list_assistants().await.unwrap(), vec![made.clone()]);
    assert_eq!(store.find_assistant("wRITER").await.unwrap(), made);
    assert_eq!(store.find_assistant(&made.id).await.unwrap(), made);
}

#[tokio::test]
async fn an_edit_replaces_every_field_and_empty_provider_and_model_become_none() {
    let (_d, store) = fresh().await;
    let made = store.insert_assistant(&writer()).await.unwrap();
    let draft = AssistantDraft {
        name: "  Editor ".into(),
        icon: "📝".into(),
        system_prompt: "Be brief.".into(),
        provider_id: Some(" ".into()),
        model: Some(String::new()),
        settings: json!({"maxSteps": 3}),
    };
    let edited = store.update_assistant(&made.id, &draft).await.unwrap();
    assert_eq!(
        AssistantDraft::from(&edited),
        AssistantDraft {
            name: "Editor".into(),
            provider_id: None,
            model: None,
            ..draft
        }
    );
    assert_eq!(edited.created_at, made.created_at);
}

#[tokio::test]
async fn a_second_assistant_with_the_same_name_in_another_case_is_refused_in_words() {
    let (_d, store) = fresh().await;
    store.insert_assistant(&writer()).await.unwrap();
    let mut again = writer();
    again.name = "WRITER".into();
    let err = store.insert_assistant(&again).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "an assistant named \"WRITER\" already exists"
    );
}

#[tokio::test]
async fn a_nameless_assistant_or_one_with_settings_that_are_not_an_object_is_refused() {
    let (_d, store) = fresh().await;
    let nameless = AssistantDraft {
        name: "  ".into(),
        ..writer()
    };
    assert!(store.insert_assistant(&nameless).await.is_err());
    let odd = AssistantDraft {
        settings: json!([1]),
        ..writer()
    };
    assert!(store.insert_assistant(&odd).await.is_err());
    assert!(store.list_assistants().await.unwrap().is_empty());
}

#[tokio::test]
async fn duplicating_twice_gives_copies_under_free_names_with_the_same_fields() {
    let (_d, store) = fresh().await;
    let made = store.insert_assistant(&writer()).await.unwrap();
    let one = store.duplicate_assistant(&made.id).await.unwrap();
    let two = store.duplicate_assistant(&made.id).await.unwrap();
    assert_eq!(
        (one.name.as_str(), two.name.as_str()),
        ("Writer (copy)", "Writer (copy) (2)")
    );
    assert_ne!(one.id, made.id);
    let same = |a: &Assistant| AssistantDraft {
        name: String::new(),
        ..AssistantDraft::from(a)
    };
    assert_eq!(same(&one), same(&made));
    assert_eq!(store.list_assistants().await.unwrap().len(), 3);
}

#[tokio::test]
async fn a_deleted_assistant_is_gone_and_deleting_it_again_says_not_found() {
    let (_d, store) = fresh().await;
    let made = store.insert_assistant(&writer()).await.unwrap();
    store.delete_assistant(&made.id).await.unwrap();
    assert!(store.list_assistants().await.unwrap().is_empty());
    assert!(matches!(
        store.delete_assistant(&made.id).await,
        Err(StoreError::NotFound {
            entity: "assistant",
            ..
        })
    ));
}

#[tokio::test]
async fn merging_adds_new_ones_keeps_identical_ones_copies_changed_ones_and_renames_clashes() {
    let (_d, store) = fresh().await;
    let made = store.insert_assistant(&writer()).await.unwrap();
    assert_eq!(
        store.merge_assistant(&made).await.unwrap(),
        AssistantMerge::Unchanged
    );
    let changed = Assistant {
        system_prompt: "Changed.".into(),
        ..made.clone()
    };
    assert_eq!(
        store.merge_assistant(&changed).await.unwrap(),
        AssistantMerge::Copied
    );
    assert_eq!(store.find_assistant(&made.id).await.unwrap(), made);
    let copy = store.find_assistant("Writer (2)").await.unwrap();
    assert_ne!(copy.id, made.id);
    assert_eq!(copy.system_prompt, "Changed.");
    assert_eq!(
        store.merge_assistant(&changed).await.unwrap(),
        AssistantMerge::Unchanged,
        "a second import of the same file adds no second copy"
    );
    let stranger = Assistant {
        id: "other-id".into(),
        ..made.clone()
    };
    assert_eq!(
        store.merge_assistant(&stranger).await.unwrap(),
        AssistantMerge::Added
    );
    let added = store.find_assistant("other-id").await.unwrap();
    assert_eq!(
        added,
        Assistant {
            name: "Writer (3)".into(),
            ..stranger
        }
    );
}
