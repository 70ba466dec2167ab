// Generated from the Tauri commands registered in src-tauri/src/lib.rs by tests/ipc-contract
// (`make bless` rewrites it, `cargo test -p switchboard-ipc-contract` checks it). Do not edit.
// One function per command, its arguments in one object under the keys the Rust command reads:
// the wrappers beside this file call these, so a renamed or retyped Rust argument or result
// fails `npm run check` where the UI uses it.
import type { Channel } from '@tauri-apps/api/core';
import type {
  AppCall,
  AppCallOutcome,
  AppCsp,
  AppInfo,
  Approval,
  ApprovalAnswer,
  Assistant,
  AssistantDraft,
  AssistantImport,
  Attachment,
  BackupInfo,
  BackupsOverview,
  BundleInstall,
  BundlePreview,
  CatalogueModel,
  ChatEvent,
  CheckOutcome,
  CompareBatch,
  CompareModel,
  ConnectionTest,
  ContentPart,
  Conversation,
  ConversationPatch,
  DesktopSettings,
  DesktopStatus,
  EmbedderChoice,
  ExportProgress,
  ExportRequest,
  ExportSummary,
  FilesPage,
  FilesQuery,
  ImportPreview,
  ImportReport,
  ImportResult,
  IndexReport,
  InstallOption,
  InstallPlan,
  InstallRequest,
  Installed,
  InstalledRuntime,
  InteractionAnswer,
  JsonValue,
  KnowledgeBase,
  LinkPreview,
  ListScope,
  LocalModel,
  LocalOllama,
  LocalServerStatus,
  Message,
  ModelDownloadProgress,
  ModelInfo,
  ModelPrice,
  ModelProbe,
  NewConversation,
  NewProvider,
  NewServeClient,
  Page,
  PageRequest,
  Passage,
  PreparedFile,
  Preset,
  Project,
  ProjectConversations,
  ProjectDraft,
  ProjectSummary,
  Prompt,
  PromptInfo,
  ProviderSettings,
  ProviderView,
  QuickContext,
  RegistryEntry,
  RegistryPage,
  ResourceContent,
  ResourceInfo,
  ResourceTemplateInfo,
  RootInfo,
  RuntimesOverview,
  SamplingModel,
  SearchHit,
  ServeCall,
  ServeClient,
  ServeGrant,
  ServerConfig,
  ServerLogs,
  ServerRecord,
  ServerStatus,
  Starter,
  SyncOverview,
  SyncReport,
  SyncSetup,
  ToolCost,
  ToolInfo,
  ToolResult,
  UpdatePlan,
  UpdateProgress,
  UpdateSettings,
} from '../bindings';
import { call } from './ipc';

// src-tauri/src/commands/app.rs

/**
 * Version, directories and schema version of the running app.
 *
 * Command `app_info`.
 */
export function appInfo(): Promise<AppInfo> {
  return call<AppInfo>('app_info');
}

/**
 * Opens an http(s) or mailto link from rendered content in the system browser or mail
 * client; the webview itself never navigates. Any other scheme is refused.
 *
 * Command `open_external`.
 */
export async function openExternal(args: { url: string }): Promise<void> {
  await call<null>('open_external', args);
}

/**
 * Opens a file a knowledge base indexed (a citation's source) with the system's default app;
 * any other path is refused, since the path comes from a model's tool result.
 *
 * Command `open_knowledge_file`.
 */
export async function openKnowledgeFile(args: { path: string }): Promise<void> {
  await call<null>('open_knowledge_file', args);
}

// src-tauri/src/commands/apps.rs

/**
 * Registers an App document with its declared CSP domains; returns the token its frame
 * loads (`mcpapp://localhost/<token>`). `server` (the App's) decides whether local and private
 * origins may stay in its CSP.
 *
 * Command `open_app_view`.
 */
export function openAppView(args: { html: string; csp: AppCsp; server?: string | null }): Promise<string> {
  return call<string>('open_app_view', args);
}

/**
 * Forgets an App document (its frame was unmounted).
 *
 * Command `close_app_view`.
 */
export async function closeAppView(args: { token: string }): Promise<void> {
  await call<null>('close_app_view', args);
}

/**
 * Runs an App's `tools/call` on its own server, if the App rules and the policy allow it.
 *
 * Command `app_call_tool`.
 */
export function appCallTool(args: { call: AppCall }): Promise<AppCallOutcome> {
  return call<AppCallOutcome>('app_call_tool', args);
}

// src-tauri/src/commands/artifacts.rs

/**
 * Writes `contents` to `path`, a file the user chose: an absolute path whose extension is one
 * an artifact is saved under (never a script's or a program's), at most 8 MiB.
 *
 * Command `save_artifact`.
 */
export async function saveArtifact(args: { path: string; contents: string }): Promise<void> {
  await call<null>('save_artifact', args);
}

// src-tauri/src/commands/assistants.rs

/**
 * Every assistant, by name.
 *
 * Command `list_assistants`.
 */
export function listAssistants(): Promise<Assistant[]> {
  return call<Assistant[]>('list_assistants');
}

/**
 * Creates an assistant.
 *
 * Command `create_assistant`.
 */
export function createAssistant(args: { draft: AssistantDraft }): Promise<Assistant> {
  return call<Assistant>('create_assistant', args);
}

/**
 * Replaces an assistant's fields.
 *
 * Command `update_assistant`.
 */
export function updateAssistant(args: { id: string; draft: AssistantDraft }): Promise<Assistant> {
  return call<Assistant>('update_assistant', args);
}

/**
 * Copies an assistant under a free name.
 *
 * Command `duplicate_assistant`.
 */
export function duplicateAssistant(args: { id: string }): Promise<Assistant> {
  return call<Assistant>('duplicate_assistant', args);
}

/**
 * Deletes an assistant (no longer the default if it was).
 *
 * Command `delete_assistant`.
 */
