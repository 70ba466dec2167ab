//! Switchboard's desktop shell: the Tauri app around the engine. Commands are thin adapters
//! (see `commands`); the same binary also runs terminal commands (see `cli`).

pub mod app_frames;
pub mod bindings;
pub mod cli;
pub mod commands;
pub mod desktop;
pub mod error;
pub mod events;
pub mod handover;
pub mod links;
pub mod startup;

use std::sync::Mutex;

use switchboard_engine::logging::{self, LogGuard};
use switchboard_engine::secrets::{self, Secrets};
use switchboard_engine::{Engine, EngineError, Paths, Redactor};
use tauri::{Manager, RunEvent, Runtime};
use tauri_plugin_window_state::StateFlags;

/// Registers the app's commands on `builder`: shared by the real app and the mock-runtime
/// tests.
pub fn with_commands<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder.invoke_handler(tauri::generate_handler![
        commands::app::app_info,
        commands::app::open_external,
        commands::app::open_knowledge_file,
        commands::conversations::list_conversations,
        commands::conversations::create_conversation,
        commands::conversations::rename_conversation,
        commands::conversations::set_conversation_pinned,
        commands::conversations::delete_conversation,
        commands::providers::list_presets,
        commands::providers::list_providers,
        commands::providers::add_provider,
        commands::providers::set_provider_key,
        commands::providers::set_provider_settings,
        commands::providers::remove_provider,
        commands::providers::provider_models,
        commands::providers::test_provider,
        commands::servers::list_servers,
        commands::servers::preview_import_servers,
        commands::servers::import_servers,
        commands::servers::add_server,
        commands::servers::update_server,
        commands::servers::set_server_enabled,
        commands::servers::remove_server,
        commands::servers::set_server_client_secret,
        commands::servers::server_client_secret_set,
        commands::servers::export_servers,
        commands::install::registry_search,
        commands::install::registry_cached,
        commands::install::registry_url,
        commands::install::set_registry_url,
        commands::install::registry_install_options,
        commands::install::plan_registry_install,
        commands::install::install_from_registry,
        commands::install::check_server_update,
        commands::install::apply_server_update,
        commands::install::preview_bundle,
        commands::install::install_bundle,
        commands::install::preview_install_link,
        commands::install::install_from_link,
        commands::install::take_opened_links,
        commands::servers_run::start_server,
        commands::servers_run::stop_server,
        commands::servers_run::restart_server,
        commands::servers_run::server_states,
        commands::servers_run::server_logs,
        commands::servers_run::server_tools,
        commands::servers_run::server_resources,
        commands::servers_run::server_prompts,
        commands::servers_run::call_tool,
        commands::interactions::answer_interaction,
        commands::interactions::list_roots,
        commands::interactions::set_roots,
        commands::interactions::sampling_model,
        commands::interactions::set_sampling_model,
        commands::chat::send_message,
        commands::attachments::attach_file,
        commands::attachments::attach_bytes,
        commands::attachments::image_url,
        commands::attachments::image_support,
        commands::attachments::message_deletion_size,
        commands::attachments::delete_message,
        commands::attachments::model_prices,
        commands::attachments::own_model_prices,
        commands::attachments::set_model_prices,
        commands::chat::regenerate,
        commands::chat::edit_and_resend,
        commands::chat::stop_generation,
        commands::chat::cancel_task,
        commands::chat::answer_approval,
        commands::chat::conversation_messages,
        commands::chat::message_siblings,
        commands::chat::switch_branch,
        commands::chat::update_conversation,
        commands::chat::search_messages,
        commands::export::export_conversations,
        commands::export::preview_import,
        commands::export::import_conversations,
        commands::chat::tool_costs,
        commands::knowledge::list_knowledge_bases,
        commands::knowledge::create_knowledge_base,
        commands::knowledge::delete_knowledge_base,
        commands::knowledge::add_knowledge_source,
        commands::knowledge::remove_knowledge_source,
        commands::knowledge::knowledge_files,
        commands::knowledge::reindex_knowledge_base,
        commands::knowledge::search_knowledge_base,
        commands::knowledge::set_knowledge_embedder,
        commands::artifacts::save_artifact,
        commands::runtimes::runtimes_overview,
        commands::runtimes::install_runtime,
        commands::runtimes::remove_runtime,
        commands::runtimes::set_package_sources,
        commands::compare::compare_message,
        commands::projects::list_projects,
        commands::projects::create_project,
        commands::projects::update_project,
        commands::projects::delete_project,
        commands::projects::move_conversations,
        commands::backups::backups_overview,
        commands::backups::backup_now,
        commands::backups::restore_backup,
        commands::backups::cancel_restore,
        commands::backups::remove_backup,
        commands::backups::set_backup_schedule,
        commands::sync::sync_overview,
        commands::sync::sync_setup,
        commands::sync::sync_now,
        commands::sync::sync_off,
        commands::sync::use_sync_conflict,
        commands::sync::dismiss_sync_conflict,
        commands::desktop::desktop_status,
        commands::desktop::set_desktop_settings,
        commands::desktop::set_start_on_login,
        commands::desktop::quick_context,
        commands::desktop::hide_quick_window,
        commands::desktop::open_in_main_window,
        commands::desktop::update_settings,
        commands::desktop::set_update_settings,
        commands::desktop::check_for_update,
        commands::desktop::install_update,
        commands::desktop::restart_app,
        commands::local_server::local_server_status,
        commands::local_server::set_local_server,
        commands::local_server::list_serve_clients,
        commands::local_server::add_serve_client,
        commands::local_server::set_serve_client_servers,
        commands::local_server::set_serve_client_tools,
        commands::local_server::remove_serve_client,
        commands::local_server::serve_client_calls,
        commands::local_server::serve_client_grants,
        commands::local_server::revoke_serve_client_grant,
        commands::assistants::list_assistants,
        commands::assistants::create_assistant,
        commands::assistants::update_assistant,
        commands::assistants::duplicate_assistant,
        commands::assistants::delete_assistant,
        commands::assistants::default_assistant,
        commands::assistants::set_default_assistant,
        commands::assistants::assistant_starters,
        commands::assistants::add_starter_assistant,
        commands::assistants::new_chat,
        commands::assistants::export_assistants,
        commands::assistants::import_assistants,
        commands::assistants::auto_allow_read_only,
        commands::assistants::set_auto_allow_read_only,
        commands::assistants::provider_default_model,
        commands::servers_run::tool_policies,
        commands::servers_run::set_tool_policy,
        commands::mcp_content::server_resource_templates,
        commands::mcp_content::read_resource,
        commands::mcp_content::get_prompt,
        commands::providers::detect_ollama,
        commands::providers::probe_model,
        commands::providers::model_probes,
        commands::apps::open_app_view,
        commands::apps::close_app_view,
        commands::apps::app_call_tool,
        #[cfg(feature = "local")]
        commands::models::list_models,
        commands::models::model_catalogue,
        #[cfg(feature = "local")]
        commands::models::import_model,
        #[cfg(feature = "local")]
        commands::models::remove_model,
        #[cfg(feature = "local")]
        commands::models::download_model,
        #[cfg(feature = "local")]
        commands::models::cancel_model_download,
        #[cfg(feature = "local")]
        commands::models::set_default_local_model,
    ])
}

