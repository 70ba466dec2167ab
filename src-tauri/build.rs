//! Tauri's build step: embeds the config, and declares the app's commands so each one needs an
//! explicit permission in the window's capability (tauri.conf.json).

/// Every IPC command the shell exposes.
const COMMANDS: &[&str] = &[
    "app_info",
    "open_external",
    "list_conversations",
    "create_conversation",
    "rename_conversation",
    "set_conversation_pinned",
    "delete_conversation",
    "list_presets",
    "list_providers",
    "add_provider",
    "set_provider_key",
    "set_provider_settings",
    "remove_provider",
    "provider_models",
    "test_provider",
    "list_servers",
    "preview_import_servers",
    "import_servers",
    "add_server",
    "update_server",
    "set_server_enabled",
    "remove_server",
    "export_servers",
    "start_server",
    "stop_server",
    "restart_server",
    "server_states",
    "server_logs",
    "server_tools",
    "server_resources",
    "server_prompts",
    "call_tool",
    "answer_interaction",
    "list_roots",
    "set_roots",
    "sampling_model",
    "set_sampling_model",
    "send_message",
    "regenerate",
    "edit_and_resend",
    "stop_generation",
    "cancel_task",
    "answer_approval",
    "conversation_messages",
    "message_siblings",
    "switch_branch",
    "update_conversation",
    "search_messages",
    "export_conversations",
    "preview_import",
    "import_conversations",
    "tool_costs",
    "tool_policies",
    "set_tool_policy",
];

fn main() {
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        panic!("tauri build step failed: {e:#}");
    }
}