export async function deleteAssistant(args: { id: string }): Promise<void> {
  await call<null>('delete_assistant', args);
}

/**
 * The default assistant's id, if one is set.
 *
 * Command `default_assistant`.
 */
export function defaultAssistant(): Promise<string | null> {
  return call<string | null>('default_assistant');
}

/**
 * Sets (or with `null` clears) the default assistant.
 *
 * Command `set_default_assistant`.
 */
export async function setDefaultAssistant(args: { id?: string | null } = {}): Promise<void> {
  await call<null>('set_default_assistant', args);
}

/**
 * The starters shipped with the app, in every language.
 *
 * Command `assistant_starters`.
 */
export function assistantStarters(): Promise<Starter[]> {
  return call<Starter[]>('assistant_starters');
}

/**
 * Adds a starter as an assistant in language `lang`.
 *
 * Command `add_starter_assistant`.
 */
export function addStarterAssistant(args: { key: string; lang: string }): Promise<Assistant> {
  return call<Assistant>('add_starter_assistant', args);
}

/**
 * A new conversation from an assistant (id), or from the default assistant (the project's,
 * when it has one) when none is given; in project `project` (id) when given.
 *
 * Command `new_chat`.
 */
export function newChat(args: {
  assistant?: string | null;
  project?: string | null;
} = {}): Promise<Conversation> {
  return call<Conversation>('new_chat', args);
}

/**
 * Writes assistants (`ids`, or every one when empty) to a file; returns how many.
 *
 * Command `export_assistants`.
 */
export function exportAssistants(args: { ids: string[]; path: string }): Promise<number> {
  return call<number>('export_assistants', args);
}

/**
 * Imports the assistants in a file, merging by id.
 *
 * Command `import_assistants`.
 */
export function importAssistants(args: { path: string }): Promise<AssistantImport> {
  return call<AssistantImport>('import_assistants', args);
}

/**
 * Whether tools that say they only read run without asking.
 *
 * Command `auto_allow_read_only`.
 */
export function autoAllowReadOnly(): Promise<boolean> {
  return call<boolean>('auto_allow_read_only');
}

/**
 * Lets tools that say they only read run without asking, or not.
 *
 * Command `set_auto_allow_read_only`.
 */
export async function setAutoAllowReadOnly(args: { on: boolean }): Promise<void> {
  await call<null>('set_auto_allow_read_only', args);
}

/**
 * The model a provider answers with when a chat names none (chosen and kept if unset).
 *
 * Command `provider_default_model`.
 */
export function providerDefaultModel(args: { id: string }): Promise<string | null> {
  return call<string | null>('provider_default_model', args);
}

// src-tauri/src/commands/attachments.rs

/**
 * Makes the file at `path` (from the file picker) ready to send.
 *
 * Command `attach_file`.
 */
export function attachFile(args: { path: string }): Promise<PreparedFile> {
  return call<PreparedFile>('attach_file', args);
}

/**
 * Makes pasted or dropped bytes ready to send: the body is the file, the `x-file-name`
 * header its name.
 *
 * Command `attach_bytes`. It reads the raw request: `body` is sent as it is (not as JSON), with `headers`.
 */
export function attachBytes(body: Uint8Array | ArrayBuffer, headers: Record<string, string>): Promise<PreparedFile> {
  return call<PreparedFile>('attach_bytes', body, { headers });
}

/**
 * A stored image as a `data:` URL, whole or as its thumbnail.
 *
 * Command `image_url`.
 */
export function imageUrl(args: { hash: string; thumbnail: boolean }): Promise<string> {
  return call<string>('image_url', args);
}

/**
 * Whether the conversation's model can see images (`null`: not known).
 *
 * Command `image_support`.
 */
export function imageSupport(args: { conversationId: string }): Promise<boolean | null> {
  return call<boolean | null>('image_support', args);
}

/**
 * How many messages deleting `message_id` removes (itself and those under it).
 *
 * Command `message_deletion_size`.
 */
export function messageDeletionSize(args: { messageId: string }): Promise<number> {
  return call<number>('message_deletion_size', args);
}

/**
 * Deletes a message and every message under it; returns how many were deleted.
 *
 * Command `delete_message`.
 */
export function deleteMessage(args: { messageId: string }): Promise<number> {
  return call<number>('delete_message', args);
}

/**
 * The prices per model (built in, with the user's over them).
 *
 * Command `model_prices`.
 */
export function modelPrices(): Promise<Record<string, ModelPrice>> {
  return call<Record<string, ModelPrice>>('model_prices');
}

/**
 * The user's own prices (what the settings edit).
 *
 * Command `own_model_prices`.
 */
export function ownModelPrices(): Promise<Record<string, ModelPrice>> {
  return call<Record<string, ModelPrice>>('own_model_prices');
}

/**
 * Replaces the user's own prices.
 *
 * Command `set_model_prices`.
 */
export async function setModelPrices(args: { prices: Record<string, ModelPrice> }): Promise<void> {
  await call<null>('set_model_prices', args);
}

// src-tauri/src/commands/backups.rs

/**
 * The backups, the schedule, and what a restore did at this start.
 *
 * Command `backups_overview`.
 */
export function backupsOverview(): Promise<BackupsOverview> {
  return call<BackupsOverview>('backups_overview');
}

/**
 * Takes a backup now.
 *
 * Command `backup_now`.
 */
export function backupNow(): Promise<BackupInfo> {
  return call<BackupInfo>('backup_now');
}

/**
 * Has backup `name` restored at the next start, once it has passed its check.
 *
 * Command `restore_backup`.
 */
export function restoreBackup(args: { name: string }): Promise<BackupInfo> {
  return call<BackupInfo>('restore_backup', args);
}

/**
 * Forgets a scheduled restore.
 *
 * Command `cancel_restore`.
 */
export async function cancelRestore(): Promise<void> {
  await call<null>('cancel_restore');
}