/// Why the desktop app could not start.
#[derive(Debug, thiserror::Error)]
pub enum GuiError {
    /// The engine (directories, database, logs) could not open.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// There is no display to open a window on.
    #[error(
        "no display found (DISPLAY and WAYLAND_DISPLAY are unset); run a terminal command instead, e.g. `switchboard conversations list`"
    )]
    NoDisplay,
    /// Tauri or the webview failed to start.
    #[error("the window could not start: {0}")]
    Tauri(#[from] tauri::Error),
    /// The task opening the engine ended without an answer (it panicked or was cancelled).
    #[error("the engine could not open: {0}")]
    Opening(String),
}

/// Opens the engine of the profile at `paths`: its secret store (the keychain, or with
/// `secrets_file` the opt-in file when there is none), then the database.
pub async fn open_engine(
    paths: Paths,
    redactor: Redactor,
    secrets_file: bool,
) -> Result<Engine, EngineError> {
    // The keychain client blocks on its own runtime: probe it off the async threads.
    let config_dir = paths.config_dir.clone();
    let store =
        tokio::task::spawn_blocking(move || secrets::choose_store(&config_dir, secrets_file))
            .await
            .map_err(|e| {
                EngineError::Secret(secrets::SecretError::Unavailable(format!(
                    "the keychain probe failed: {e}"
                )))
            })?;
    let secrets = Secrets::new(store, secrets::process_env(), redactor.clone());
    Engine::open_with(paths, redactor, secrets, packaged_resources()).await
}

