//! Tests of the projects repository and project-scoped listings against a real SQLite file.

use super::*;
use crate::vocab::content::ContentPart;

async fn fresh() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).await.unwrap();
    (dir, store)
}

fn thesis() -> ProjectDraft {
    ProjectDraft {
        name: "Thesis".into(),
        icon: "🎓".into(),
        instructions: "Answer as a thesis advisor.".into(),
        assistant_id: Some("a1".into()),
        servers: Some(vec!["time".into(), "knowledge-papers".into()]),
    }
}

async fn conversation_in(store: &Store, title: &str, project: Option<&str>) -> Conversation {
    store
        .create_conversation(NewConversation {
            title: Some(title.into()),
            project_id: project.map(str::to_owned),
            ..Default::default()
        })
        .await
        .unwrap()
}

async fn titles(store: &Store, scope: &ListScope) -> Vec<String> {
    let page = store
        .list_conversations(&PageRequest::first(100), scope)
        .await
        .unwrap();
    let mut titles: Vec<String> = page.items.into_iter().map(|c| c.title).collect();
    titles.sort();
    titles
}

#[tokio::test]
async fn a_project_is_created_read_back_found_by_name_in_any_case_and_listed_with_its_count() {
    let (_d, store) = fresh().await;
    let made = store.insert_project(&thesis()).await.unwrap();
    assert_eq!(ProjectDraft::from(&made), thesis());
    assert_eq!(store.find_project("tHESIS").await.unwrap(), made);
    conversation_in(&store, "one", Some(&made.id)).await;
    conversation_in(&store, "two", Some(&made.id)).await;
    conversation_in(&store, "elsewhere", None).await;
    let listed = store.list_projects().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!((&listed[0].project, listed[0].conversations), (&made, 2));
}

#[tokio::test]
async fn names_are_required_unique_regardless_of_case_and_bounded() {
    let (_d, store) = fresh().await;
    store.insert_project(&thesis()).await.unwrap();
    let clash = ProjectDraft {
        name: " THESIS ".into(),
        ..Default::default()
    };
    let err = store.insert_project(&clash).await.unwrap_err().to_string();
    assert!(err.contains("already exists"), "{err}");
    let empty = ProjectDraft {
        name: "   ".into(),
        ..Default::default()
    };
    assert!(store.insert_project(&empty).await.is_err());
    let long = ProjectDraft {
        name: "x".repeat(MAX_PROJECT_NAME + 1),
        ..Default::default()
    };
    assert!(store.insert_project(&long).await.is_err());
    assert_eq!(
        store.free_project_name("thesis").await.unwrap(),
        "thesis (2)"
    );
}

#[tokio::test]
async fn an_edit_replaces_every_field_and_a_missing_project_is_not_found() {
    let (_d, store) = fresh().await;
    let made = store.insert_project(&thesis()).await.unwrap();
    let draft = ProjectDraft {
        name: "Work".into(),
        icon: String::new(),
        instructions: String::new(),
        assistant_id: Some("  ".into()),
        servers: None,
    };
    let edited = store.update_project(&made.id, &draft).await.unwrap();
    assert_eq!(
        (edited.name.as_str(), edited.assistant_id, edited.servers),
        ("Work", None, None)
    );
    let err = store.update_project("nope", &draft).await.unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
}