/**
 * Removes backup `name`.
 *
 * Command `remove_backup`.
 */
export async function removeBackup(args: { name: string }): Promise<void> {
  await call<null>('remove_backup', args);
}

/**
 * Sets the schedule: a backup every `every_hours` hours (0: none), the newest `keep` kept.
 *
 * Command `set_backup_schedule`.
 */
export function setBackupSchedule(args: { everyHours: number; keep: number }): Promise<BackupsOverview> {
  return call<BackupsOverview>('set_backup_schedule', args);
}

// src-tauri/src/commands/chat.rs

/**
 * Sends a user message (with MCP resources and files attached, if any) and streams the
 * turn. `files` are the `image_ref` and `file` parts `attach_file`/`attach_bytes` made.
 *
 * Command `send_message`.
 */
export async function sendMessage(args: {
  conversationId: string;
  text: string;
  attachments?: Attachment[] | null;
  files?: ContentPart[] | null;
  onEvent: Channel<ChatEvent[]>;
}): Promise<void> {
  await call<null>('send_message', args);
}

/**
 * Answers the last user message again (a new branch) and streams the turn.
 *
 * Command `regenerate`.
 */
export async function regenerate(args: {
  conversationId: string;
  onEvent: Channel<ChatEvent[]>;
}): Promise<void> {
  await call<null>('regenerate', args);
}

/**
 * Sends a new version of a user message (a new branch) and streams the turn.
 *
 * Command `edit_and_resend`.
 */
export async function editAndResend(args: {
  messageId: string;
  text: string;
  onEvent: Channel<ChatEvent[]>;
}): Promise<void> {
  await call<null>('edit_and_resend', args);
}

/**
 * Stops the turn running in a conversation; false when none runs.
 *
 * Command `stop_generation`.
 */
export function stopGeneration(args: { conversationId: string }): Promise<boolean> {
  return call<boolean>('stop_generation', args);
}

/**
 * Cancels the task a tool call runs as, on its server.
 *
 * Command `cancel_task`.
 */
export async function cancelTask(args: { callId: string }): Promise<void> {
  await call<null>('cancel_task', args);
}

/**
 * Answers a tool-call approval question; false when it no longer waits.
 *
 * Command `answer_approval`.
 */
export function answerApproval(args: { approvalId: string; answer: ApprovalAnswer }): Promise<boolean> {
  return call<boolean>('answer_approval', args);
}

/**
 * The messages of the branch a conversation shows, oldest first: all of them, or with
 * `limit` a page of its last ones (with `before`, a message id, the ones just before it).
 *
 * Command `conversation_messages`.
 */
export function conversationMessages(args: {
  conversationId: string;
  before?: string | null;
  limit?: number | null;
}): Promise<Message[]> {
  return call<Message[]>('conversation_messages', args);
}

/**
 * The ids of a message and its alternatives (same parent), oldest first.
 *
 * Command `message_siblings`.
 */
export function messageSiblings(args: { messageId: string }): Promise<string[]> {
  return call<string[]>('message_siblings', args);
}

/**
 * Shows the branch through a message.
 *
 * Command `switch_branch`.
 */
export function switchBranch(args: { messageId: string }): Promise<Conversation> {
  return call<Conversation>('switch_branch', args);
}

/**
 * Changes a conversation's provider, model, system prompt or settings.
 *
 * Command `update_conversation`.
 */
export function updateConversation(args: { id: string; patch: ConversationPatch }): Promise<Conversation> {
  return call<Conversation>('update_conversation', args);
}

/**
 * Searches every message.
 *
 * Command `search_messages`.
 */
export function searchMessages(args: { query: string; page: PageRequest }): Promise<Page<SearchHit>> {
  return call<Page<SearchHit>>('search_messages', args);
}

/**
 * Each supervised server's tool count and the estimated tokens of their definitions.
 *
 * Command `tool_costs`.
 */
export function toolCosts(): Promise<ToolCost[]> {
  return call<ToolCost[]>('tool_costs');
}

// src-tauri/src/commands/compare.rs

/**
 * Sends `text` in a conversation and has every model of `models` answer it at once; returns
 * at once, the answers streaming over `on_event`. An error before any model starts reaches
 * every lane as `error` + `finished`.
 *
 * Command `compare_message`.
 */
export async function compareMessage(args: {
  conversationId: string;
  text: string;
  models: CompareModel[];
  onEvent: Channel<CompareBatch>;
}): Promise<void> {
  await call<null>('compare_message', args);
}

// src-tauri/src/commands/conversations.rs

/**
 * One page of the conversations of `scope` (default: those in no project), pinned first,
 * newest activity first.
 *
 * Command `list_conversations`.
 */
export function listConversations(args: {
  page: PageRequest;
  scope?: ListScope | null;
}): Promise<Page<Conversation>> {
  return call<Page<Conversation>>('list_conversations', args);
}

/**
 * Creates a conversation.
 *
 * Command `create_conversation`.
 */
export function createConversation(args: { input: NewConversation }): Promise<Conversation> {
  return call<Conversation>('create_conversation', args);
}

/**
 * Renames a conversation.
 *
 * Command `rename_conversation`.
 */
export function renameConversation(args: { id: string; title: string }): Promise<Conversation> {
  return call<Conversation>('rename_conversation', args);
}

/**
 * Pins or unpins a conversation.
 *
 * Command `set_conversation_pinned`.
 */
export function setConversationPinned(args: { id: string; pinned: boolean }): Promise<Conversation> {
  return call<Conversation>('set_conversation_pinned', args);
}

/**
 * Deletes a conversation and its messages.
 *
 * Command `delete_conversation`.
 */
export async function deleteConversation(args: { id: string }): Promise<void> {
  await call<null>('delete_conversation', args);
}

// src-tauri/src/commands/desktop.rs

