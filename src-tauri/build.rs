//! Tauri's build step: embeds the config, and declares the app's commands so each one needs an
//! explicit permission in the window's capability (tauri.conf.json).

/// Every IPC command the shell exposes.
const COMMANDS: &[&str] = &[
    "app_info",
    "list_conversations",
    "create_conversation",
    "rename_conversation",
    "set_conversation_pinned",
    "delete_conversation",
    "list_presets",
    "list_providers",
    "add_provider",
    "set_provider_key",
    "remove_provider",
    "provider_models",
    "test_provider",
    "list_servers",
    "preview_import_servers",
    "import_servers",
    "add_server",
    "set_server_enabled",
    "remove_server",
    "export_servers",
    "send_message",
    "regenerate",
    "edit_and_resend",
    "stop_generation",
    "answer_approval",
    "conversation_messages",
    "message_siblings",
    "switch_branch",
    "update_conversation",
    "search_messages",
    "export_conversations",
    "preview_import",
    "import_conversations",
];

fn main() {
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        panic!("tauri build step failed: {e:#}");
    }
}
