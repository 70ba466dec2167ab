//! The IPC commands through Tauri's mock runtime, against a real SQLite file.

use serde_json::{Value, json};
use switchboard_engine::secrets::KeyringSecrets;
use switchboard_engine::{Engine, Paths, Redactor, Secrets};
use tauri::Manager;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_context, noop_assets};
use tauri::webview::{InvokeRequest, WebviewWindow, WebviewWindowBuilder};

pub(super) struct Harness {
    _dir: tempfile::TempDir,
    _app: tauri::App<MockRuntime>,
    pub(super) window: WebviewWindow<MockRuntime>,
    db: std::path::PathBuf,
}

pub(super) fn harness() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths::under(dir.path());
    let db = paths.database();
    let redactor = Redactor::default();
    let store = std::sync::Arc::new(KeyringSecrets::mock().unwrap());
    let secrets = Secrets::new(store, std::sync::Arc::new(|_: &str| None), redactor.clone());
    let engine = tauri::async_runtime::block_on(Engine::open(paths, redactor, secrets)).unwrap();
    let app = switchboard_app::with_commands(tauri::test::mock_builder())
        .manage(engine)
        .build(mock_context(noop_assets()))
        .unwrap();
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    Harness {
        _dir: dir,
        _app: app,
        window,
        db,
    }
}

/// Invokes `cmd` with `args` as the UI would; `Ok` or `Err` carries the JSON payload.
pub(super) fn invoke(h: &Harness, cmd: &str, args: Value) -> Result<Value, Value> {
    invoke_on(&h.window, cmd, args)
}

/// [`invoke`] on a window (which, unlike the harness, may be sent to another thread).
pub(super) fn invoke_on(
    window: &WebviewWindow<MockRuntime>,
    cmd: &str,
    args: Value,
) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|b| b.deserialize::<Value>().unwrap())
}

fn titles(page: &Value) -> Vec<&str> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap())
        .collect()
}

#[test]
fn conversations_are_created_renamed_pinned_listed_and_deleted_over_ipc() {
    let h = harness();
    let a = invoke(
        &h,
        "create_conversation",
        json!({ "input": { "title": "first" } }),
    )
    .unwrap();
    let b = invoke(&h, "create_conversation", json!({ "input": {} })).unwrap();
    assert_eq!(b["title"], "");
    let renamed = invoke(
        &h,
        "rename_conversation",
        json!({ "id": b["id"], "title": "第二个" }),
    )
    .unwrap();
    assert_eq!(renamed["title"], "第二个");
    let pinned = invoke(
        &h,
        "set_conversation_pinned",
        json!({ "id": a["id"], "pinned": true }),
    )
    .unwrap();
    assert_eq!(pinned["pinned"], true);

    let page = invoke(&h, "list_conversations", json!({ "page": { "limit": 10 } })).unwrap();
    assert_eq!(titles(&page), vec!["first", "第二个"]);
    assert_eq!(page["nextCursor"], Value::Null);

    assert_eq!(
        invoke(&h, "delete_conversation", json!({ "id": a["id"] })).unwrap(),
        Value::Null
    );
    let page = invoke(&h, "list_conversations", json!({ "page": {} })).unwrap();
    assert_eq!(titles(&page), vec!["第二个"]);
}

#[test]
fn a_failing_command_returns_the_kind_and_a_specific_message() {
    let h = harness();
    let err = invoke(
        &h,
        "rename_conversation",
        json!({ "id": "missing", "title": "x" }),
    )
    .unwrap_err();
    assert_eq!(
        err,
        json!({ "kind": "not_found", "message": "conversation missing does not exist" })
    );
    let c = invoke(&h, "create_conversation", json!({ "input": {} })).unwrap();
    let err = invoke(
        &h,
        "rename_conversation",
        json!({ "id": c["id"], "title": "  " }),
    )
    .unwrap_err();
    assert_eq!(
        err,
        json!({ "kind": "invalid_input", "message": "a title cannot be empty" })
    );
}

#[test]
fn app_info_reports_the_version_and_the_profile_directories() {
    let h = harness();
    let info = invoke(&h, "app_info", json!({})).unwrap();
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(info["database"], h.db.display().to_string());
    assert_eq!(
        info["schemaVersion"],
        switchboard_engine::store::latest_version()
    );
}

#[test]
fn what_the_ui_writes_is_in_the_sqlite_file() {
    let h = harness();
    let c = invoke(
        &h,
        "create_conversation",
        json!({ "input": { "title": "persisted" } }),
    )
    .unwrap();
    let title: String = tauri::async_runtime::block_on(async {
        let pool = sqlx::SqlitePool::connect_with(
            sqlx::sqlite::SqliteConnectOptions::new().filename(&h.db),
        )
        .await
        .unwrap();
        sqlx::query_scalar("SELECT title FROM conversations WHERE id = ?")
            .bind(c["id"].as_str().unwrap())
            .fetch_one(&pool)
            .await
            .unwrap()
    });
    assert_eq!(title, "persisted");
}

#[test]
fn the_engine_resolves_the_same_directories_as_tauri() {
    let mut context = mock_context(noop_assets());
    context.config_mut().identifier = switchboard_engine::paths::IDENTIFIER.into();
    let app = tauri::test::mock_builder().build(context).unwrap();
    let engine = Paths::platform().unwrap();
    let tauri = Paths {
        data_dir: app.path().app_data_dir().unwrap(),
        config_dir: app.path().app_config_dir().unwrap(),
        log_dir: app.path().app_log_dir().unwrap(),
    };
    assert_eq!(engine, tauri);
}

#[test]
fn a_provider_key_goes_in_over_ipc_and_only_its_mask_comes_back() {
    let h = harness();
    let key = "sk-ipc-secret-4242";
    let input = json!({ "input": { "name": "Local", "preset": "ollama", "apiKey": key } });
    let added = invoke(&h, "add_provider", input).unwrap();
    assert_eq!(
        added["key"],
        json!({ "source": "store", "masked": "••••4242" })
    );
    assert_eq!(added["provider"]["baseUrl"], "http://127.0.0.1:11434");
    assert_eq!(added["provider"]["kind"], "ollama");
    let listed = invoke(&h, "list_providers", json!({})).unwrap();
    let presets = invoke(&h, "list_presets", json!({})).unwrap();
    for response in [&added, &listed, &presets] {
        assert!(!response.to_string().contains(key), "{response}");
    }
    let db = std::fs::read(&h.db).unwrap();
    let wal = std::fs::read(h.db.with_extension("db-wal")).unwrap_or_default();
    for bytes in [db, wal] {
        assert!(!String::from_utf8_lossy(&bytes).contains(key));
    }
    let id = added["provider"]["id"].clone();
    assert_eq!(
        invoke(&h, "remove_provider", json!({ "id": id })).unwrap(),
        Value::Null
    );
    assert_eq!(invoke(&h, "list_providers", json!({})).unwrap(), json!([]));
}

#[test]
fn an_unreachable_provider_is_reported_as_unavailable() {
    let h = harness();
    let input = json!({ "input": { "name": "Nowhere", "preset": "openai-compatible", "baseUrl": "http://127.0.0.1:9" } });
    invoke(&h, "add_provider", input).unwrap();
    let err = invoke(&h, "test_provider", json!({ "id": "Nowhere" })).unwrap_err();
    assert_eq!(err["kind"], "provider_unavailable", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .starts_with("network error: the connection failed or broke"),
        "{err}"
    );
}