/**
 * The desktop settings and what became of them (a shortcut another app holds, no tray).
 *
 * Command `desktop_status`.
 */
export function desktopStatus(): Promise<DesktopStatus> {
  return call<DesktopStatus>('desktop_status');
}

/**
 * Changes the desktop settings; a shortcut that cannot be taken leaves the old one.
 *
 * Command `set_desktop_settings`.
 */
export function setDesktopSettings(args: { settings: DesktopSettings }): Promise<DesktopStatus> {
  return call<DesktopStatus>('set_desktop_settings', args);
}

/**
 * Turns starting on login on or off.
 *
 * Command `set_start_on_login`.
 */
export function setStartOnLogin(args: { on: boolean }): Promise<DesktopStatus> {
  return call<DesktopStatus>('set_start_on_login', args);
}

/**
 * The text selection and the clipboard, for the quick window to offer as context.
 *
 * Command `quick_context`.
 */
export function quickContext(): Promise<QuickContext> {
  return call<QuickContext>('quick_context');
}

/**
 * Hides the quick window.
 *
 * Command `hide_quick_window`.
 */
export async function hideQuickWindow(): Promise<void> {
  await call<null>('hide_quick_window');
}

/**
 * Hides the quick window and opens conversation `conversation_id` in the main window.
 *
 * Command `open_in_main_window`.
 */
export async function openInMainWindow(args: { conversationId: string }): Promise<void> {
  await call<null>('open_in_main_window', args);
}

/**
 * The update settings and this version.
 *
 * Command `update_settings`.
 */
export function updateSettings(): Promise<UpdateSettings> {
  return call<UpdateSettings>('update_settings');
}

/**
 * Turns automatic update checks on or off.
 *
 * Command `set_update_settings`.
 */
export function setUpdateSettings(args: { settings: UpdateSettings }): Promise<UpdateSettings> {
  return call<UpdateSettings>('set_update_settings', args);
}

/**
 * Asks the update feed for a newer version.
 *
 * Command `check_for_update`.
 */
export function checkForUpdate(): Promise<CheckOutcome> {
  return call<CheckOutcome>('check_for_update');
}

/**
 * Downloads, verifies and installs the update the last check found, reporting each step on
 * `on_progress`; the new version runs after a restart.
 *
 * Command `install_update`.
 */
export function installUpdate(args: { onProgress: Channel<UpdateProgress> }): Promise<string> {
  return call<string>('install_update', args);
}

/**
 * Restarts the app (after an update was installed).
 *
 * Command `restart_app`.
 */
export async function restartApp(): Promise<void> {
  await call<null>('restart_app');
}

// src-tauri/src/commands/export.rs

/**
 * Exports conversations as the request says (format, scope, options, destination),
 * reporting progress about every 1% of the conversations on `on_progress`.
 *
 * Command `export_conversations`.
 */
export function exportConversations(args: {
  request: ExportRequest;
  onProgress: Channel<ExportProgress>;
}): Promise<ExportSummary> {
  return call<ExportSummary>('export_conversations', args);
}

/**
 * What importing the file would change, without changing anything.
 *
 * Command `preview_import`.
 */
export function previewImport(args: { path: string }): Promise<ImportResult> {
  return call<ImportResult>('preview_import', args);
}

/**
 * Imports the file, merging by id.
 *
 * Command `import_conversations`.
 */
export function importConversations(args: { path: string }): Promise<ImportResult> {
  return call<ImportResult>('import_conversations', args);
}

// src-tauri/src/commands/install.rs

/**
 * A page of the registry's latest entries matching `query`, after `cursor`.
 *
 * Command `registry_search`.
 */
export function registrySearch(args: { query: string; cursor?: string | null }): Promise<RegistryPage> {
  return call<RegistryPage>('registry_search', args);
}

/**
 * The last listing fetched (marked cached), for browsing offline.
 *
 * Command `registry_cached`.
 */
export function registryCached(): Promise<RegistryPage | null> {
  return call<RegistryPage | null>('registry_cached');
}

/**
 * The registry URL in use.
 *
 * Command `registry_url`.
 */
export function registryUrl(): Promise<string> {
  return call<string>('registry_url');
}

/**
 * Sets the registry URL (empty: the official registry).
 *
 * Command `set_registry_url`.
 */
export async function setRegistryUrl(args: { url: string }): Promise<void> {
  await call<null>('set_registry_url', args);
}

/**
 * The ways `entry` can be installed, each with its form.
 *
 * Command `registry_install_options`.
 */
export function registryInstallOptions(args: { entry: RegistryEntry }): Promise<InstallOption[]> {
  return call<InstallOption[]>('registry_install_options', args);
}

/**
 * What installing `entry` as `request` asks would save and run; saves nothing.
 *
 * Command `plan_registry_install`.
 */
export function planRegistryInstall(args: {
  entry: RegistryEntry;
  request: InstallRequest;
}): Promise<InstallPlan> {
  return call<InstallPlan>('plan_registry_install', args);
}

/**
 * Installs `entry` as `request` asks, refused unless `digest` is the digest of the plan
 * shown for it: saved, started, its tools listed.
 *
 * Command `install_from_registry`.
 */
export function installFromRegistry(args: {
  entry: RegistryEntry;
  request: InstallRequest;
  digest: string;
}): Promise<Installed> {
  return call<Installed>('install_from_registry', args);
}

/**
 * What updating server `id` to the registry's latest version would change (none: up to
 * date).
 *
 * Command `check_server_update`.
 */
export function checkServerUpdate(args: { id: string }): Promise<UpdatePlan | null> {
  return call<UpdatePlan | null>('check_server_update', args);
}

/**
 * Applies the update [`check_server_update`] showed, refused unless `digest` is the
 * digest of that update as the registry answers now.
 *
 * Command `apply_server_update`.
 */
export function applyServerUpdate(args: { id: string; digest: string }): Promise<Installed> {
  return call<Installed>('apply_server_update', args);
}

