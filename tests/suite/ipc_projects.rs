//! Projects and side by side over IPC (mock runtime, real SQLite): a project is created,
//! listed with its count, given a new chat; the sidebar's listings keep project chats apart;
//! a chat moves out; deleting keeps its chats; a compare of one model is refused at once.

use serde_json::{Value, json};

use super::ipc::{harness, invoke};

#[test]
fn projects_group_chats_in_the_listings_and_a_deleted_one_keeps_its_chats() {
    let h = harness();
    let draft = json!({ "name": "Thesis", "icon": "🎓", "instructions": "Cite the handbook.", "servers": ["time"] });
    let project = invoke(&h, "create_project", json!({ "draft": draft })).unwrap();
    let pid = project["id"].as_str().unwrap().to_owned();
    assert_eq!(project["servers"], json!(["time"]));
    let clash = invoke(
        &h,
        "create_project",
        json!({ "draft": { "name": "thesis" } }),
    );
    assert!(
        clash.unwrap_err()["message"]
            .as_str()
            .unwrap()
            .contains("already exists")
    );

    let inside = invoke(&h, "new_chat", json!({ "assistant": null, "project": pid })).unwrap();
    assert_eq!(inside["projectId"], pid.as_str());
    assert_eq!(inside["settings"]["servers"], json!(["time"]));
    let outside = invoke(&h, "new_chat", json!({ "assistant": null })).unwrap();
    assert!(outside.get("projectId").is_none());

    let ids = |page: Value| -> Vec<String> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let unfiled = invoke(&h, "list_conversations", json!({ "page": {} })).unwrap();
    assert_eq!(ids(unfiled), [outside["id"].as_str().unwrap()]);
    let scoped = invoke(
        &h,
        "list_conversations",
        json!({ "page": {}, "scope": { "project": pid } }),
    )
    .unwrap();
    assert_eq!(ids(scoped), [inside["id"].as_str().unwrap()]);
    let all = invoke(
        &h,
        "list_conversations",
        json!({ "page": {}, "scope": "all" }),
    )
    .unwrap();
    assert_eq!(ids(all).len(), 2);

    let listed = invoke(&h, "list_projects", json!({})).unwrap();
    assert_eq!(listed[0]["conversations"], 1);
    let moved = invoke(
        &h,
        "move_conversations",
        json!({ "ids": [inside["id"]], "project": null }),
    )
    .unwrap();
    assert_eq!(moved, 1);
    let bad = invoke(
        &h,
        "move_conversations",
        json!({ "ids": [inside["id"]], "project": "ghost" }),
    );
    assert!(bad.is_err());
    invoke(
        &h,
        "move_conversations",
        json!({ "ids": [inside["id"]], "project": pid }),
    )
    .unwrap();

    let deleted = invoke(
        &h,
        "delete_project",
        json!({ "id": pid, "conversations": "keep" }),
    )
    .unwrap();
    assert_eq!(deleted, 0);
    let unfiled = invoke(&h, "list_conversations", json!({ "page": {} })).unwrap();
    assert_eq!(
        ids(unfiled).len(),
        2,
        "its chat is kept, outside any project"
    );
    assert_eq!(invoke(&h, "list_projects", json!({})).unwrap(), json!([]));
}

#[test]
fn a_compare_of_one_model_is_refused_before_anything_is_stored() {
    let h = harness();
    let conv = invoke(&h, "create_conversation", json!({ "input": {} })).unwrap();
    let id = conv["id"].as_str().unwrap().to_owned();
    let one = json!([{ "providerId": "p", "model": "m" }]);
    let refused = invoke(
        &h,
        "compare_message",
        json!({ "conversationId": id, "text": "Hi", "models": one, "onEvent": "__CHANNEL__:9" }),
    );
    let message = refused.unwrap_err()["message"].as_str().unwrap().to_owned();
    assert!(message.contains("2 to 4 models"), "{message}");
    let messages = invoke(&h, "conversation_messages", json!({ "conversationId": id })).unwrap();
    assert_eq!(messages, json!([]));
}
