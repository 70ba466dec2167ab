// Typed wrappers around the Tauri commands. Every function rejects with an `IpcError`, never
// with anything else, so callers can rely on `{ kind, message }`.
import { Channel, invoke, type InvokeArgs } from '@tauri-apps/api/core';
import type {
  AppInfo,
  Assistant,
  AssistantDraft,
  AssistantImport,
  Starter,
  Attachment,
  ContentPart,
  ModelPrice,
  PreparedFile,
  LocalOllama,
  Prompt,
  ResourceContent,
  ResourceTemplateInfo,
  Approval,
  ApprovalAnswer,
  ChatEvent,
  ConnectionTest,
  Conversation,
  ConversationPatch,
  Message,
  ProviderView,
  SearchHit,
  ToolCost,
  ErrorKind,
  ExportProgress,
  ExportRequest,
  ExportSummary,
  ImportResult,
  ImportPreview,
  ImportReport,
  InteractionAnswer,
  PromptInfo,
  ResourceInfo,
  RootInfo,
  SamplingModel,
  ServerLogs,
  ServerStatus,
  ToolInfo,
  ToolResult,
  IpcError,
  ModelInfo,
  NewConversation,
  NewProvider,
  Page,
  PageRequest,
  Preset,
  ProviderSettings,
  ServerConfig,
  ServerRecord,
  AppCall,
  AppCallOutcome,
  AppCsp,
  CatalogueModel,
  LocalModel,
  ModelDownloadProgress,
} from './bindings';

/** Every error kind the engine can report, in the order of `ErrorKind`. */
export const ERROR_KINDS = [
  'not_found',
  'invalid_input',
  'corrupt_database',
  'database_locked',
  'newer_schema',
  'io',
  'provider_auth',
  'model_not_found',
  'rate_limited',
  'context_length_exceeded',
  'tools_unsupported',
  'provider_unavailable',
  'provider_rejected',
  'secrets',
  'internal',
] as const satisfies readonly ErrorKind[];

// Compile-time check that ERROR_KINDS lists every kind.
type MissingKinds = Exclude<ErrorKind, (typeof ERROR_KINDS)[number]>;
const allKindsListed: [MissingKinds] extends [never] ? true : MissingKinds = true;
void allKindsListed;

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && (ERROR_KINDS as readonly string[]).includes(value);
}