/**
 * What the bundle at `path` is and asks for, with the digest of its bytes; unpacks
 * nothing. Read on a blocking thread, never the window's.
 *
 * Command `preview_bundle`.
 */
export function previewBundle(args: { path: string }): Promise<BundlePreview> {
  return call<BundlePreview>('preview_bundle', args);
}

/**
 * Installs the bundle at `path` with the user's `request` values, refused unless its bytes
 * have the `digest` its preview showed.
 *
 * Command `install_bundle`.
 */
export function installBundle(args: {
  path: string;
  request: BundleInstall;
  digest: string;
}): Promise<Installed> {
  return call<Installed>('install_bundle', args);
}

/**
 * What install link `link` would save, for the confirmation; saves nothing.
 *
 * Command `preview_install_link`.
 */
export function previewInstallLink(args: { link: string }): Promise<LinkPreview> {
  return call<LinkPreview>('preview_install_link', args);
}

/**
 * Installs the server of `link`, after the user confirmed it and ticked each loader-style
 * variable it sets (`accepted_risky_env`, the preview's `riskyEnv`).
 *
 * Command `install_from_link`.
 */
export function installFromLink(args: {
  link: string;
  acceptedRiskyEnv?: string[] | null;
}): Promise<Installed> {
  return call<Installed>('install_from_link', args);
}

/**
 * The install links received and not yet shown, oldest first.
 *
 * Command `take_opened_links`.
 */
export function takeOpenedLinks(): Promise<string[]> {
  return call<string[]>('take_opened_links');
}

// src-tauri/src/commands/interactions.rs

/**
 * Answers a server's request `id`. An accepted URL request opens its page in the system
 * browser (only http and https URLs ever reach the user).
 *
 * Command `answer_interaction`.
 */
export async function answerInteraction(args: { id: string; answer: InteractionAnswer }): Promise<void> {
  await call<null>('answer_interaction', args);
}

/**
 * The folders advertised to servers as roots.
 *
 * Command `list_roots`.
 */
export function listRoots(): Promise<RootInfo[]> {
  return call<RootInfo[]>('list_roots');
}

/**
 * Replaces the roots (existing absolute folders) and tells the running servers.
 *
 * Command `set_roots`.
 */
export function setRoots(args: { folders: string[] }): Promise<RootInfo[]> {
  return call<RootInfo[]>('set_roots', args);
}

/**
 * The provider and model that answer sampling requests, if chosen.
 *
 * Command `sampling_model`.
 */
export function samplingModel(): Promise<SamplingModel | null> {
  return call<SamplingModel | null>('sampling_model');
}

/**
 * Chooses (or with `null` clears) the provider and model that answer sampling requests.
 *
 * Command `set_sampling_model`.
 */
export async function setSamplingModel(args: { choice?: SamplingModel | null } = {}): Promise<void> {
  await call<null>('set_sampling_model', args);
}

// src-tauri/src/commands/knowledge.rs

/**
 * Every knowledge base, by name.
 *
 * Command `list_knowledge_bases`.
 */
export function listKnowledgeBases(): Promise<KnowledgeBase[]> {
  return call<KnowledgeBase[]>('list_knowledge_bases');
}

/**
 * Creates a knowledge base over `sources` (absolute folders or files) and starts indexing it.
 *
 * Command `create_knowledge_base`.
 */
export function createKnowledgeBase(args: { name: string; sources: string[] }): Promise<KnowledgeBase> {
  return call<KnowledgeBase>('create_knowledge_base', args);
}

/**
 * Deletes a knowledge base (the files stay) and its MCP server.
 *
 * Command `delete_knowledge_base`.
 */
export async function deleteKnowledgeBase(args: { name: string }): Promise<void> {
  await call<null>('delete_knowledge_base', args);
}

/**
 * Adds a folder or file to a knowledge base and indexes it.
 *
 * Command `add_knowledge_source`.
 */
export function addKnowledgeSource(args: { name: string; source: string }): Promise<KnowledgeBase> {
  return call<KnowledgeBase>('add_knowledge_source', args);
}

/**
 * Removes a folder or file from a knowledge base.
 *
 * Command `remove_knowledge_source`.
 */
export function removeKnowledgeSource(args: { name: string; source: string }): Promise<KnowledgeBase> {
  return call<KnowledgeBase>('remove_knowledge_source', args);
}

/**
 * A page of a knowledge base's files, with their chunks and errors, and how many match.
 *
 * Command `knowledge_files`.
 */
export function knowledgeFiles(args: { name: string; query: FilesQuery }): Promise<FilesPage> {
  return call<FilesPage>('knowledge_files', args);
}

/**
 * Brings a knowledge base up to date now and says what changed.
 *
 * Command `reindex_knowledge_base`.
 */
export function reindexKnowledgeBase(args: { name: string }): Promise<IndexReport> {
  return call<IndexReport>('reindex_knowledge_base', args);
}

/**
 * The best passages of a knowledge base for a question (hybrid search).
 *
 * Command `search_knowledge_base`.
 */
export function searchKnowledgeBase(args: {
  name: string;
  query: string;
  count: number;
}): Promise<Passage[]> {
  return call<Passage[]>('search_knowledge_base', args);
}

/**
 * Chooses a knowledge base's embedder — the built-in one or a provider's embedding model
 * (checked to answer first) — and embeds every file again in the background.
 *
 * Command `set_knowledge_embedder`.
 */
export function setKnowledgeEmbedder(args: { name: string; choice: EmbedderChoice }): Promise<KnowledgeBase> {
  return call<KnowledgeBase>('set_knowledge_embedder', args);
}

// src-tauri/src/commands/local_server.rs

/**
 * Whether the local server runs, its port and address, or why it does not listen.
 *
 * Command `local_server_status`.
 */
export function localServerStatus(): Promise<LocalServerStatus> {
  return call<LocalServerStatus>('local_server_status');
}