/// The installed app's resources folder, where the built-in embedder ships (Tauri's rule: on
/// Linux `../lib/Switchboard` beside the binary, an AppImage's `usr/lib/Switchboard`); `None`
/// when it cannot be told. A development build's is its cargo output folder, which holds none.
pub fn packaged_resources() -> Option<std::path::PathBuf> {
    let package = tauri::PackageInfo {
        name: PRODUCT_NAME.into(),
        version: env!("CARGO_PKG_VERSION").parse().ok()?,
        authors: env!("CARGO_PKG_AUTHORS"),
        description: env!("CARGO_PKG_DESCRIPTION"),
        crate_name: env!("CARGO_PKG_NAME"),
    };
    tauri::utils::platform::resource_dir(&package, &tauri::Env::default()).ok()
}

/// The product name (`productName` in `tauri.conf.json`), which names the resources folder.
pub const PRODUCT_NAME: &str = "Switchboard";

/// The environment variable naming a GGUF file that becomes the built-in model's default when
/// the profile has no model yet (`make run` points it at the SmolLM2 file `scripts/deps.sh`
/// fetched), so that a fresh profile can chat at once.
pub const DEFAULT_GGUF_ENV: &str = "SWITCHBOARD_DEFAULT_GGUF";

/// Applies [`DEFAULT_GGUF_ENV`]; a failure is logged, never fatal.
async fn provide_default_model(engine: &Engine) {
    #[cfg(feature = "local")]
    if let Some(path) = std::env::var_os(DEFAULT_GGUF_ENV).filter(|p| !p.is_empty()) {
        match engine
            .providers()
            .provide_default_model(path.as_ref())
            .await
        {
            Ok(Some(model)) => {
                tracing::info!(model = %model.name, "the built-in model's default is ready")
            }
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, "cannot provide the default model"),
        }
    }
    #[cfg(not(feature = "local"))]
    let _ = engine;
}

/// Opens the desktop window on the profile at `paths` and runs until it closes. The engine
/// (keychain probe, database) opens on the async runtime while GTK starts; the window is
/// created only once it is open, so a profile that cannot open ends with its error and no
/// window. `opened` is an install link or a bundle file to show first (see [`links`]).
pub fn run_gui(paths: Paths, secrets_file: bool, opened: Option<String>) -> Result<(), GuiError> {
    startup::begin();
    ensure_display()?;
    let cpu_rendering = startup::prefer_cpu_rendering();
    startup::tune_script_engine();
    paths.ensure().map_err(EngineError::from)?;
    let redactor = Redactor::default();
    let guard =
        logging::init(&paths.log_dir, "info", redactor.clone()).map_err(EngineError::from)?;
    if cpu_rendering {
        tracing::info!("no GPU render node: WebKit paints on the CPU (no software OpenGL)");
    }
    let context = tauri::generate_context!();
    let (gate, waiter) = handover::gate(&context.config().identifier);
    let opening = tauri::async_runtime::spawn({
        let paths = paths.clone();
        async move {
            waiter.wait().await;
            let engine = open_engine(paths, redactor, secrets_file).await?;
            provide_default_model(&engine).await;
            Ok::<_, EngineError>(engine)
        }
    });
    let window_state = paths.config_dir.join("window-state.json");
    let app = with_commands(tauri::Builder::default())
        .plugin(tauri_plugin_single_instance::init(|app, args, cwd| {
            focus_main(app);
            if let Some(link) = links::link_in_args(&args, &cwd) {
                links::received(app, link);
            }
        }))
        .plugin(tauri_plugin_deep_link::init())
        .plugin(
            // Everything but visibility: the window is shown by `startup::show_main`.
            tauri_plugin_window_state::Builder::new()
                .with_filename(window_state.to_string_lossy())
                .with_state_flags(StateFlags::all() - StateFlags::VISIBLE)
                .build(),
        )
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_dialog::init())
        .plugin(
            tauri_plugin_global_shortcut::Builder::new()
                .with_handler(|app, _shortcut, event| {
                    if event.state() == tauri_plugin_global_shortcut::ShortcutState::Pressed {
                        desktop::quick::toggle(app);
                    }
                })
                .build(),
        )
        .plugin(tauri_plugin_autostart::init(
            tauri_plugin_autostart::MacosLauncher::LaunchAgent,
            None,
        ))
        .plugin(tauri_plugin_updater::Builder::new().build())
        .manage(desktop::Desktop::default())
        .manage(desktop::update::Updates::default())
        .on_window_event(desktop::on_window_event)
        .register_asynchronous_uri_scheme_protocol(app_frames::SCHEME, app_frames::handle)
        .on_page_load(|_webview, payload| match payload.event() {
            tauri::webview::PageLoadEvent::Started => startup::mark("page load started"),
            tauri::webview::PageLoadEvent::Finished => startup::mark("page load finished"),
        })
        .manage(commands::install::OpenedLinks::default())
        .setup(move |app| {
            startup::mark("window created");
            startup::tune_webview(app);
            show_at_latest(app.handle());
            links::listen(app.handle(), opened);
            Ok(())
        })
        .build(context)?;
    // A second launch has handed over and exited inside `build`: this process stays.
    gate.open();
    startup::mark("GTK ready");
    let engine = engine_opened(opening)?;
    startup::mark("engine ready");
    events::forward(app.handle(), &engine);
    tauri::async_runtime::block_on(desktop::start(app.handle(), &engine));
    tauri::async_runtime::block_on(desktop::update::load(app.handle(), &engine));
    desktop::update::schedule(app.handle());
    tauri::async_runtime::spawn(start_servers(engine.clone()));
    app.manage(engine.clone());
    let guard = Mutex::new(Some(guard));
    app.run(move |_app, event| {
        if let RunEvent::Exit = event {
            tauri::async_runtime::block_on(engine.shutdown());
            flush_logs(&guard);
        }
    });
    Ok(())
}