export function isIpcError(value: unknown): value is IpcError {
  return (
    typeof value === 'object' &&
    value !== null &&
    isErrorKind((value as { kind?: unknown }).kind) &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** Turns anything a command (or the IPC layer itself) rejected with into an `IpcError`. */
export function toIpcError(error: unknown): IpcError {
  if (isIpcError(error)) return { kind: error.kind, message: error.message };
  if (typeof error === 'object' && error !== null) {
    const { kind, message } = error as { kind?: unknown; message?: unknown };
    return {
      kind: isErrorKind(kind) ? kind : 'internal',
      message: typeof message === 'string' ? message : String(error),
    };
  }
  return { kind: 'internal', message: String(error) };
}

/** Invokes `command`; rejects with an `IpcError` (also used by `apiInstall.ts`). */
export async function call<T>(command: string, args?: InvokeArgs, options?: { headers: Record<string, string> }): Promise<T> {
  try {
    return await invoke<T>(command, args, options);
  } catch (error) {
    throw toIpcError(error);
  }
}

export function appInfo(): Promise<AppInfo> {
  return call<AppInfo>('app_info');
}

export function listConversations(page: PageRequest): Promise<Page<Conversation>> {
  return call<Page<Conversation>>('list_conversations', { page });
}

export function createConversation(input: NewConversation = {}): Promise<Conversation> {
  return call<Conversation>('create_conversation', { input });
}

export function renameConversation(id: string, title: string): Promise<Conversation> {
  return call<Conversation>('rename_conversation', { id, title });
}

export function setConversationPinned(id: string, pinned: boolean): Promise<Conversation> {
  return call<Conversation>('set_conversation_pinned', { id, pinned });
}

export async function deleteConversation(id: string): Promise<void> {
  await call<null>('delete_conversation', { id });
}

// ---- Chat ----

/** Sends a user message (with MCP resources and files attached); the turn's events arrive on
 * `onEvents` in batches. `files` are the parts `attachFile`/`attachBytes` made. */
export async function sendMessage(
  conversationId: string,
  text: string,
  onEvents: (batch: ChatEvent[]) => void,
  attachments: Attachment[] = [],
  files: ContentPart[] = [],
): Promise<void> {
  const onEvent = new Channel<ChatEvent[]>(onEvents);
  const extra = {
    ...(attachments.length ? { attachments } : {}),
    ...(files.length ? { files } : {}),
  };
  await call<null>('send_message', { conversationId, text, ...extra, onEvent });
}

// ---- Attached files and message actions ----

/** Makes the file at `path` (from the file picker) ready to send. */
export function attachFile(path: string): Promise<PreparedFile> {
  return call<PreparedFile>('attach_file', { path });
}

/** Makes pasted or dropped bytes named `name` ready to send (sent raw, not as JSON). */
export function attachBytes(name: string, bytes: Uint8Array): Promise<PreparedFile> {
  return call<PreparedFile>('attach_bytes', bytes, { headers: { 'x-file-name': encodeURIComponent(name) } });
}

/** A stored image as a `data:` URL, whole or as its thumbnail. */
export function imageUrl(hash: string, thumbnail: boolean): Promise<string> {
  return call<string>('image_url', { hash, thumbnail });
}

/** Whether the conversation's model can see images (`null`: not known). */
export function imageSupport(conversationId: string): Promise<boolean | null> {
  return call<boolean | null>('image_support', { conversationId });
}

/** How many messages deleting `messageId` removes (itself and those under it). */
export function messageDeletionSize(messageId: string): Promise<number> {
  return call<number>('message_deletion_size', { messageId });
}

/** Deletes a message and every message under it; resolves to how many were deleted. */
export function deleteMessage(messageId: string): Promise<number> {
  return call<number>('delete_message', { messageId });
}

/** The prices per model: built in, with the user's over them. */
export function modelPrices(): Promise<Record<string, ModelPrice>> {
  return call<Record<string, ModelPrice>>('model_prices');
}

/** The user's own prices per model. */
export function ownModelPrices(): Promise<Record<string, ModelPrice>> {
  return call<Record<string, ModelPrice>>('own_model_prices');
}

/** Replaces the user's own prices per model. */
export async function setModelPrices(prices: Record<string, ModelPrice>): Promise<void> {
  await call<null>('set_model_prices', { prices });
}

/** Answers the last user message again (a new branch). */
export async function regenerate(conversationId: string, onEvents: (batch: ChatEvent[]) => void): Promise<void> {
  const onEvent = new Channel<ChatEvent[]>(onEvents);
  await call<null>('regenerate', { conversationId, onEvent });
}

/** Sends a new version of a user message (a new branch). */
export async function editAndResend(
  messageId: string,
  text: string,
  onEvents: (batch: ChatEvent[]) => void,
): Promise<void> {
  const onEvent = new Channel<ChatEvent[]>(onEvents);
  await call<null>('edit_and_resend', { messageId, text, onEvent });
}

export function stopGeneration(conversationId: string): Promise<boolean> {
  return call<boolean>('stop_generation', { conversationId });
}

/** Cancels, on its server, the task tool call `callId` runs as. */
export function cancelTask(callId: string): Promise<null> {
  return call<null>('cancel_task', { callId });
}

export function answerApproval(approvalId: string, answer: ApprovalAnswer): Promise<boolean> {
  return call<boolean>('answer_approval', { approvalId, answer });
}

/** The shown branch of a conversation, oldest first: all of it, or with `page.limit` its last
 * messages (with `page.before`, a message id, the ones just before that message). */
export function conversationMessages(
  conversationId: string,
  page: { before?: string; limit?: number } = {},
): Promise<Message[]> {
  return call<Message[]>('conversation_messages', { conversationId, ...page });
}

export function messageSiblings(messageId: string): Promise<string[]> {
  return call<string[]>('message_siblings', { messageId });
}

export function switchBranch(messageId: string): Promise<Conversation> {
  return call<Conversation>('switch_branch', { messageId });
}

export function updateConversation(id: string, patch: ConversationPatch): Promise<Conversation> {
  return call<Conversation>('update_conversation', { id, patch });
}

export function searchMessages(query: string, page: PageRequest): Promise<Page<SearchHit>> {
  return call<Page<SearchHit>>('search_messages', { query, page });
}


/**
 * Opens an http(s) or mailto link in the system browser/mail client, never in the webview.
 * The shell command `open_external` is wired by the lead (tauri-plugin-opener or our own);
 * until it exists the call rejects and the caller reports the error.
 */
export async function openExternal(url: string): Promise<void> {
  if (!/^(https?:\/\/|mailto:)/i.test(url)) {
    throw { kind: 'invalid_input', message: `not an http(s) or mailto link: ${url}` } satisfies IpcError;
  }
  await call<null>('open_external', { url });
}

// MCP servers (src-tauri/src/commands/servers.rs).

export function listServers(): Promise<ServerRecord[]> {
  return call<ServerRecord[]>('list_servers');
}

/** What importing an `mcpServers` document would do; changes nothing. */
export function previewImportServers(json: string, replace: boolean): Promise<ImportPreview> {
  return call<ImportPreview>('preview_import_servers', { json, replace });
}

export function importServers(json: string, replace: boolean): Promise<ImportReport> {
  return call<ImportReport>('import_servers', { json, replace });
}

export function addServer(input: ServerConfig): Promise<ServerRecord> {
  return call<ServerRecord>('add_server', { input });
}

/** Replaces the configuration of the server with this id (its name may change). */
export function updateServer(id: string, input: ServerConfig): Promise<ServerRecord> {
  return call<ServerRecord>('update_server', { id, input });
}

export function setServerEnabled(id: string, enabled: boolean): Promise<ServerRecord> {
  return call<ServerRecord>('set_server_enabled', { id, enabled });
}

export async function removeServer(id: string): Promise<void> {
  await call<null>('remove_server', { id });
}

/** Sets (or with `null` forgets) a remote server's OAuth client secret or PEM private key. */
export async function setServerClientSecret(id: string, secret: string | null): Promise<void> {
  await call<null>('set_server_client_secret', { id, secret });
}

/** Whether a remote server has an OAuth client secret or private key in the keychain. */
export function serverClientSecretSet(id: string): Promise<boolean> {
  return call<boolean>('server_client_secret_set', { id });
}

/** Every server as an `mcpServers` JSON document. */
export function exportServers(withSecrets = false): Promise<string> {
  return call<string>('export_servers', { withSecrets });
}

// Model providers (src-tauri/src/commands/providers.rs).

export function listPresets(): Promise<Preset[]> {
  return call<Preset[]>('list_presets');
}

export function listProviders(): Promise<ProviderView[]> {
  return call<ProviderView[]>('list_providers');
}

export function addProvider(input: NewProvider): Promise<ProviderView> {
  return call<ProviderView>('add_provider', { input });
}

/** Sets, or with `null` forgets, a provider's key; only its masked status comes back. */
export function setProviderKey(id: string, key: string | null): Promise<ProviderView> {
  return call<ProviderView>('set_provider_key', { id, key });
}

export async function removeProvider(id: string): Promise<void> {
  await call<null>('remove_provider', { id });
}

export function providerModels(id: string): Promise<ModelInfo[]> {
  return call<ModelInfo[]>('provider_models', { id });
}

export function testProvider(id: string): Promise<ConnectionTest> {
  return call<ConnectionTest>('test_provider', { id });
}

/** Replaces a provider's settings: default model, tool mode per model, strict tools. */
export function setProviderSettings(id: string, settings: ProviderSettings): Promise<ProviderView> {
  return call<ProviderView>('set_provider_settings', { id, settings });
}

/** Each supervised server's tool count and the estimated tokens of their definitions. */
export function toolCosts(): Promise<ToolCost[]> {
  return call<ToolCost[]>('tool_costs');
}

// Running MCP servers (src-tauri/src/commands/servers_run.rs). `name` is a server's name or id.

/** Starts a server and resolves once it is ready (rejects with why not). */
export async function startServer(name: string): Promise<void> {
  await call<null>('start_server', { name });
}

/** Stops a server; false when it was not running. */
export function stopServer(name: string): Promise<boolean> {
  return call<boolean>('stop_server', { name });
}

export async function restartServer(name: string): Promise<void> {
  await call<null>('restart_server', { name });
}

/** Every supervised server and its state. */
export function serverStates(): Promise<ServerStatus[]> {
  return call<ServerStatus[]>('server_states');
}

/** A server's stderr lines and MCP log messages, oldest first. */
export function serverLogs(name: string): Promise<ServerLogs> {
  return call<ServerLogs>('server_logs', { name });
}

export function serverTools(name: string): Promise<ToolInfo[]> {
  return call<ToolInfo[]>('server_tools', { name });
}

export function serverResources(name: string): Promise<ResourceInfo[]> {
  return call<ResourceInfo[]>('server_resources', { name });
}

export function serverPrompts(name: string): Promise<PromptInfo[]> {
  return call<PromptInfo[]>('server_prompts', { name });
}

/** Calls a tool of a running server with JSON arguments (checked against its schema). */
export function callTool(server: string, tool: string, args: unknown): Promise<ToolResult> {
  return call<ToolResult>('call_tool', { server, tool, args });
}

// A server's requests to the user and the client capabilities (commands/interactions.rs).

/** Answers the server request `id` (an accepted URL request opens its page in the browser). */
export async function answerInteraction(id: string, answer: InteractionAnswer): Promise<void> {
  await call<null>('answer_interaction', { id, answer });
}

/** The folders advertised to servers as roots. */
export function listRoots(): Promise<RootInfo[]> {
  return call<RootInfo[]>('list_roots');
}

/** Replaces the roots (existing absolute folders); resolves with the new list. */
export function setRoots(folders: string[]): Promise<RootInfo[]> {
  return call<RootInfo[]>('set_roots', { folders });
}

/** The provider and model that answer sampling requests, if chosen. */
export function samplingModel(): Promise<SamplingModel | null> {
  return call<SamplingModel | null>('sampling_model');
}

/** Chooses, or with `null` clears, the model that answers sampling requests. */
export async function setSamplingModel(choice: SamplingModel | null): Promise<void> {
  await call<null>('set_sampling_model', { choice });
}

// ---- Export and import ----

/** Exports conversations as `request` says; progress arrives on `onProgress`. */
export function exportConversations(
  request: ExportRequest,
  onProgress: (progress: ExportProgress) => void,
): Promise<ExportSummary> {
  const channel = new Channel<ExportProgress>(onProgress);
  return call<ExportSummary>('export_conversations', { request, onProgress: channel });
}

/** What importing the file would change, without changing anything. */
export function previewImport(path: string): Promise<ImportResult> {
  return call<ImportResult>('preview_import', { path });
}

/** Imports the file, merging by conversation and message id. */
export function importConversations(path: string): Promise<ImportResult> {
  return call<ImportResult>('import_conversations', { path });
}

/** The approval policies the user set for a server's tools, by tool name. */
export function toolPolicies(server: string): Promise<Record<string, Approval>> {
  return call<Record<string, Approval>>('tool_policies', { server });
}

/** Sets (or with `null` clears) one tool's approval policy. */
export async function setToolPolicy(server: string, tool: string, policy: Approval | null): Promise<void> {
  await call<null>('set_tool_policy', { server, tool, policy });
}

// MCP content for the composer (src-tauri/src/commands/mcp_content.rs).

/** A running server's resource templates (RFC 6570 URI templates). */
export function serverResourceTemplates(name: string): Promise<ResourceTemplateInfo[]> {
  return call<ResourceTemplateInfo[]>('server_resource_templates', { name });
}

/** Reads a resource of a running server. */
export function readResource(server: string, uri: string): Promise<ResourceContent[]> {
  return call<ResourceContent[]>('read_resource', { server, uri });
}

/** Expands a prompt of a running server with its arguments. */
export function getPrompt(server: string, name: string, args: Record<string, string>): Promise<Prompt> {
  return call<Prompt>('get_prompt', { server, name, args });
}

/** A local Ollama on 127.0.0.1:11434 and its models, or null when none answers at once. */
export function detectOllama(): Promise<LocalOllama | null> {
  return call<LocalOllama | null>('detect_ollama');
}

// MCP Apps shown in tool cards (commands/apps.rs).

/** Registers an App document for its frame; resolves to the token of `mcpapp://localhost/<token>`. */
export function openAppView(html: string, csp: AppCsp, server?: string): Promise<string> {
  return call<string>('open_app_view', { html, csp, server: server ?? null });
}

/** Forgets an App document (its frame is gone). */
export async function closeAppView(token: string): Promise<void> {
  await call<null>('close_app_view', { token });
}

/** Runs an App's `tools/call` on its own server (App rules and approval policy apply). */
export function appCallTool(call_: AppCall): Promise<AppCallOutcome> {
  return call<AppCallOutcome>('app_call_tool', { call: call_ });
}

// The built-in model's models folder (commands/models.rs).

/** The models in the models folder, with their GGUF facts. */
export function listModels(): Promise<LocalModel[]> {
  return call<LocalModel[]>('list_models');
}

/** The recommended models, the one for this machine's memory marked `recommended`. */
export function modelCatalogue(): Promise<CatalogueModel[]> {
  return call<CatalogueModel[]>('model_catalogue');
}

/** Copies a `.gguf` file from disk into the models folder. */
export function importModel(path: string): Promise<LocalModel> {
  return call<LocalModel>('import_model', { path });
}

/** Deletes a model from the models folder. */
export async function removeModel(name: string): Promise<void> {
  await call<null>('remove_model', { name });
}

/** Downloads a `.gguf` from `url` (checked against `sha256` when given); progress arrives on `onProgress`. */
export function downloadModel(
  url: string,
  sha256: string | null,
  onProgress: (progress: ModelDownloadProgress) => void,
): Promise<LocalModel> {
  const channel = new Channel<ModelDownloadProgress>(onProgress);
  return call<LocalModel>('download_model', { url, sha256, onProgress: channel });
}

/** Cancels the running model downloads. */
export async function cancelModelDownload(): Promise<void> {
  await call<null>('cancel_model_download');
}

/** Makes a model the built-in provider's default (adding that provider when there is none). */
export function setDefaultLocalModel(name: string): Promise<ProviderView> {
  return call<ProviderView>('set_default_local_model', { name });
}

export function listAssistants(): Promise<Assistant[]> {
  return call<Assistant[]>('list_assistants');
}

export function createAssistant(draft: AssistantDraft): Promise<Assistant> {
  return call<Assistant>('create_assistant', { draft });
}

export function updateAssistant(id: string, draft: AssistantDraft): Promise<Assistant> {
  return call<Assistant>('update_assistant', { id, draft });
}

export function duplicateAssistant(id: string): Promise<Assistant> {
  return call<Assistant>('duplicate_assistant', { id });
}

export function deleteAssistant(id: string): Promise<void> {
  return call<void>('delete_assistant', { id });
}

export function defaultAssistant(): Promise<string | null> {
  return call<string | null>('default_assistant');
}

export function setDefaultAssistant(id: string | null): Promise<void> {
  return call<void>('set_default_assistant', { id });
}

export function assistantStarters(): Promise<Starter[]> {
  return call<Starter[]>('assistant_starters');
}

export function addStarterAssistant(key: string, lang: string): Promise<Assistant> {
  return call<Assistant>('add_starter_assistant', { key, lang });
}

/** A new conversation from an assistant, or from the default one when `assistant` is null. */
export function newChat(assistant: string | null): Promise<Conversation> {
  return call<Conversation>('new_chat', { assistant });
}

export function exportAssistants(ids: string[], path: string): Promise<number> {
  return call<number>('export_assistants', { ids, path });
}

export function importAssistants(path: string): Promise<AssistantImport> {
  return call<AssistantImport>('import_assistants', { path });
}

export function autoAllowReadOnly(): Promise<boolean> {
  return call<boolean>('auto_allow_read_only');
}

export function setAutoAllowReadOnly(on: boolean): Promise<void> {
  return call<void>('set_auto_allow_read_only', { on });
}

/** The model a provider answers with when a chat names none (chosen and kept when unset). */
export function providerDefaultModel(id: string): Promise<string | null> {
  return call<string | null>('provider_default_model', { id });
}