/**
 * Switches the local server on or off on `port`, keeping both for the next launch.
 *
 * Command `set_local_server`.
 */
export function setLocalServer(args: { enabled: boolean; port: number }): Promise<LocalServerStatus> {
  return call<LocalServerStatus>('set_local_server', args);
}

/**
 * The apps allowed to use the local server, by name.
 *
 * Command `list_serve_clients`.
 */
export function listServeClients(): Promise<ServeClient[]> {
  return call<ServeClient[]>('list_serve_clients');
}

/**
 * Makes a client that may reach `servers` (`null`: every enabled server).
 *
 * Command `add_serve_client`.
 */
export function addServeClient(args: { name: string; servers?: string[] | null }): Promise<NewServeClient> {
  return call<NewServeClient>('add_serve_client', args);
}

/**
 * Sets the servers a client may reach (`null`: every enabled server).
 *
 * Command `set_serve_client_servers`.
 */
export async function setServeClientServers(args: { id: string; servers?: string[] | null }): Promise<void> {
  await call<null>('set_serve_client_servers', args);
}

/**
 * Sets the tools of each server a client may see and call (`null`: all tools of the servers
 * it reaches; a server left out keeps all its tools).
 *
 * Command `set_serve_client_tools`.
 */
export async function setServeClientTools(args: {
  id: string;
  tools?: Record<string, string[]> | null;
}): Promise<void> {
  await call<null>('set_serve_client_tools', args);
}

/**
 * Removes a client: its token stops working at once.
 *
 * Command `remove_serve_client`.
 */
export async function removeServeClient(args: { id: string }): Promise<void> {
  await call<null>('remove_serve_client', args);
}

/**
 * A client's recent calls, newest first.
 *
 * Command `serve_client_calls`.
 */
export function serveClientCalls(args: { id: string }): Promise<ServeCall[]> {
  return call<ServeCall[]>('serve_client_calls', args);
}

/**
 * The tools a client may call without asking ("always" answered in the window).
 *
 * Command `serve_client_grants`.
 */
export function serveClientGrants(args: { id: string }): Promise<ServeGrant[]> {
  return call<ServeGrant[]>('serve_client_grants', args);
}

/**
 * Takes back a client's "always" for one tool: the policy asks again.
 *
 * Command `revoke_serve_client_grant`.
 */
export async function revokeServeClientGrant(args: {
  id: string;
  server: string;
  tool: string;
}): Promise<void> {
  await call<null>('revoke_serve_client_grant', args);
}

// src-tauri/src/commands/mcp_content.rs

/**
 * The resource templates of a running server (empty when it has none).
 *
 * Command `server_resource_templates`.
 */
export function serverResourceTemplates(args: { name: string }): Promise<ResourceTemplateInfo[]> {
  return call<ResourceTemplateInfo[]>('server_resource_templates', args);
}

/**
 * Reads a resource of a running server.
 *
 * Command `read_resource`.
 */
export function readResource(args: { server: string; uri: string }): Promise<ResourceContent[]> {
  return call<ResourceContent[]>('read_resource', args);
}

/**
 * Expands a prompt of a running server with its arguments.
 *
 * Command `get_prompt`.
 */
export function getPrompt(args: {
  server: string;
  name: string;
  args: Record<string, string>;
}): Promise<Prompt> {
  return call<Prompt>('get_prompt', args);
}

// src-tauri/src/commands/models.rs

/**
 * The models in the models folder, with their GGUF facts.
 *
 * Command `list_models`, only in builds with `feature = "local"`.
 */
export function listModels(): Promise<LocalModel[]> {
  return call<LocalModel[]>('list_models');
}

/**
 * The recommended models, each with the speed to expect on this machine, the one for its
 * memory and speed marked.
 *
 * Command `model_catalogue`.
 */
export function modelCatalogue(): Promise<CatalogueModel[]> {
  return call<CatalogueModel[]>('model_catalogue');
}

/**
 * Copies the `.gguf` file at `path` into the models folder.
 *
 * Command `import_model`, only in builds with `feature = "local"`.
 */
export function importModel(args: { path: string }): Promise<LocalModel> {
  return call<LocalModel>('import_model', args);
}

/**
 * Deletes the model `name`.
 *
 * Command `remove_model`, only in builds with `feature = "local"`.
 */
export async function removeModel(args: { name: string }): Promise<void> {
  await call<null>('remove_model', args);
}

/**
 * Downloads a `.gguf` from `url` (verified against `sha256` when given), reporting progress
 * about every 1% on `on_progress`.
 *
 * Command `download_model`, only in builds with `feature = "local"`.
 */
export function downloadModel(args: {
  url: string;
  sha256?: string | null;
  onProgress: Channel<ModelDownloadProgress>;
}): Promise<LocalModel> {
  return call<LocalModel>('download_model', args);
}

/**
 * Cancels the running model downloads.
 *
 * Command `cancel_model_download`, only in builds with `feature = "local"`.
 */
export async function cancelModelDownload(): Promise<void> {
  await call<null>('cancel_model_download');
}

/**
 * Makes the model `name` the built-in provider's default (adding the provider if needed).
 *
 * Command `set_default_local_model`, only in builds with `feature = "local"`.
 */
export function setDefaultLocalModel(args: { name: string }): Promise<ProviderView> {
  return call<ProviderView>('set_default_local_model', args);
}

// src-tauri/src/commands/projects.rs

/**
 * Every project with how many conversations it holds, by name.
 *
 * Command `list_projects`.
 */
export function listProjects(): Promise<ProjectSummary[]> {
  return call<ProjectSummary[]>('list_projects');
}

/**
 * Creates a project.
 *
 * Command `create_project`.
 */
export function createProject(args: { draft: ProjectDraft }): Promise<Project> {
  return call<Project>('create_project', args);
}