#[tokio::test]
async fn listings_hold_the_unfiled_the_projects_or_all_conversations_and_page_within_a_project() {
    let (_d, store) = fresh().await;
    let p = store.insert_project(&thesis()).await.unwrap();
    for i in 0..7 {
        conversation_in(&store, &format!("in {i}"), Some(&p.id)).await;
    }
    conversation_in(&store, "out", None).await;
    assert_eq!(titles(&store, &ListScope::Unfiled).await, vec!["out"]);
    assert_eq!(
        titles(&store, &ListScope::Project(p.id.clone()))
            .await
            .len(),
        7
    );
    assert_eq!(titles(&store, &ListScope::All).await.len(), 8);

    let scope = ListScope::Project(p.id.clone());
    let mut seen = Vec::new();
    let mut page = PageRequest::first(3);
    loop {
        let got = store.list_conversations(&page, &scope).await.unwrap();
        seen.extend(got.items.into_iter().map(|c| c.title));
        match got.next_cursor {
            Some(c) => page.cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen.len(), 7);
    assert!(seen.iter().all(|t| t.starts_with("in ")), "{seen:?}");
}

#[tokio::test]
async fn a_conversation_made_in_an_unknown_project_is_refused_naming_it() {
    let (_d, store) = fresh().await;
    let new = NewConversation {
        project_id: Some("ghost".into()),
        ..Default::default()
    };
    let err = store.create_conversation(new).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::NotFound { entity: "project", id } if id == "ghost"),
        "{err}"
    );
}

#[tokio::test]
async fn conversations_move_in_and_out_and_an_unknown_project_moves_nothing() {
    let (_d, store) = fresh().await;
    let p = store.insert_project(&thesis()).await.unwrap();
    let a = conversation_in(&store, "a", None).await;
    let b = conversation_in(&store, "b", None).await;
    let ids = vec![a.id.clone(), b.id.clone()];
    assert_eq!(
        store.move_conversations(&ids, Some(&p.id)).await.unwrap(),
        2
    );
    assert_eq!(
        store.get_conversation(&a.id).await.unwrap().project_id,
        Some(p.id.clone())
    );
    let err = store
        .move_conversations(&ids, Some("ghost"))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
    assert_eq!(
        titles(&store, &ListScope::Project(p.id.clone())).await,
        vec!["a", "b"]
    );
    store
        .move_conversations(std::slice::from_ref(&a.id), None)
        .await
        .unwrap();
    assert_eq!(titles(&store, &ListScope::Unfiled).await, vec!["a"]);
}

#[tokio::test]
async fn deleting_a_project_keeps_its_conversations_unfiled_or_deletes_them_with_their_messages() {
    let (_d, store) = fresh().await;
    let kept = store.insert_project(&thesis()).await.unwrap();
    let c = conversation_in(&store, "kept", Some(&kept.id)).await;
    assert_eq!(
        store
            .delete_project(&kept.id, ProjectConversations::Keep)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        store.get_conversation(&c.id).await.unwrap().project_id,
        None
    );

    let gone = store.insert_project(&thesis()).await.unwrap();
    let d = conversation_in(&store, "gone", Some(&gone.id)).await;
    store
        .append_message(NewMessage {
            conversation_id: d.id.clone(),
            parent_id: None,
            role: Role::User,
            content: vec![ContentPart::text("hello")],
            status: MessageStatus::Complete,
            model: None,
        })
        .await
        .unwrap();
    assert_eq!(
        store
            .delete_project(&gone.id, ProjectConversations::Delete)
            .await
            .unwrap(),
        1
    );
    assert!(store.get_conversation(&d.id).await.is_err());
    assert_eq!(titles(&store, &ListScope::All).await, vec!["kept"]);
    let err = store
        .delete_project(&gone.id, ProjectConversations::Keep)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
}

#[tokio::test]
async fn an_imported_project_is_added_under_a_free_name_and_one_already_here_is_kept() {
    let (_d, store) = fresh().await;
    let here = store.insert_project(&thesis()).await.unwrap();
    let mut same_id = here.clone();
    same_id.name = "Renamed elsewhere".into();
    assert!(!store.merge_project(&same_id).await.unwrap());
    assert_eq!(store.find_project(&here.id).await.unwrap(), here);

    let mut other = here.clone();
    other.id = "0190-other".into();
    assert!(store.merge_project(&other).await.unwrap());
    let added = store.find_project("0190-other").await.unwrap();
    assert_eq!(added.name, "Thesis (2)");
    assert_eq!(added.created_at, here.created_at);
}