/// Waits for the engine that [`run_gui`] began opening.
fn engine_opened(
    opening: tauri::async_runtime::JoinHandle<Result<Engine, EngineError>>,
) -> Result<Engine, GuiError> {
    match tauri::async_runtime::block_on(opening) {
        Ok(opened) => Ok(opened?),
        Err(e) => Err(GuiError::Opening(e.to_string())),
    }
}

/// Starts the enabled auto-start MCP servers in the background (the window does not wait);
/// their states reach the UI as events. Then brings the knowledge bases up to date and
/// watches their folders.
async fn start_servers(engine: Engine) {
    match engine.mcp().start_servers().await {
        Ok(states) => tracing::info!(servers = states.len(), "MCP servers started"),
        Err(error) => tracing::warn!(%error, "cannot start the MCP servers"),
    }
    engine.start_backup_schedule();
    engine.start_sync_schedule();
    if let Err(error) = engine.start_knowledge().await {
        tracing::warn!(%error, "cannot bring the knowledge bases up to date");
    }
    match engine.local_server().start_if_enabled().await {
        Ok(status) if status.enabled => {
            tracing::info!(url = ?status.url, error = ?status.error, "the local server")
        }
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "cannot read the local server's settings"),
    }
}

/// Shows the main window after [`startup::SHOW_AT_LATEST`] if its page has not mounted by then
/// (a page that never mounts still gets a window, with whatever WebKit shows).
fn show_at_latest<R: Runtime>(app: &tauri::AppHandle<R>) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(startup::SHOW_AT_LATEST).await;
        if let Some(window) = app.get_webview_window("main") {
            let show = || window.show();
            startup::show_main(show, "window shown before its page mounted");
        }
    });
}

/// Brings the existing window forward when a second instance is launched.
fn focus_main<R: Runtime>(app: &tauri::AppHandle<R>) {
    tracing::info!("a second launch focused the running window");
    desktop::tray::show_main(app);
}

/// Drops the log guard so the file writer flushes its last lines.
fn flush_logs(guard: &Mutex<Option<LogGuard>>) {
    if let Ok(mut g) = guard.lock() {
        g.take();
    }
}

#[cfg(target_os = "linux")]
fn ensure_display() -> Result<(), GuiError> {
    let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
    if set("DISPLAY") || set("WAYLAND_DISPLAY") {
        Ok(())
    } else {
        Err(GuiError::NoDisplay)
    }
}

#[cfg(not(target_os = "linux"))]
fn ensure_display() -> Result<(), GuiError> {
    Ok(())
}