/**
 * Replaces a project's fields.
 *
 * Command `update_project`.
 */
export function updateProject(args: { id: string; draft: ProjectDraft }): Promise<Project> {
  return call<Project>('update_project', args);
}

/**
 * Deletes a project, keeping its conversations outside any project or deleting them;
 * returns how many conversations were deleted.
 *
 * Command `delete_project`.
 */
export function deleteProject(args: { id: string; conversations: ProjectConversations }): Promise<number> {
  return call<number>('delete_project', args);
}

/**
 * Moves conversations into project `project` (none: out of any); returns how many moved.
 *
 * Command `move_conversations`.
 */
export function moveConversations(args: { ids: string[]; project?: string | null }): Promise<number> {
  return call<number>('move_conversations', args);
}

// src-tauri/src/commands/providers.rs

/**
 * The presets a provider can be made from.
 *
 * Command `list_presets`.
 */
export function listPresets(): Promise<Preset[]> {
  return call<Preset[]>('list_presets');
}

/**
 * Every configured provider with its key status.
 *
 * Command `list_providers`.
 */
export function listProviders(): Promise<ProviderView[]> {
  return call<ProviderView[]>('list_providers');
}

/**
 * Adds a provider; its key goes to the keychain.
 *
 * Command `add_provider`.
 */
export function addProvider(args: { input: NewProvider }): Promise<ProviderView> {
  return call<ProviderView>('add_provider', args);
}

/**
 * Sets, or with `null` forgets, a provider's key.
 *
 * Command `set_provider_key`.
 */
export function setProviderKey(args: { id: string; key?: string | null }): Promise<ProviderView> {
  return call<ProviderView>('set_provider_key', args);
}

/**
 * Replaces a provider's model settings (default model, tool modes, strict tools).
 *
 * Command `set_provider_settings`.
 */
export function setProviderSettings(args: { id: string; settings: ProviderSettings }): Promise<ProviderView> {
  return call<ProviderView>('set_provider_settings', args);
}

/**
 * Removes a provider and its key.
 *
 * Command `remove_provider`.
 */
export async function removeProvider(args: { id: string }): Promise<void> {
  await call<null>('remove_provider', args);
}

/**
 * The models a provider offers.
 *
 * Command `provider_models`.
 */
export function providerModels(args: { id: string }): Promise<ModelInfo[]> {
  return call<ModelInfo[]>('provider_models', args);
}

/**
 * Checks that a provider answers with its credentials.
 *
 * Command `test_provider`.
 */
export function testProvider(args: { id: string }): Promise<ConnectionTest> {
  return call<ConnectionTest>('test_provider', args);
}

/**
 * A local Ollama on 127.0.0.1:11434 and its models, or `null` when none answers at once.
 *
 * Command `detect_ollama`.
 */
export function detectOllama(): Promise<LocalOllama | null> {
  return call<LocalOllama | null>('detect_ollama');
}

/**
 * Probes how `model` of provider `id` calls tools (natively, only in prompt mode, not at all)
 * and keeps the result; joins the probe of that model already running. It runs on its own
 * task, bounded in time: a failure is the result `unknown` with its reason, not an error.
 *
 * Command `probe_model`.
 */
export function probeModel(args: { id: string; model: string }): Promise<ModelProbe> {
  return call<ModelProbe>('probe_model', args);
}

/**
 * What the tool-use probe last found of each probed model of provider `id`.
 *
 * Command `model_probes`.
 */
export function modelProbes(args: { id: string }): Promise<ModelProbe[]> {
  return call<ModelProbe[]>('model_probes', args);
}

// src-tauri/src/commands/runtimes.rs

/**
 * What is installed, and where runtimes come from.
 *
 * Command `runtimes_overview`.
 */
export function runtimesOverview(): Promise<RuntimesOverview> {
  return call<RuntimesOverview>('runtimes_overview');
}

/**
 * Fetches runtime `name` (`uv` or `node`) from the package index, checks it and installs it.
 *
 * Command `install_runtime`.
 */
export function installRuntime(args: { name: string }): Promise<InstalledRuntime> {
  return call<InstalledRuntime>('install_runtime', args);
}

/**
 * Removes runtime `name`.
 *
 * Command `remove_runtime`.
 */
export async function removeRuntime(args: { name: string }): Promise<void> {
  await call<null>('remove_runtime', args);
}

/**
 * Sets where runtimes and servers' `uv`, `pip` and `npm` fetch packages from and through:
 * the package index (`None`: PyPI), the npm registry and the HTTP proxy (`None`: none).
 *
 * Command `set_package_sources`.
 */
export function setPackageSources(args: {
  index?: string | null;
  npmRegistry?: string | null;
  proxy?: string | null;
} = {}): Promise<RuntimesOverview> {
  return call<RuntimesOverview>('set_package_sources', args);
}

// src-tauri/src/commands/servers.rs

/**
 * Every configured server, by name.
 *
 * Command `list_servers`.
 */
export function listServers(): Promise<ServerRecord[]> {
  return call<ServerRecord[]>('list_servers');
}

/**
 * What importing `json` would do (with `replace`, existing names are replaced); changes
 * nothing.
 *
 * Command `preview_import_servers`.
 */
export function previewImportServers(args: {
  json: string;
  replace?: boolean | null;
}): Promise<ImportPreview> {
  return call<ImportPreview>('preview_import_servers', args);
}

/**
 * Imports the servers of an `mcpServers` document, all or nothing; the enabled ones added or
 * replaced begin to start.
 *
 * Command `import_servers`.
 */
export function importServers(args: { json: string; replace: boolean }): Promise<ImportReport> {
  return call<ImportReport>('import_servers', args);
}

/**
 * Adds one server; when enabled it begins to start (its state arrives as events; a start
 * that fails is its Failed state, not this command's error).
 *
 * Command `add_server`.
 */
export function addServer(args: { input: ServerConfig }): Promise<ServerRecord> {
  return call<ServerRecord>('add_server', args);
}

/**
 * Replaces the configuration of a server (by id or name); its id stays (its tool policies
 * too, unless its command, args, URL or transport changed). A running server restarts on
 * the new configuration; a disabled one stops.
 *
 * Command `update_server`.
 */
export function updateServer(args: { id: string; input: ServerConfig }): Promise<ServerRecord> {
  return call<ServerRecord>('update_server', args);
}

/**
 * Turns a server (by id or name) on, which begins to start it, or off, which stops it.
 *
 * Command `set_server_enabled`.
 */
export function setServerEnabled(args: { id: string; enabled: boolean }): Promise<ServerRecord> {
  return call<ServerRecord>('set_server_enabled', args);
}

/**
 * Removes a server (by id or name), stopping it if it runs.
 *
 * Command `remove_server`.
 */
export async function removeServer(args: { id: string }): Promise<void> {
  await call<null>('remove_server', args);
}

/**
 * Sets, or with `null` forgets, a remote server's OAuth client secret or PEM private key
 * (kept in the keychain, never returned).
 *
 * Command `set_server_client_secret`.
 */
export async function setServerClientSecret(args: { id: string; secret?: string | null }): Promise<void> {
  await call<null>('set_server_client_secret', args);
}

/**
 * Whether a remote server has an OAuth client secret or private key stored.
 *
 * Command `server_client_secret_set`.
 */
export function serverClientSecretSet(args: { id: string }): Promise<boolean> {
  return call<boolean>('server_client_secret_set', args);
}

/**
 * Every server as an `mcpServers` JSON document; env and header values only when
 * `with_secrets` (the UI asks the user first).
 *
 * Command `export_servers`.
 */
export function exportServers(args: { withSecrets: boolean }): Promise<string> {
  return call<string>('export_servers', args);
}

// src-tauri/src/commands/servers_run.rs

/**
 * Starts a configured server (by name or id) and waits until it is ready; fails with why not.
 *
 * Command `start_server`.
 */
export async function startServer(args: { name: string }): Promise<void> {
  await call<null>('start_server', args);
}

/**
 * Stops a running server; `false` if it was not running.
 *
 * Command `stop_server`.
 */
export function stopServer(args: { name: string }): Promise<boolean> {
  return call<boolean>('stop_server', args);
}

/**
 * Stops a server if running and starts it again.
 *
 * Command `restart_server`.
 */
export async function restartServer(args: { name: string }): Promise<void> {
  await call<null>('restart_server', args);
}

/**
 * Every supervised server and its state.
 *
 * Command `server_states`.
 */
export function serverStates(): Promise<ServerStatus[]> {
  return call<ServerStatus[]>('server_states');
}

/**
 * A server's stderr lines and MCP log messages.
 *
 * Command `server_logs`.
 */
export function serverLogs(args: { name: string }): Promise<ServerLogs> {
  return call<ServerLogs>('server_logs', args);
}

/**
 * The tools of a running server.
 *
 * Command `server_tools`.
 */
export function serverTools(args: { name: string }): Promise<ToolInfo[]> {
  return call<ToolInfo[]>('server_tools', args);
}

/**
 * The resources a running server lists.
 *
 * Command `server_resources`.
 */
export function serverResources(args: { name: string }): Promise<ResourceInfo[]> {
  return call<ResourceInfo[]>('server_resources', args);
}

/**
 * The prompts a running server lists.
 *
 * Command `server_prompts`.
 */
export function serverPrompts(args: { name: string }): Promise<PromptInfo[]> {
  return call<PromptInfo[]>('server_prompts', args);
}

/**
 * Calls a tool of a running server with JSON arguments (checked against its schema).
 *
 * Command `call_tool`.
 */
export function callTool(args: { server: string; tool: string; args: JsonValue }): Promise<ToolResult> {
  return call<ToolResult>('call_tool', args);
}

/**
 * The approval policies the user set for a server's tools, by tool name.
 *
 * Command `tool_policies`.
 */
export function toolPolicies(args: { server: string }): Promise<Record<string, Approval>> {
  return call<Record<string, Approval>>('tool_policies', args);
}

/**
 * Sets (or with `null` clears) the approval policy of one tool: ask, allow or deny.
 *
 * Command `set_tool_policy`.
 */
export async function setToolPolicy(args: {
  server: string;
  tool: string;
  policy?: Approval | null;
}): Promise<void> {
  await call<null>('set_tool_policy', args);
}

// src-tauri/src/commands/sync.rs

/**
 * How sync is set up, the other devices, changes waiting, the last sync and the conflicts.
 *
 * Command `sync_overview`.
 */
export function syncOverview(): Promise<SyncOverview> {
  return call<SyncOverview>('sync_overview');
}

/**
 * Sets sync up (the folder is checked with the passphrase first) and syncs once.
 *
 * Command `sync_setup`.
 */
export function syncSetup(args: { setup: SyncSetup }): Promise<SyncReport> {
  return call<SyncReport>('sync_setup', args);
}

/**
 * Syncs now.
 *
 * Command `sync_now`.
 */
export function syncNow(): Promise<SyncReport> {
  return call<SyncReport>('sync_now');
}

/**
 * Stops syncing this machine; the data here and in the sync folder stay.
 *
 * Command `sync_off`.
 */
export async function syncOff(): Promise<void> {
  await call<null>('sync_off');
}

/**
 * Takes back what conflict `id` set aside (a new edit, synced like any other).
 *
 * Command `use_sync_conflict`.
 */
export async function useSyncConflict(args: { id: string }): Promise<void> {
  await call<null>('use_sync_conflict', args);
}

/**
 * Forgets conflict `id`.
 *
 * Command `dismiss_sync_conflict`.
 */
export async function dismissSyncConflict(args: { id: string }): Promise<void> {
  await call<null>('dismiss_sync_conflict', args);
}
