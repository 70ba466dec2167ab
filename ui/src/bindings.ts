// Generated from the Rust types by `cargo test bindings` (SWITCHBOARD_BLESS=1 to rewrite). Do not edit.

/**
 * Facts about the running app, for the About panel and bug reports.
 */
export type AppInfo = { 
/**
 * Switchboard's version.
 */
version: string, 
/**
 * The data directory.
 */
dataDir: string, 
/**
 * The log directory.
 */
logDir: string, 
/**
 * The database file.
 */
database: string, 
/**
 * The database's schema version.
 */
schemaVersion: number, };

/**
 * Why a backup was taken.
 */
export type BackupReason = "scheduled" | "manual" | "beforeRestore";

/**
 * One backup in the profile's `backups` folder.
 */
export type BackupInfo = { 
/**
 * Its file name (what a restore names).
 */
name: string, 
/**
 * When it was taken (ms since the epoch).
 */
createdMs: number, 
/**
 * Why.
 */
reason: BackupReason, 
/**
 * Its size in bytes.
 */
bytes: number, 
/**
 * Whether it is the one restored at the next start.
 */
pendingRestore: boolean, };

/**
 * Settings → Backups: the backups, the schedule, and what a restore did at this start.
 */
export type BackupsOverview = { 
/**
 * The backups, newest first.
 */
backups: Array<BackupInfo>, 
/**
 * The folder they are in.
 */
folder: string, 
/**
 * Hours between scheduled backups (0: none).
 */
everyHours: number, 
/**
 * Scheduled backups kept.
 */
keep: number, 
/**
 * The backup restored at this start, if one was.
 */
restored: string | null, 
/**
 * Why a restore scheduled for this start was not done (the database was left as it was).
 */
restoreFailed: string | null, };

/**
 * Where the sync folder is.
 */
export type SyncTarget = { "kind": "webdav", 
/**
 * The folder's URL.
 */
url: string, 
/**
 * The user name, when the server asks for one.
 */
user?: string | null, } | { "kind": "folder", 
/**
 * Its path.
 */
path: string, };

/**
 * How sync is set up on this machine.
 */
export type SyncSettings = { 
/**
 * Where.
 */
target: SyncTarget, 
/**
 * Files are encrypted with a passphrase.
 */
encrypted: boolean, 
/**
 * Minutes between syncs while the app runs (0: only when asked).
 */
everyMinutes: number, 
/**
 * Seconds a WebDAV request may take.
 */
timeoutSecs: number, };

/**
 * What the user enters to set sync up.
 */
export type SyncSetup = { 
/**
 * Where.
 */
target: SyncTarget, 
/**
 * The WebDAV password (kept in the secret store).
 */
password: string | null, 
/**
 * The passphrase that encrypts the files (kept in the secret store); none: not
 * encrypted.
 */
passphrase: string | null, 
/**
 * Minutes between syncs while the app runs.
 */
everyMinutes: number | null, 
/**
 * Seconds a WebDAV request may take.
 */
timeoutSecs: number | null, };

/**
 * What one sync did and what it cost.
 */
export type SyncReport = { 
/**
 * Records written here from other devices.
 */
pulled: number, 
/**
 * Records sent.
 */
pushed: number, 
/**
 * Real conflicts found (both sides kept).
 */
conflicts: number, 
/**
 * Records still waiting for their conversation or parent.
 */
waiting: number, 
/**
 * Batches read.
 */
batchesIn: number, 
/**
 * Batches written.
 */
batchesOut: number, 
/**
 * Bytes sent (request bodies).
 */
bytesUp: number, 
/**
 * Bytes received (response bodies).
 */
bytesDown: number, 
/**
 * Requests made.
 */
requests: number, 
/**
 * How long it took.
 */
millis: number, };

/**
 * Another device seen in the sync folder.
 */
export type SyncPeer = { 
/**
 * Its id.
 */
device: string, 
/**
 * Its name, as it gives it.
 */
name: string, 
/**
 * How many of its batches this device has applied.
 */
applied: number, };

/**
 * A conflict a sync resolved, with what it set aside.
 */
export type SyncConflict = { 
/**
 * The conflict's id.
 */
id: string, 
/**
 * The record's kind: `conversation`, `message`, `assistant`, `project` or `setting`.
 */
kind: string, 
/**
 * The record's id (a setting's key).
 */
recordId: string, 
/**
 * The record's title or name when the conflict was found.
 */
label: string, 
/**
 * The values set aside, field by field (empty when the other side deleted the record).
 */
other: Record<string, unknown>, 
/**
 * The device whose change was set aside.
 */
otherDevice: string, 
/**
 * The change set aside was a deletion: the record was kept because it was edited.
 */
deleted: boolean, 
/**
 * When it was found (Unix ms).
 */
at: number, };

/**
 * Settings → Sync.
 */
export type SyncOverview = { 
/**
 * How sync is set up; none: it is not.
 */
settings: SyncSettings | null, 
/**
 * This device's id.
 */
device: string, 
/**
 * This device's name, as the others show it.
 */
deviceName: string, 
/**
 * When the last sync ended (Unix ms).
 */
lastSync: number | null, 
/**
 * Changes waiting to go out.
 */
pending: number, 
/**
 * What the last sync of this run did.
 */
lastReport: SyncReport | null, 
/**
 * Why the last sync of this run failed.
 */
lastError: string | null, 
/**
 * The other devices seen.
 */
peers: Array<SyncPeer>, 
/**
 * Conflicts kept for the user.
 */
conflicts: Array<SyncConflict>, };

/**
 * A runtime Switchboard can bring.
 */
export type Runtime = "uv" | "node";

/**
 * One runtime installed here.
 */
export type InstalledRuntime = { 
/**
 * Which.
 */
runtime: Runtime, 
/**
 * Its version (the wheel's).
 */
version: string, 
/**
 * The wheel it came from.
 */
source: string, 
/**
 * The wheel's SHA-256, as the index gave it and as checked.
 */
sha256: string, 
/**
 * The wheel's size in bytes.
 */
bytes: number, 
/**
 * Its `bin` folder.
 */
bin: string, };

/**
 * Settings → General → Runtimes: what is installed and where runtimes come from.
 */
export type RuntimesOverview = { 
/**
 * The runtimes installed.
 */
installed: Array<InstalledRuntime>, 
/**
 * The package index they come from.
 */
index: string, 
/**
 * The npm registry servers use, when set.
 */
npmRegistry: string | null, 
/**
 * The HTTP proxy servers use, when set.
 */
proxy: string | null, 
/**
 * Their folder.
 */
folder: string, };

/**
 * A stable, serializable classification of an error; the UI translates by kind.
 */
export type ErrorKind = "not_found" | "invalid_input" | "corrupt_database" | "database_locked" | "newer_schema" | "io" | "provider_auth" | "model_not_found" | "rate_limited" | "context_length_exceeded" | "tools_unsupported" | "provider_unavailable" | "provider_rejected" | "secrets" | "internal";

/**
 * The one error every IPC command can return.
 */
export type IpcError = { 
/**
 * What kind of failure this is; stable across versions.
 */
kind: ErrorKind, 
/**
 * A specific, human-readable explanation (English; the UI adds a translated heading).
 */
message: string, };

/**
 * Which page to fetch: at most `limit` rows after `cursor` (from the previous page).
 */
export type PageRequest = { 
/**
 * Rows wanted; clamped to 1..=500, 50 when zero.
 */
limit: number, 
/**
 * The `nextCursor` of the previous page; none for the first page.
 */
cursor?: string, };

/**
 * One page of rows and the cursor for the next, if there is one.
 */
export type Page<T> = { 
/**
 * The rows, in the listing's order.
 */
items: Array<T>, 
/**
 * Pass this back to get the next page; none when this is the last.
 */
nextCursor: string | null, };

/**
 * A conversation as the UI and CLI see it.
 */
export type Conversation = { 
/**
 * Time-ordered id (UUIDv7).
 */
id: string, 
/**
 * The title; empty until the user or the auto-titler sets one.
 */
title: string, 
/**
 * Creation time, Unix milliseconds.
 */
createdAt: number, 
/**
 * Last activity, Unix milliseconds.
 */
updatedAt: number, 
/**
 * Pinned conversations list first.
 */
pinned: boolean, 
/**
 * Archived conversations are hidden from the main list.
 */
archived: boolean, 
/**
 * The provider chosen for this conversation, if any.
 */
providerId: string | null, 
/**
 * The model chosen for this conversation, if any.
 */
model: string | null, 
/**
 * The system prompt of this conversation, if any.
 */
systemPrompt: string | null, 
/**
 * Further per-conversation settings (enabled servers, tool mode, …).
 */
settings: JsonValue, 
/**
 * The last message of the branch shown; none before the first message.
 */
headId: string | null, 
/**
 * The project it belongs to, if any.
 */
projectId?: string, };

/**
 * What a new conversation starts with.
 */
export type NewConversation = { 
/**
 * The title; empty when not given.
 */
title?: string, 
/**
 * The provider to use.
 */
providerId?: string, 
/**
 * The model to use.
 */
model?: string, 
/**
 * The system prompt.
 */
systemPrompt?: string, 
/**
 * The project (id) it belongs to.
 */
projectId?: string, };

/**
 * Which conversations a listing holds.
 */
export type ListScope = "all" | "unfiled" | { "project": string };

/**
 * One model of a side-by-side turn.
 */
export type CompareModel = { 
/**
 * The provider (id).
 */
providerId: string, 
/**
 * The model; the provider's default when empty.
 */
model: string, };

/**
 * A batch of one compared model's events.
 */
export type CompareBatch = { 
/**
 * The model's place in the list the compare was asked with, from 0.
 */
lane: number, 
/**
 * Its events, as a turn's.
 */
events: Array<ChatEvent>, };

/**
 * What the user chose for the app on this machine.
 */
export type DesktopSettings = { 
/**
 * The global shortcut that opens the quick window (`Ctrl+Alt+Space`); empty: none.
 */
shortcut: string, 
/**
 * Whether the tray icon is shown.
 */
tray: boolean, 
/**
 * Whether closing the main window keeps the app running in the tray.
 */
closeToTray: boolean, };

/**
 * The settings and what became of them on this desktop.
 */
export type DesktopStatus = { 
/**
 * The settings in effect (a shortcut that could not be taken is not among them).
 */
settings: DesktopSettings, 
/**
 * Why the last shortcut asked for is not in effect, if it is not.
 */
shortcutError: string | null, 
/**
 * Whether this desktop shows tray icons; when not, why (the app works without).
 */
trayNote: string | null, 
/**
 * Whether the app starts when the user logs in.
 */
startOnLogin: boolean, 
/**
 * Why starting on login cannot be read or changed here, if it cannot.
 */
startOnLoginError: string | null, };

/**
 * Text the quick window can add to a question, each only when the user picks it.
 */
export type QuickContext = { 
/**
 * The current text selection (X11's PRIMARY selection), if any.
 */
selection: string | null, 
/**
 * The clipboard's text, if any.
 */
clipboard: string | null, };

/**
 * What the user chose for updates.
 */
export type UpdateSettings = { 
/**
 * Check at start and once a day.
 */
automatic: boolean, };

/**
 * A newer version the feed offers.
 */
export type AvailableUpdate = { 
/**
 * Its version.
 */
version: string, 
/**
 * Its release notes (plain text or Markdown, shown as text).
 */
notes: string | null, 
/**
 * When it was published (RFC 3339), if said.
 */
date: string | null, };

/**
 * What a check found.
 */
export type CheckOutcome = { "type": "available", 
/**
 * Which.
 */
update: AvailableUpdate, } | { "type": "upToDate", 
/**
 * This version.
 */
current: string, 
/**
 * The feed's version, when it named one.
 */
offered: string | null, };

/**
 * A step of an install, sent to the window as it happens.
 */
export type UpdateProgress = { "type": "downloading", 
/**
 * Received so far.
 */
received: number, 
/**
 * The whole download, when known.
 */
total: number | null, } | { "type": "installing" } | { "type": "installed", 
/**
 * The version installed.
 */
version: string, };

/**
 * A stored project.
 */
export type Project = { 
/**
 * Time-ordered id.
 */
id: string, 
/**
 * Its name, unique regardless of case.
 */
name: string, 
/**
 * An emoji shown beside the name (may be empty).
 */
icon: string, 
/**
 * Given to the model before each conversation's own system prompt (may be empty).
 */
instructions: string, 
/**
 * The assistant (id) new conversations in it start from; the default assistant when absent.
 */
assistantId: string | null, 
/**
 * The MCP servers new conversations in it use; the assistant's choice when absent.
 */
servers: Array<string> | null, 
/**
 * Creation time, Unix milliseconds.
 */
createdAt: number, 
/**
 * Last change, Unix milliseconds.
 */
updatedAt: number, };

/**
 * What a project is made of, to create one or replace one's fields.
 */
export type ProjectDraft = { 
/**
 * Its name.
 */
name: string, 
/**
 * An emoji.
 */
icon: string, 
/**
 * Instructions for every conversation in it.
 */
instructions: string, 
/**
 * The default assistant (id).
 */
assistantId?: string, 
/**
 * The MCP servers of its new conversations.
 */
servers?: Array<string>, };

/**
 * A project in the sidebar: the project and how many conversations (not archived) it holds.
 */
export type ProjectSummary = { 
/**
 * The project.
 */
project: Project, 
/**
 * Its conversations that are not archived.
 */
conversations: number, };

/**
 * What happens to a deleted project's conversations.
 */
export type ProjectConversations = "keep" | "delete";

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

/**
 * The wire formats Switchboard speaks.
 */
export type ProviderKind = "openai" | "ollama" | "anthropic" | "gemini" | "dashscope" | "local";

/**
 * A ready-made provider configuration.
 */
export type Preset = { 
/**
 * Stable id, e.g. `ollama`.
 */
id: string, 
/**
 * Display name.
 */
name: string, 
/**
 * The wire format.
 */
kind: ProviderKind, 
/**
 * The default base URL; empty when the user must give one.
 */
baseUrl: string, 
/**
 * The environment variable honoured for the key, if any.
 */
keyEnv: string | null, 
/**
 * Whether the provider refuses requests without a key.
 */
needsKey: boolean, };

/**
 * How tools reach a model.
 */
export type ToolMode = "native" | "prompt" | "auto";

/**
 * Per-provider settings kept as JSON.
 */
export type ProviderSettings = { 
/**
 * The preset it was made from.
 */
preset?: string, 
/**
 * The environment variable honoured for its key.
 */
keyEnv?: string, 
/**
 * The model used when a conversation names none.
 */
defaultModel?: string, 
/**
 * Tool mode per model id (absent: auto).
 */
toolModes: { [key in string]: ToolMode }, 
/**
 * Send tools in OpenAI strict mode when their schema allows it.
 */
strictTools: boolean, };

/**
 * A configured provider.
 */
export type ProviderRecord = { 
/**
 * Time-ordered id.
 */
id: string, 
/**
 * Unique display name, also used on the command line.
 */
name: string, 
/**
 * The wire format.
 */
kind: ProviderKind, 
/**
 * The base URL.
 */
baseUrl: string, 
/**
 * Extra headers sent with every request.
 */
headers: { [key in string]: string }, 
/**
 * Settings.
 */
settings: ProviderSettings, 
/**
 * Creation time, Unix milliseconds.
 */
createdAt: number, 
/**
 * Last change, Unix milliseconds.
 */
updatedAt: number, };

/**
 * Where a key came from.
 */
export type KeySource = "env" | "store";

/**
 * Whether a provider has a key, and where from; the key itself never leaves the engine.
 */
export type KeyStatus = { 
/**
 * Where the key comes from, if there is one.
 */
source: KeySource | null, 
/**
 * The last four characters, e.g. `••••1a2b`.
 */
masked: string | null, };

/**
 * A provider as the UI and CLI see it.
 */
export type ProviderView = { 
/**
 * The stored configuration.
 */
provider: ProviderRecord, 
/**
 * Its key's status.
 */
key: KeyStatus, };

/**
 * What the user fills in to add a provider.
 */
export type NewProvider = { 
/**
 * Unique display name.
 */
name: string, 
/**
 * A preset id (see `list_presets`).
 */
preset: string, 
/**
 * The base URL; the preset's when absent.
 */
baseUrl?: string, 
/**
 * The API key, stored in the keychain (never returned).
 */
apiKey?: string, 
/**
 * Extra headers.
 */
headers: { [key in string]: string }, };

/**
 * A model a provider offers.
 */
export type ModelInfo = { 
/**
 * The id to send in requests.
 */
id: string, 
/**
 * A display name, when the provider gives one.
 */
name: string | null, };

/**
 * The outcome of "test connection".
 */
export type ConnectionTest = { 
/**
 * How many models the provider listed.
 */
models: number, 
/**
 * Round-trip time, milliseconds.
 */
latencyMs: number, };

/**
 * How a model calls tools, as the probe found.
 */
export type ToolSupport = "native" | "prompt" | "none" | "unknown";

/**
 * One probe's result for one model of one provider.
 */
export type ModelProbe = { 
/**
 * The provider's id.
 */
providerId: string, 
/**
 * The model id as the provider knows it.
 */
model: string, 
/**
 * What the probe found.
 */
support: ToolSupport, 
/**
 * What it saw, in words: the error when `unknown`, else how the call came.
 */
note: string | null, 
/**
 * How long the probe took, milliseconds.
 */
durationMs: number, 
/**
 * When it ran, Unix milliseconds.
 */
checkedAt: number, };

/**
 * How to reach a server.
 */
export type Transport = { "type": "stdio", 
/**
 * The program (resolved on the login shell's PATH).
 */
command: string, 
/**
 * Its arguments.
 */
args: Array<string>, 
/**
 * Extra environment variables (values may be secrets: never logged or exported).
 */
env: { [key in string]: string }, 
/**
 * The working directory.
 */
cwd?: string, } | { "type": "http", 
/**
 * The endpoint, e.g. `http://127.0.0.1:3001/mcp`.
 */
url: string, 
/**
 * Extra headers (values may be secrets).
 */
headers: { [key in string]: string }, } | { "type": "sse", 
/**
 * The SSE endpoint, e.g. `http://127.0.0.1:3001/sse`.
 */
url: string, 
/**
 * Extra headers (values may be secrets).
 */
headers: { [key in string]: string }, } | { "type": "builtin", 
/**
 * Which one: `time`, `fetch`, `filesystem` or `web`.
 */
server: string, 
/**
 * `fetch`, `web`: allow private, loopback and link-local addresses.
 */
allowPrivate: boolean, 
/**
 * `filesystem`: the folders it may touch; none means the user's roots.
 */
folders: Array<string>, 
/**
 * `web`: its keys (names ending in `_KEY`), kept like a stdio server's env: the values
 * in the keychain, blank in the database, masked for the UI.
 */
env: { [key in string]: string }, 
/**
 * `web`: its other settings (the search provider, its URL), kept in the database.
 */
settings: { [key in string]: string }, };

/**
 * What happens to a call of one of the server's tools when no per-tool policy says otherwise.
 */
export type Approval = "ask" | "allow" | "deny";

/**
 * How we obtain tokens.
 */
export type OAuthGrant = "authorization_code" | "client_credentials";

/**
 * The algorithms a `private_key_jwt` assertion may be signed with.
 */
export type JwtAlgorithm = "RS256" | "RS384" | "RS512" | "ES256" | "ES384";

/**
 * A remote server's OAuth client settings (all optional; the default registers dynamically).
 */
export type OAuthClient = { 
/**
 * A client id registered with the authorization server beforehand.
 */
clientId?: string, 
/**
 * The HTTPS URL of our Client ID Metadata Document.
 */
clientMetadataUrl?: string, 
/**
 * How tokens are obtained.
 */
grant?: OAuthGrant, 
/**
 * Scopes to request with the client-credentials grant.
 */
scopes?: Array<string>, 
/**
 * Sign a `private_key_jwt` assertion with this algorithm (client credentials only).
 */
signingAlgorithm?: JwtAlgorithm, };

/**
 * One configured MCP server.
 */
export type ServerConfig = { 
/**
 * Unique name (the `mcpServers` key), 1 to 64 characters.
 */
name: string, 
/**
 * How to reach it.
 */
transport: Transport, 
/**
 * Whether it is used at all (`"disabled": true` in the file when not).
 */
enabled: boolean, 
/**
 * How long start-up may take (`startupTimeoutMs`).
 */
startupTimeoutMs: number, 
/**
 * The default timeout of one tool call (`callTimeoutMs`).
 */
callTimeoutMs: number, 
/**
 * Whether it starts with the app (when enabled).
 */
autoStart: boolean, 
/**
 * The default approval policy of its tools.
 */
approval: Approval, 
/**
 * Remote servers: their OAuth client settings (`oauth`; none: dynamic registration).
 */
oauth?: OAuthClient, 
/**
 * Stdio servers: variables of the app's environment passed on beyond the platform
 * allow-list, by name (`inheritEnv`; provider keys never are).
 */
inheritEnv?: Array<string>, 
/**
 * Whether the server may reach local and private addresses (`allowPrivate`): its Apps'
 * declared origins and the OAuth endpoints it names. Built-in `fetch` keeps its own flag.
 */
allowPrivate?: boolean, 
/**
 * Where it was installed from (the MCP Registry or a bundle), when it was: what an
 * update or an uninstall works from. None for a server typed or imported by hand.
 */
source?: ServerSource, };

/**
 * A configured MCP server as stored.
 */
export type ServerRecord = { 
/**
 * Time-ordered id.
 */
id: string, 
/**
 * The configuration.
 */
config: ServerConfig, 
/**
 * Creation time, Unix milliseconds.
 */
createdAt: number, 
/**
 * Last change, Unix milliseconds.
 */
updatedAt: number, };

/**
 * The outcome of an import, by server name in document order.
 */
export type ImportReport = { 
/**
 * New servers.
 */
added: Array<string>, 
/**
 * Names that already existed and were left as they were.
 */
skipped: Array<string>, 
/**
 * Names that already existed and were replaced (only with [`Conflict::Replace`]).
 */
replaced: Array<string>, };

/**
 * What an import will do with one entry.
 */
export type ImportAction = "add" | "skip" | "replace";

/**
 * One security-relevant field of a previewed server.
 */
export type TrustNote = { 
/**
 * The field as written in the `mcpServers` document, e.g. `approval`, `allowPrivate`.
 */
field: string, 
/**
 * Its value (names only for env, headers and inherited variables).
 */
value: string, 
/**
 * Whether it gives the server more than the defaults (tools run unasked, private
 * addresses, files, inherited variables).
 */
widens: boolean, };

/**
 * One entry of an import preview.
 */
export type PreviewEntry = { 
/**
 * The server's name.
 */
name: string, 
/**
 * What the import will do with it.
 */
action: ImportAction, 
/**
 * Whether it will be enabled.
 */
enabled: boolean, 
/**
 * Its command line (env values masked) or URL and transport.
 */
commandLine: string, 
/**
 * Its security-relevant fields (approval, private addresses, folders, env and header
 * names, …), each marked when it widens trust.
 */
trust: Array<TrustNote>, };

/**
 * What an import would do, without doing it.
 */
export type ImportPreview = { 
/**
 * The report the import would give.
 */
report: ImportReport, 
/**
 * Each entry, in document order.
 */
entries: Array<PreviewEntry>, };

/**
 * Where an installed server came from.
 */
export type ServerSource = { "kind": "registry", 
/**
 * The registry's base URL.
 */
registry: string, 
/**
 * The entry's name, e.g. `io.github.user/weather`.
 */
name: string, 
/**
 * The version installed.
 */
version: string, 
/**
 * Which of the entry's ways to run it: `package:N` or `remote:N` (its index).
 */
option: string, 
/**
 * The non-secret values given for its arguments (secrets stay in the keychain).
 */
inputs?: { [key in string]: string }, } | { "kind": "bundle", 
/**
 * The manifest's name.
 */
name: string, 
/**
 * The manifest's version.
 */
version: string, 
/**
 * The folder it was unpacked into.
 */
dir: string, };

/**
 * A source repository.
 */
export type Repository = { 
/**
 * Its URL.
 */
url: string, 
/**
 * Where it is hosted (`github`…).
 */
source: string, };

/**
 * A value the user may give: its description, whether it is required or secret, its
 * default and choices. `value`, when set, is fixed (not asked).
 */
export type Input = { 
/**
 * What it is.
 */
description?: string, 
/**
 * It must be given.
 */
isRequired: boolean, 
/**
 * It is a secret (to the keychain, masked).
 */
isSecret: boolean, 
/**
 * `string`, `number`, `boolean` or `filepath`.
 */
format?: string, 
/**
 * A fixed value (may contain `{variables}`).
 */
value?: string, 
/**
 * The default.
 */
default?: string, 
/**
 * A hint shown in an empty field.
 */
placeholder?: string, 
/**
 * The only values allowed, when given.
 */
choices: Array<string>, 
/**
 * Values for the `{variables}` of `value`.
 */
variables: { [key in string]: Input }, };

/**
 * An environment variable or a header.
 */
export type KeyValueInput = { 
/**
 * The variable's or header's name.
 */
name: string, 
/**
 * What it is.
 */
description?: string, 
/**
 * It must be given.
 */
isRequired: boolean, 
/**
 * It is a secret (to the keychain, masked).
 */
isSecret: boolean, 
/**
 * `string`, `number`, `boolean` or `filepath`.
 */
format?: string, 
/**
 * A fixed value (may contain `{variables}`).
 */
value?: string, 
/**
 * The default.
 */
default?: string, 
/**
 * A hint shown in an empty field.
 */
placeholder?: string, 
/**
 * The only values allowed, when given.
 */
choices: Array<string>, 
/**
 * Values for the `{variables}` of `value`.
 */
variables: { [key in string]: Input }, };

/**
 * A command-line argument: `positional` (a value) or `named` (`--flag value`).
 */
export type Argument = { 
/**
 * `positional` or `named`.
 */
type: string, 
/**
 * A named argument's flag, e.g. `--port`.
 */
name?: string, 
/**
 * A positional argument's label.
 */
valueHint?: string, 
/**
 * It may be given more than once.
 */
isRepeated: boolean, 
/**
 * What it is.
 */
description?: string, 
/**
 * It must be given.
 */
isRequired: boolean, 
/**
 * It is a secret (to the keychain, masked).
 */
isSecret: boolean, 
/**
 * `string`, `number`, `boolean` or `filepath`.
 */
format?: string, 
/**
 * A fixed value (may contain `{variables}`).
 */
value?: string, 
/**
 * The default.
 */
default?: string, 
/**
 * A hint shown in an empty field.
 */
placeholder?: string, 
/**
 * The only values allowed, when given.
 */
choices: Array<string>, 
/**
 * Values for the `{variables}` of `value`.
 */
variables: { [key in string]: Input }, };

/**
 * A package's transport: `stdio`, or HTTP on a URL (a template over its inputs).
 */
export type PackageTransport = { 
/**
 * `stdio`, `streamable-http` or `sse`.
 */
type: string, 
/**
 * The URL of an HTTP transport.
 */
url?: string, };

/**
 * A package of an entry.
 */
export type Package = { 
/**
 * `npm`, `pypi`, `oci`, `nuget`, `mcpb`.
 */
registryType: string, 
/**
 * The package name, image or download URL.
 */
identifier: string, 
/**
 * The package's version.
 */
version?: string, 
/**
 * The runner to use (`npx`, `uvx`, `docker`, `dnx`).
 */
runtimeHint?: string, 
/**
 * How the running package is reached (stdio unless said).
 */
transport?: PackageTransport, 
/**
 * Arguments for the runner (before the package).
 */
runtimeArguments: Array<Argument>, 
/**
 * Arguments for the package (after it).
 */
packageArguments: Array<Argument>, 
/**
 * Environment variables it reads.
 */
environmentVariables: Array<KeyValueInput>, 
/**
 * SHA-256 of an MCPB download.
 */
fileSha256?: string, };

/**
 * A remote endpoint of an entry.
 */
export type RemoteTransport = { 
/**
 * `streamable-http` or `sse`.
 */
type: string, 
/**
 * Its URL.
 */
url: string, 
/**
 * Headers it needs.
 */
headers: Array<KeyValueInput>, };

/**
 * One server of a registry listing (the latest version unless asked otherwise).
 */
export type RegistryEntry = { 
/**
 * Reverse-DNS name, e.g. `io.github.user/weather`.
 */
name: string, 
/**
 * A display title, when the publisher gave one.
 */
title?: string, 
/**
 * What it does.
 */
description: string, 
/**
 * The version this entry describes.
 */
version: string, 
/**
 * Its source repository.
 */
repository?: Repository, 
/**
 * Its homepage.
 */
websiteUrl?: string, 
/**
 * Packages to run locally (npm, PyPI, OCI, MCPB…).
 */
packages: Array<Package>, 
/**
 * Remote endpoints.
 */
remotes: Array<RemoteTransport>, 
/**
 * The registry's status for it (`active`, `deprecated`…), from the listing's `_meta`.
 */
status?: string, };

/**
 * One page of a registry listing.
 */
export type RegistryPage = { 
/**
 * The registry asked.
 */
registry: string, 
/**
 * The search text (empty: the whole listing).
 */
query: string, 
/**
 * The entries, in the registry's order.
 */
entries: Array<RegistryEntry>, 
/**
 * The cursor of the next page; none at the end.
 */
nextCursor?: string, 
/**
 * Read from the cache (offline) rather than the registry just now.
 */
cached: boolean, 
/**
 * When it was fetched, Unix milliseconds.
 */
fetchedAt: number, };

/**
 * One value the install form asks for.
 */
export type FormField = { 
/**
 * The key its value is given under (the variable, header or argument name).
 */
key: string, 
/**
 * `env`, `header` or `argument`.
 */
target: string, 
/**
 * What it is.
 */
description?: string, 
/**
 * It must be given (or have a default).
 */
required: boolean, 
/**
 * A secret: typed masked, kept in the keychain.
 */
secret: boolean, 
/**
 * The default value.
 */
default?: string, 
/**
 * The only values allowed, when not empty.
 */
choices: Array<string>, 
/**
 * `string`, `number`, `boolean` or `filepath`.
 */
format?: string, 
/**
 * A hint for an empty field.
 */
placeholder?: string, };

/**
 * One way to run an entry: a package or a remote, with its form.
 */
export type InstallOption = { 
/**
 * `package:N` or `remote:N`.
 */
id: string, 
/**
 * e.g. `npm @modelcontextprotocol/server-everything 2026.8.31` or `sse https://…`.
 */
label: string, 
/**
 * The program it runs with (`npx`, `uvx`, `docker`); none for a remote.
 */
runtime?: string, 
/**
 * Why it cannot be installed here, when it cannot.
 */
unsupported?: string, 
/**
 * The values it asks for.
 */
fields: Array<FormField>, };

/**
 * What the user asks to install.
 */
export type InstallRequest = { 
/**
 * Which option (`package:N`, `remote:N`); none: the first that can be installed.
 */
option?: string, 
/**
 * The configured server's name; none: from the entry's name.
 */
serverName?: string, 
/**
 * Values by field key.
 */
values: { [key in string]: string }, };

/**
 * Whether the program a server runs with is there.
 */
export type RuntimeCheck = { 
/**
 * The program, e.g. `npx`.
 */
program: string, 
/**
 * Where it was found on the PATH; none: missing.
 */
found?: string, 
/**
 * What to install when it is missing.
 */
hint: string, };

/**
 * What an install will save and run, shown before anything is saved: the entry's own values
 * as they are, the values the user typed masked.
 */
export type InstallPlan = { 
/**
 * The configured server's name.
 */
serverName: string, 
/**
 * The command line (the entry's env values shown, typed ones masked) or the URL and
 * transport.
 */
commandLine: string, 
/**
 * The program run (stdio), e.g. `npx`.
 */
command?: string, 
/**
 * Its arguments, exactly.
 */
args: Array<string>, 
/**
 * The environment variables it gets, by name.
 */
envNames: Array<string>, 
/**
 * The environment variables it gets with their values: the entry's own (fixed or default)
 * as they are, the ones the user typed masked.
 */
env: { [key in string]: string }, 
/**
 * The remote URL.
 */
url?: string, 
/**
 * The headers sent, by name.
 */
headerNames: Array<string>, 
/**
 * The headers sent with their values: the entry's own as they are, typed ones masked.
 */
headers: { [key in string]: string }, 
/**
 * The program it needs and whether it is there (stdio).
 */
runtime?: RuntimeCheck, 
/**
 * The configuration that will be saved (the entry's values shown, typed ones masked).
 */
config: ServerConfig, 
/**
 * The digest of what is shown ([`crate::mcp::install::digest`]): install takes it back
 * and refuses when what it would save has another.
 */
digest: string, };

/**
 * What updating an installed registry server changes, shown before it is applied.
 */
export type UpdatePlan = { 
/**
 * The configured server's name.
 */
server: string, 
/**
 * The registry entry's name.
 */
entry: string, 
/**
 * The version installed.
 */
fromVersion: string, 
/**
 * The registry's latest version.
 */
toVersion: string, 
/**
 * The command line (or URL) now.
 */
oldCommandLine: string, 
/**
 * The command line (or URL) after the update.
 */
newCommandLine: string, 
/**
 * The env or header names now.
 */
oldNames: Array<string>, 
/**
 * The env or header names after the update.
 */
newNames: Array<string>, 
/**
 * Required values the new version asks for that are not given yet.
 */
missing: Array<string>, 
/**
 * The env or header values after the update: the new version's own as they are, the
 * values kept from the installed server masked.
 */
newValues: { [key in string]: string }, 
/**
 * The digest of the update shown: applying it takes it back and refuses when the
 * registry's answer changed since.
 */
digest: string, };

/**
 * A declared tool or prompt.
 */
export type NamedItem = { 
/**
 * Its name.
 */
name: string, 
/**
 * What it does.
 */
description?: string, };

/**
 * A value the bundle asks the user for.
 */
export type UserConfigField = { 
/**
 * `string`, `number`, `boolean`, `directory` or `file`.
 */
type: string, 
/**
 * Its label.
 */
title?: string, 
/**
 * What it is for.
 */
description?: string, 
/**
 * It must be given.
 */
required: boolean, 
/**
 * A secret: masked, kept in the keychain when it goes to the environment.
 */
sensitive: boolean, 
/**
 * Several values may be given.
 */
multiple: boolean, 
/**
 * The default (a string, number, boolean or list).
 */
default?: unknown, };

/**
 * A bundle as shown before it is installed.
 */
export type BundlePreview = { 
/**
 * The manifest's name (its folder's name).
 */
name: string, 
/**
 * Its display name, else its name.
 */
displayName: string, 
/**
 * Its version.
 */
version: string, 
/**
 * What it does.
 */
description: string, 
/**
 * Who made it.
 */
author: string, 
/**
 * `node`, `python`, `binary` or `uv`.
 */
serverType: string, 
/**
 * The file the server starts from, inside the bundle.
 */
entryPoint: string, 
/**
 * The command it runs (before substitution), e.g. `node ${__dirname}/server/index.js`.
 */
commandLine: string, 
/**
 * The tools it declares.
 */
tools: Array<NamedItem>, 
/**
 * The prompts it declares.
 */
prompts: Array<NamedItem>, 
/**
 * What it asks the user for, by key.
 */
userConfig: Record<string, UserConfigField>, 
/**
 * The platforms it supports (empty: any).
 */
platforms: Array<string>, 
/**
 * The runtimes it needs, e.g. `node` → `>=18`.
 */
runtimes: { [key in string]: string }, 
/**
 * Whether it carries a signature block (`mcpb sign`); it is not verified here.
 */
signed: boolean, 
/**
 * Files in it and their total unpacked size.
 */
files: number, 
/**
 * The total unpacked size in bytes.
 */
unpackedBytes: number, 
/**
 * The digest of the file's bytes previewed: installing takes it back and refuses a file
 * whose bytes have another.
 */
digest: string, };

/**
 * What the user gives when installing a bundle.
 */
export type BundleInstall = { 
/**
 * The configured server's name; none: the manifest's name.
 */
serverName?: string, 
/**
 * `user_config` values by key.
 */
config: { [key in string]: string }, };

/**
 * A server just installed or updated: saved, then started.
 */
export type Installed = { 
/**
 * The configured server (values masked).
 */
record: ServerRecord, 
/**
 * Its tools, when it started.
 */
tools: Array<ToolInfo>, 
/**
 * Why it did not start, when it did not (it stays configured).
 */
startError?: string, };

/**
 * What an install link would save, shown before anything is saved: every value the link
 * gives, exactly, and the grants the server gets.
 */
export type LinkPreview = { 
/**
 * The link as received.
 */
link: string, 
/**
 * The server's name.
 */
name: string, 
/**
 * `stdio`, `http` or `sse`.
 */
transport: string, 
/**
 * The program run (stdio).
 */
command?: string, 
/**
 * Its arguments, exactly.
 */
args: Array<string>, 
/**
 * The environment variables it gets, with their values as the link gives them.
 */
env: { [key in string]: string }, 
/**
 * The remote URL.
 */
url?: string, 
/**
 * The headers sent, with their values as the link gives them.
 */
headers: { [key in string]: string }, 
/**
 * Whether its tools run without asking (a link cannot change it: always `ask`).
 */
approval: Approval, 
/**
 * Whether it may reach private network addresses (a link cannot grant it).
 */
allowPrivate: boolean, 
/**
 * The app's environment variables it also gets (a link cannot grant any).
 */
inheritEnv: Array<string>, 
/**
 * The folder it runs in (a link cannot choose one).
 */
cwd?: string, 
/**
 * The loader-style variables it sets (e.g. `NODE_OPTIONS`): the user must accept each
 * before it is installed.
 */
riskyEnv: Array<string>, };

/**
 * The protocol era spoken with one server, negotiated per server at each connection.
 */
export type ProtocolEra = "stateless" | "handshake";

/**
 * Who the server says it is, and the protocol revision both sides agreed on.
 */
export type ServerInfo = { 
/**
 * The server's implementation name (`serverInfo.name`).
 */
name: string, 
/**
 * Its human-readable title, if given.
 */
title: string | null, 
/**
 * Its version string.
 */
version: string, 
/**
 * The negotiated protocol revision, e.g. `2025-11-25` or `2026-07-28`.
 */
protocol_version: string, 
/**
 * The protocol era that revision belongs to.
 */
era: ProtocolEra, 
/**
 * Usage instructions for the model, if the server gives any.
 */
instructions: string | null, };

/**
 * The state of one supervised server.
 */
export type ServerState = { "type": "starting" } | { "type": "ready", 
/**
 * Who the server is.
 */
info: ServerInfo, 
/**
 * How many tools it offers.
 */
tools: number, } | { "type": "failed", 
/**
 * Why, as a sentence for the user.
 */
reason: string, } | { "type": "stopped" } | { "type": "restarting", 
/**
 * The restart attempt of this streak (1-based).
 */
attempt: number, 
/**
 * The delay before it (serialized as `in_ms`).
 */
in_ms: number, };

/**
 * One supervised server and its state.
 */
export type ServerStatus = { 
/**
 * The server's name.
 */
name: string, 
/**
 * Its state.
 */
state: ServerState, };

/**
 * Something that happened to a supervised server.
 */
export type SupervisorEvent = { "type": "state", 
/**
 * The server's name.
 */
server: string, 
/**
 * The new state.
 */
state: ServerState, } | { "type": "tools_changed", 
/**
 * The server's name.
 */
server: string, } | { "type": "authorization_needed", 
/**
 * The server's name.
 */
server: string, 
/**
 * The authorization server's authorize URL.
 */
url: string, };

/**
 * A server's logs: its stderr lines and the MCP log messages it sent, oldest first.
 */
export type ServerLogs = { 
/**
 * Its stderr (stdio servers), its last lines (as many as `STDERR_LINES` in `mcp/client/process.rs`).
 */
stderr: Array<string>, 
/**
 * Its `notifications/message` log messages, one line each.
 */
messages: Array<string>, };

/**
 * A tool's behaviour hints; `None` means the server said nothing.
 */
export type ToolAnnotations = { 
/**
 * Does not modify its environment.
 */
read_only: boolean | null, 
/**
 * May destroy data (meaningful when not read-only).
 */
destructive: boolean | null, 
/**
 * Repeating a call with the same arguments has no further effect.
 */
idempotent: boolean | null, 
/**
 * Reaches an open world (the internet) rather than a closed domain.
 */
open_world: boolean | null, };

/**
 * Who may call a tool, from its `_meta.ui.visibility`.
 */
export type Visibility = "model" | "app";

/**
 * What a tool's `_meta.ui` declares.
 */
export type ToolUi = { 
/**
 * The `ui://` resource to render for a call of this tool, if any.
 */
resourceUri: string | null, 
/**
 * Who may call it (both when the server says nothing).
 */
visibility: Array<Visibility>, };

/**
 * One tool a server offers.
 */
export type ToolInfo = { 
/**
 * The tool's name, unique within its server.
 */
name: string, 
/**
 * A human-readable title (the tool's own, else its annotations').
 */
title: string | null, 
/**
 * What the tool does (shown to the model).
 */
description: string | null, 
/**
 * The JSON Schema of its arguments (an `object` schema).
 */
input_schema: { [key in string]: JsonValue }, 
/**
 * The JSON Schema of its structured output, if declared.
 */
output_schema: { [key in string]: JsonValue } | null, 
/**
 * Behaviour hints (untrusted: never base security decisions on them).
 */
annotations: ToolAnnotations, 
/**
 * Its MCP App declaration (`_meta.ui`): a UI resource, who may call it.
 */
ui?: ToolUi | null, };

/**
 * The domains an App's resource declares (`_meta.ui.csp`).
 */
export type AppCsp = { 
/**
 * Origins for fetch/XHR/WebSocket (`connect-src`).
 */
connectDomains: Array<string>, 
/**
 * Origins for scripts, styles, images, fonts and media.
 */
resourceDomains: Array<string>, 
/**
 * Origins for nested frames (`frame-src`).
 */
frameDomains: Array<string>, 
/**
 * Allowed base URIs (`base-uri`).
 */
baseUriDomains: Array<string>, };

/**
 * An App's UI resource, read from its server, as stored with the tool result so the App
 * renders again when the conversation is reopened.
 */
export type AppView = { 
/**
 * The server the App belongs to (the only one its `tools/call` may reach).
 */
server: string, 
/**
 * The tool whose call rendered it.
 */
tool: string, 
/**
 * The `ui://` resource.
 */
resourceUri: string, 
/**
 * The HTML document.
 */
html: string, 
/**
 * The domains the resource declares.
 */
csp: AppCsp, 
/**
 * Whether it asks for a visible border (`None`: the host decides).
 */
prefersBorder: boolean | null, };

/**
 * A `tools/call` an App sent, as the UI forwards it. The server is the App's own (the UI
 * binds it to the frame; the App cannot choose it).
 */
export type AppCall = { 
/**
 * The App's server.
 */
server: string, 
/**
 * The tool the App asked for.
 */
tool: string, 
/**
 * Its arguments.
 */
arguments: unknown, 
/**
 * The conversation the App is shown in (for "allow in this chat").
 */
conversationId: string, 
/**
 * The App's `ui://` resource: the user's "Always" or "allow in this chat" on its approval
 * card covers this App's calls only.
 */
app?: string, 
/**
 * The user's answer, when the policy asked for one (`None` the first time).
 */
approval: ApprovalAnswer | null, };

/**
 * What became of an App's call.
 */
export type AppCallOutcome = { "type": "done", 
/**
 * The result.
 */
result: ToolResult, } | { "type": "needs_approval" };

/**
 * A resource a server lists (or links to).
 */
export type ResourceInfo = { 
/**
 * Its URI.
 */
uri: string, 
/**
 * Its programmatic name.
 */
name: string, 
/**
 * A human-readable title.
 */
title: string | null, 
/**
 * What it is.
 */
description: string | null, 
/**
 * Its MIME type, if known.
 */
mime: string | null, 
/**
 * Its size in bytes, if known.
 */
size: number | null, };

/**
 * Text or binary resource contents.
 */
export type ResourceBody = { "kind": "text", "value": string } | { "kind": "blob", "value": string };

/**
 * The contents of a resource: text or a base64 blob.
 */
export type ResourceContent = { 
/**
 * The URI these contents belong to.
 */
uri: string, 
/**
 * Their MIME type, if known.
 */
mime: string | null, 
/**
 * The contents.
 */
body: ResourceBody, };

/**
 * One piece of a tool result or prompt message.
 */
export type ResultPart = { "type": "text", 
/**
 * The text.
 */
text: string, } | { "type": "image", 
/**
 * Its MIME type, e.g. `image/png`.
 */
mime: string, 
/**
 * Base64 data.
 */
data: string, } | { "type": "audio", 
/**
 * Its MIME type, e.g. `audio/wav`.
 */
mime: string, 
/**
 * Base64 data.
 */
data: string, } | { "type": "resource_link" } & ResourceInfo | { "type": "resource" } & ResourceContent;

/**
 * The result of one tool call.
 */
export type ToolResult = { 
/**
 * The unstructured content, in order.
 */
content: Array<ResultPart>, 
/**
 * The structured result (`structuredContent`), if any.
 */
structured: JsonValue | null, 
/**
 * The tool reports a failure (the model should see it, it is not a protocol error).
 */
is_error: boolean, };

/**
 * One argument of a prompt.
 */
export type PromptArgument = { 
/**
 * Its name.
 */
name: string, 
/**
 * What it means.
 */
description: string | null, 
/**
 * Whether it must be given.
 */
required: boolean, };

/**
 * A prompt template a server offers.
 */
export type PromptInfo = { 
/**
 * Its name.
 */
name: string, 
/**
 * A human-readable title.
 */
title: string | null, 
/**
 * What it does.
 */
description: string | null, 
/**
 * The arguments it takes.
 */
arguments: Array<PromptArgument>, };

/**
 * A resource template a server lists: an RFC 6570 URI template whose variables the user
 * fills in to name a resource.
 */
export type ResourceTemplateInfo = { 
/**
 * The URI template, e.g. `file:///logs/{date}`.
 */
uri_template: string, 
/**
 * Its programmatic name.
 */
name: string, 
/**
 * A human-readable title.
 */
title: string | null, 
/**
 * What the resources are.
 */
description: string | null, 
/**
 * The MIME type of its resources, if uniform.
 */
mime: string | null, };

/**
 * The author of a prompt message.
 */
export type PromptRole = "user" | "assistant";

/**
 * One message of an expanded prompt.
 */
export type PromptMessage = { 
/**
 * `user` or `assistant`.
 */
role: PromptRole, 
/**
 * Its content.
 */
content: ResultPart, };

/**
 * A prompt expanded with arguments.
 */
export type Prompt = { 
/**
 * The server's description of this expansion.
 */
description: string | null, 
/**
 * The messages, in order.
 */
messages: Array<PromptMessage>, };

/**
 * The author of a sampling message.
 */
export type SamplingRole = "user" | "assistant";

/**
 * One piece of a sampling message.
 */
export type SamplingContent = { "type": "text", 
/**
 * The text.
 */
text: string, } | { "type": "image", 
/**
 * Its MIME type.
 */
mime: string, 
/**
 * Base64 data.
 */
data: string, } | { "type": "audio", 
/**
 * Its MIME type.
 */
mime: string, 
/**
 * Base64 data.
 */
data: string, } | { "type": "unsupported", 
/**
 * The wire type, e.g. `tool_use`.
 */
kind: string, };

/**
 * One message of a sampling request.
 */
export type SamplingMessage = { 
/**
 * Who wrote it.
 */
role: SamplingRole, 
/**
 * Its parts, in order.
 */
content: Array<SamplingContent>, };

/**
 * What a server asks a model to do (`sampling/createMessage`).
 */
export type SamplingRequest = { 
/**
 * The conversation to answer.
 */
messages: Array<SamplingMessage>, 
/**
 * The server's system prompt, if any.
 */
systemPrompt: string | null, 
/**
 * The most tokens to generate.
 */
maxTokens: number, 
/**
 * The temperature, if given.
 */
temperature: number | null, 
/**
 * Stop sequences.
 */
stopSequences: Array<string>, 
/**
 * The server's model name hints, most preferred first (advisory).
 */
modelHints: Array<string>, };

/**
 * Why a request closed without waiting any longer.
 */
export type CloseReason = "answered" | "timed_out" | "server_stopped" | "withdrawn";

/**
 * A request that needs the user, or the end of one.
 */
export type InteractionEvent = { "type": "sampling_requested", 
/**
 * The interaction id to answer.
 */
id: string, 
/**
 * The asking server.
 */
server: string, 
/**
 * What it asks.
 */
request: SamplingRequest, } | { "type": "elicitation_requested", 
/**
 * The interaction id to answer.
 */
id: string, 
/**
 * The asking server.
 */
server: string, 
/**
 * What it wants and why.
 */
message: string, 
/**
 * The JSON Schema of the answer.
 */
requestedSchema: JsonValue, } | { "type": "elicitation_url", 
/**
 * The interaction id to answer.
 */
id: string, 
/**
 * The asking server.
 */
server: string, 
/**
 * The page to open.
 */
url: string, 
/**
 * What it wants and why.
 */
message: string, } | { "type": "client_call_requested", 
/**
 * The interaction id to answer.
 */
id: string, 
/**
 * The server whose tool it is.
 */
server: string, 
/**
 * The calling app, as the user named it (or as its handshake did).
 */
client: string, 
/**
 * The tool.
 */
tool: string, 
/**
 * The call's arguments.
 */
arguments: JsonValue, 
/**
 * Whether "always" can be kept for this app (it is one the user registered).
 */
canAlways: boolean, } | { "type": "closed", 
/**
 * The interaction id.
 */
id: string, 
/**
 * The server that asked.
 */
server: string, 
/**
 * Why it closed.
 */
reason: CloseReason, };

/**
 * The user's answer to an interaction.
 */
export type InteractionAnswer = { "type": "approve" } | { "type": "deny" } | { "type": "approve_always" } | { "type": "accept", 
/**
 * The form's values, checked against the requested schema.
 */
content?: JsonValue, } | { "type": "decline" } | { "type": "cancel" };

/**
 * One root as a server sees it.
 */
export type RootInfo = { 
/**
 * The folder.
 */
path: string, 
/**
 * Its `file://` URI.
 */
uri: string, 
/**
 * A short name (the folder's own name).
 */
name: string, };

/**
 * The provider and model that answer sampling requests.
 */
export type SamplingModel = { 
/**
 * The provider's id or name.
 */
provider: string, 
/**
 * The model id as the provider knows it.
 */
model: string, };

/**
 * Who wrote a message.
 */
export type Role = "system" | "user" | "assistant" | "tool";

/**
 * Where a message is in its life.
 */
export type MessageStatus = "streaming" | "complete" | "error" | "cancelled" | "interrupted";

/**
 * Tokens a model call used, as the provider reported or we estimated.
 */
export type TokenUsage = { 
/**
 * Prompt tokens.
 */
inputTokens: number, 
/**
 * Completion tokens.
 */
outputTokens: number, };

/**
 * A resource attached to a user message: where it came from and its contents.
 */
export type Attachment = { 
/**
 * The MCP server it was read from.
 */
server: string, 
/**
 * Its URI.
 */
uri: string, 
/**
 * A name to show (the resource's title or name).
 */
name: string, 
/**
 * Its MIME type, if known.
 */
mimeType: string | null, 
/**
 * Its contents: text, or base64 bytes.
 */
body: ResourceBody, };

/**
 * One part of a message.
 */
export type ContentPart = { "type": "text", 
/**
 * The text.
 */
text: string, } | { "type": "reasoning", 
/**
 * The reasoning text.
 */
text: string, } | { "type": "image", 
/**
 * MIME type, e.g. `image/png`.
 */
mimeType: string, 
/**
 * Base64 data.
 */
data: string, 
/**
 * The file name it was attached as, if any (an export keeps it, so an import
 * gives back the same message).
 */
name?: string, } | { "type": "tool_call", 
/**
 * The call id (the provider's, or one we synthesized).
 */
id: string, 
/**
 * The MCP server that owns the tool.
 */
server: string, 
/**
 * The tool's name on that server.
 */
tool: string, 
/**
 * The arguments as the model sent them.
 */
arguments: JsonValue, } | { "type": "tool_result", 
/**
 * The id of the call this answers.
 */
callId: string, 
/**
 * The normalized result content.
 */
content: JsonValue, 
/**
 * Whether the tool reported an error.
 */
isError: boolean, } | { "type": "resource" } & Attachment | { "type": "image_ref" } & ImageRef | { "type": "file" } & FileText;

/**
 * A stored message.
 */
export type Message = { 
/**
 * Time-ordered id (UUIDv7).
 */
id: string, 
/**
 * The conversation it belongs to.
 */
conversationId: string, 
/**
 * The message it follows in its branch; none for the first.
 */
parentId: string | null, 
/**
 * Who wrote it.
 */
role: Role, 
/**
 * Its parts.
 */
content: Array<ContentPart>, 
/**
 * Its state.
 */
status: MessageStatus, 
/**
 * The model that wrote it (assistant messages).
 */
model: string | null, 
/**
 * Token usage, when known.
 */
usage: TokenUsage | null, 
/**
 * The error that ended it, if any.
 */
error: string | null, 
/**
 * Creation time, Unix milliseconds.
 */
createdAt: number, 
/**
 * Last change, Unix milliseconds.
 */
updatedAt: number, };

/**
 * Changes to a conversation's configuration; `None` fields stay as they are.
 */
export type ConversationPatch = { 
/**
 * The provider (id) to use.
 */
providerId?: string, 
/**
 * The model to use.
 */
model?: string, 
/**
 * The system prompt.
 */
systemPrompt?: string, 
/**
 * The whole settings object (enabled servers, tool mode, …), replacing the old one.
 */
settings?: JsonValue, };

/**
 * A reasoning level.
 */
export type ReasoningEffort = "low" | "medium" | "high";

/**
 * Reasoning ("thinking") asked of the model: each wire format sends it in its own field
 * (OpenAI `reasoning_effort`, Anthropic `thinking.budget_tokens`, Gemini `thinkingConfig`,
 * DashScope `enable_thinking`/`thinking_budget`, Ollama `think`).
 */
export type Thinking = { 
/**
 * Reasoning on (true) or suppressed (false) where the model has the switch.
 */
enabled: boolean, 
/**
 * How hard to think, for formats that take a level.
 */
effort?: ReasoningEffort, 
/**
 * The most reasoning tokens, for formats that take a budget.
 */
budgetTokens?: number, };

/**
 * Per-conversation settings, kept in `conversations.settings`.
 */
export type ChatSettings = { 
/**
 * The MCP servers whose tools this conversation may use; all running ones when absent.
 */
servers?: Array<string>, 
/**
 * How tools reach the model; the provider's setting for the model when absent.
 */
toolMode?: ToolMode, 
/**
 * The most model calls in one turn (default 25).
 */
maxSteps?: number, 
/**
 * The model's context window in tokens (default 32768).
 */
contextWindow?: number, 
/**
 * The most tokens an answer may have.
 */
maxOutputTokens?: number, 
/**
 * Sampling temperature; the provider's default when absent.
 */
temperature?: number, 
/**
 * Nucleus sampling; the provider's default when absent.
 */
topP?: number, 
/**
 * Reasoning on or off, with its effort or budget; the model's default when absent.
 */
thinking?: Thinking, 
/**
 * Tools switched off one by one: server name → tool names not offered to the model
 * (a tool a server adds later is on until switched off).
 */
disabledTools?: { [key in string]: Array<string> }, 
/**
 * The assistant this conversation started from (its id); the settings above were copied
 * from it and may since have been changed for this conversation alone.
 */
assistant?: string, };

/**
 * A run of snippet text.
 */
export type Segment = { 
/**
 * The text.
 */
text: string, 
/**
 * Whether it matches a query term.
 */
hit: boolean, };

/**
 * One message that matches a query.
 */
export type SearchHit = { 
/**
 * The conversation it belongs to.
 */
conversationId: string, 
/**
 * That conversation's title.
 */
conversationTitle: string, 
/**
 * The message.
 */
messageId: string, 
/**
 * Who wrote it.
 */
role: Role, 
/**
 * When, Unix milliseconds.
 */
createdAt: number, 
/**
 * Text around the first match, split into highlighted and plain runs.
 */
snippet: Array<Segment>, };

/**
 * Token usage reported by the provider.
 */
export type Usage = { 
/**
 * Prompt tokens.
 */
inputTokens: number, 
/**
 * Generated tokens.
 */
outputTokens: number, };

/**
 * Where a task is in its life.
 */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/**
 * A tool call as the UI shows it: which server and tool, with what arguments.
 */
export type CallView = { 
/**
 * The call id (unique within the conversation).
 */
id: string, 
/**
 * The MCP server (empty when the model named a tool no server has).
 */
server: string, 
/**
 * The tool's name on that server.
 */
tool: string, 
/**
 * The arguments the model sent.
 */
arguments: unknown, };

/**
 * Why a turn ended.
 */
export type TurnEnd = "done" | "max_steps" | "cancelled" | "loop_broken" | "error";

/**
 * One event of a turn.
 */
export type ChatEvent = { "type": "started", 
/**
 * The conversation.
 */
conversation_id: string, 
/**
 * The user message the turn answers.
 */
user_message_id: string, } | { "type": "message_started", 
/**
 * The message.
 */
message_id: string, 
/**
 * The model writing it.
 */
model: string, 
/**
 * The step, from 1.
 */
step: number, } | { "type": "text_delta", 
/**
 * The message.
 */
message_id: string, 
/**
 * The new text.
 */
text: string, } | { "type": "reasoning_delta", 
/**
 * The message.
 */
message_id: string, 
/**
 * The new text.
 */
text: string, } | { "type": "tool_call_proposed", 
/**
 * The assistant message holding the call.
 */
message_id: string, 
/**
 * The call.
 */
call: CallView, } | { "type": "approval_needed", 
/**
 * The id to answer with.
 */
approval_id: string, 
/**
 * The call.
 */
call: CallView, } | { "type": "tool_started", 
/**
 * The call id.
 */
call_id: string, } | { "type": "tool_progress", 
/**
 * The call id.
 */
call_id: string, 
/**
 * Progress so far.
 */
progress: number, 
/**
 * The total, if known.
 */
total: number | null, 
/**
 * A status message.
 */
message: string | null, } | { "type": "tool_task", 
/**
 * The call id.
 */
call_id: string, 
/**
 * The server's id for the task.
 */
task_id: string, 
/**
 * The task's status.
 */
status: TaskStatus, 
/**
 * The server's status message (the task's progress), if any.
 */
message: string | null, } | { "type": "tool_result", 
/**
 * The tool message holding the result.
 */
message_id: string, 
/**
 * The call id.
 */
call_id: string, 
/**
 * The normalized result (text, images, resources, structured content).
 */
content: unknown, 
/**
 * Whether the tool failed (or did not run).
 */
is_error: boolean, } | { "type": "usage", 
/**
 * The assistant message.
 */
message_id: string, 
/**
 * The counts.
 */
usage: Usage, } | { "type": "step_finished", 
/**
 * The step, from 1.
 */
step: number, } | { "type": "error", 
/**
 * The stable kind (the UI translates it).
 */
kind: ErrorKind, 
/**
 * What happened.
 */
message: string, } | { "type": "titled", 
/**
 * The new title.
 */
title: string, } | { "type": "finished", 
/**
 * Why.
 */
reason: TurnEnd, 
/**
 * The last message of the branch now shown.
 */
head_id: string, };

/**
 * The user's answer to an approval question.
 */
export type ApprovalAnswer = "allow_once" | "allow_always" | "allow_for_chat" | "deny";

/**
 * The output format of an export.
 */
export type ExportFormat = "md" | "json" | "html";

/**
 * Which conversations to export.
 */
export type ExportScope = { "kind": "all" } | { "kind": "ids", 
/**
 * Their ids.
 */
ids: Array<string>, } | { "kind": "search", 
/**
 * The search words.
 */
query: string, } | { "kind": "project", 
/**
 * The project's id or name.
 */
project: string, };

/**
 * What to export, how and where.
 */
export type ExportRequest = { 
/**
 * The format.
 */
format: ExportFormat, 
/**
 * The conversations.
 */
scope: ExportScope, 
/**
 * Where: a file (JSON; Markdown or HTML of one conversation when the name ends in
 * `.md` or `.html`) or a folder (one file per conversation and an index).
 */
out: string, 
/**
 * Leave tool results out (Markdown and HTML; JSON is always complete).
 */
noToolResults: boolean, 
/**
 * Leave reasoning out (Markdown and HTML; JSON is always complete).
 */
noReasoning: boolean, };

/**
 * What an export wrote.
 */
export type ExportSummary = { 
/**
 * Conversations exported.
 */
conversations: number, 
/**
 * Messages exported (every branch).
 */
messages: number, 
/**
 * Files written, images and index included.
 */
files: number, 
/**
 * The file or folder written.
 */
path: string, };

/**
 * How far a bulk export is.
 */
export type ExportProgress = { 
/**
 * Conversations written.
 */
done: number, 
/**
 * Conversations to write.
 */
total: number, };

/**
 * Where an imported file came from.
 */
export type ImportSource = "switchboard" | "chatgpt" | "claude";

/**
 * What happened (or, in a dry run, would happen) to one conversation.
 */
export type MergeAction = "add" | "merge" | "skip" | "conflict";

/**
 * The outcome for one conversation.
 */
export type MergeEntry = { 
/**
 * The conversation's id.
 */
id: string, 
/**
 * Its title in the imported file.
 */
title: string, 
/**
 * What was done.
 */
action: MergeAction, 
/**
 * Messages added.
 */
messagesAdded: number, 
/**
 * Messages already here, identical.
 */
messagesSkipped: number, 
/**
 * Messages here with the same id but different contents (kept as they are).
 */
messagesConflicted: number, 
/**
 * What differs, one line each.
 */
conflicts: Array<string>, };

/**
 * The outcome of an import.
 */
export type MergeReport = { 
/**
 * Whether this was a dry run (nothing was written).
 */
dryRun: boolean, 
/**
 * Conversations added.
 */
added: number, 
/**
 * Conversations that were here and got new messages.
 */
merged: number, 
/**
 * Conversations already here in full.
 */
skipped: number, 
/**
 * Conversations with a conflict.
 */
conflicted: number, 
/**
 * Messages added in all.
 */
messagesAdded: number, 
/**
 * One entry per conversation, in the file's order.
 */
entries: Array<MergeEntry>, };

/**
 * What an import did (or would do).
 */
export type ImportResult = { 
/**
 * The kind of file.
 */
source: ImportSource, 
/**
 * What changed, per conversation.
 */
report: MergeReport, 
/**
 * The assistants the file carried (Switchboard's export: those its conversations started
 * from), merged by id unless this was a dry run.
 */
assistants: number, 
/**
 * The projects the file carried (those its conversations are in), merged by id unless
 * this was a dry run.
 */
projects: number, };

/**
 * One tool's offer to the model.
 */
export type ToolTokens = { 
/**
 * The tool's name on its server.
 */
name: string, 
/**
 * Its description's first line, if any.
 */
description: string, 
/**
 * Estimated prompt tokens of its definition.
 */
tokens: number, 
/**
 * Whether the server says it only reads (its `readOnlyHint`).
 */
readOnly: boolean, };

/**
 * One server's offer to the model.
 */
export type ToolCost = { 
/**
 * The server's name.
 */
server: string, 
/**
 * Whether it is ready (a server that is not offers no tools now).
 */
ready: boolean, 
/**
 * How many tools it offers.
 */
tools: number, 
/**
 * Estimated prompt tokens of their definitions (name, description, schema).
 */
tokens: number, 
/**
 * Each tool with its own cost, by name, so tools can be switched off one by one.
 */
each: Array<ToolTokens>, };

/**
 * One knowledge base and how much it holds.
 */
export type KnowledgeBase = { 
/**
 * Its row id.
 */
id: number, 
/**
 * Its name, unique.
 */
name: string, 
/**
 * The embedder its vectors come from ("builtin:<file name>"; "none": keywords only).
 */
embedder: string, 
/**
 * The embedder the user chose; when its identity is not [`KnowledgeBase::embedder`], the
 * next run embeds every file again.
 */
choice: EmbedderChoice, 
/**
 * The length of its vectors (0 until the first is made).
 */
dimensions: number, 
/**
 * The folders and files it indexes.
 */
sources: Array<string>, 
/**
 * Files indexed, with or without an error.
 */
files: number, 
/**
 * Files that could not be indexed.
 */
failed: number, 
/**
 * Chunks indexed.
 */
chunks: number, 
/**
 * When it was created, Unix milliseconds.
 */
createdAt: number, };

/**
 * One file of a knowledge base as last indexed.
 */
export type KnowledgeFile = { 
/**
 * The file's absolute path.
 */
path: string, 
/**
 * Its size in bytes when read.
 */
size: number, 
/**
 * Its modification time when read, nanoseconds since the Unix epoch.
 */
modifiedNs: number, 
/**
 * The SHA-256 of its bytes (none: never read whole, or to be read again).
 */
sha256: string | null, 
/**
 * Its title (a document's own, else none).
 */
title: string | null, 
/**
 * Its chunks.
 */
chunks: number, 
/**
 * Why it could not be indexed.
 */
error: string | null, 
/**
 * When it was last indexed, Unix milliseconds.
 */
indexedAt: number, };

/**
 * Which of a base's files to list, a page at a time.
 */
export type FilesQuery = { 
/**
 * Only paths containing this text (ASCII letters in either case); empty: all.
 */
contains: string, 
/**
 * Only files that could not be indexed.
 */
failedOnly: boolean, 
/**
 * How many matching files to skip.
 */
offset: number, 
/**
 * How many to give (1 to [`MAX_FILES_PAGE`]).
 */
limit: number, };

/**
 * A page of a base's files and how many match in all.
 */
export type FilesPage = { 
/**
 * How many files match the query.
 */
total: number, 
/**
 * This page's files, by path.
 */
files: Array<KnowledgeFile>, };

/**
 * What Settings → Local server shows.
 */
export type LocalServerStatus = { 
/**
 * Whether the user switched it on.
 */
enabled: boolean, 
/**
 * The port chosen.
 */
port: number, 
/**
 * Where it listens now, when it does.
 */
url: string | null, 
/**
 * Why it does not listen although switched on (e.g. the port is taken).
 */
error: string | null, };

/**
 * An app allowed to use the local endpoint.
 */
export type ServeClient = { 
/**
 * Its id.
 */
id: string, 
/**
 * The name the user gave it ("Claude Desktop").
 */
name: string, 
/**
 * The servers it may reach by name; `None`: every enabled server.
 */
servers: Array<string> | null, 
/**
 * The tools it may see and call, by server name: a server named here offers it only the
 * tools listed; a server not named here (or `None`) all its tools.
 */
tools: { [key in string]: Array<string> } | null, 
/**
 * When it was made, Unix milliseconds.
 */
createdAt: number, 
/**
 * When its token was last used, Unix milliseconds.
 */
lastUsedAt: number | null, };

/**
 * One call a client made.
 */
export type ServeCall = { 
/**
 * The server's name.
 */
server: string, 
/**
 * The tool's name on its server.
 */
tool: string, 
/**
 * How it ended.
 */
outcome: CallOutcome, 
/**
 * How long it took, milliseconds.
 */
durationMs: number, 
/**
 * When it ended, Unix milliseconds.
 */
at: number, };

/**
 * A tool a client may call without asking.
 */
export type ServeGrant = { 
/**
 * The server's name.
 */
server: string, 
/**
 * The tool.
 */
tool: string, };

/**
 * How a client's call ended.
 */
export type CallOutcome = "done" | "failed" | "refused" | "unanswered";

/**
 * A client just made, with its token (shown once, never stored).
 */
export type NewServeClient = { 
/**
 * The client.
 */
client: ServeClient, 
/**
 * Its bearer token.
 */
token: string, };

/**
 * How far an indexing run is.
 */
export type IndexProgress = { 
/**
 * The base.
 */
base: string, 
/**
 * Files looked at so far.
 */
done: number, 
/**
 * Files to look at.
 */
total: number, 
/**
 * The file being read, if any.
 */
current: string | null, };

/**
 * What an indexing run did.
 */
export type IndexReport = { 
/**
 * The base.
 */
base: string, 
/**
 * Files read and indexed (new or changed).
 */
indexed: number, 
/**
 * Files left as they were.
 */
unchanged: number, 
/**
 * Files that left the index.
 */
removed: number, 
/**
 * Files recorded with an error.
 */
failed: number, 
/**
 * Chunks written.
 */
chunks: number, };

/**
 * What the knowledge bases tell a window.
 */
export type KnowledgeEvent = { "type": "progress" } & IndexProgress | { "type": "indexed" } & IndexReport | { "type": "embeddingAgain", 
/**
 * The base.
 */
base: string, 
/**
 * The embedder now used.
 */
embedder: string, } | { "type": "failed", 
/**
 * The base.
 */
base: string, 
/**
 * Why.
 */
error: string, };

/**
 * One passage a search found.
 */
export type Passage = { 
/**
 * The knowledge base it is in.
 */
base: string, 
/**
 * The file's absolute path.
 */
path: string, 
/**
 * The file's name, or its title when it has one.
 */
title: string, 
/**
 * The passage's text.
 */
text: string, 
/**
 * The line it starts on, from 1.
 */
line: number | null, 
/**
 * The page it is on (PDF), from 1.
 */
page: number | null, 
/**
 * The headings it sits under ("Guide › Install").
 */
heading: string | null, 
/**
 * Its fused rank score (higher is better; comparable within one search only).
 */
score: number, };

/**
 * Which embedder makes a knowledge base's vectors.
 */
export type EmbedderChoice = { "kind": "builtin" } | { "kind": "provider", 
/**
 * The provider's id.
 */
provider: string, 
/**
 * The embedding model, e.g. `text-embedding-3-small` or `nomic-embed-text`.
 */
model: string, };

/**
 * A stored assistant.
 */
export type Assistant = { 
/**
 * Time-ordered id.
 */
id: string, 
/**
 * Its name, unique regardless of case (`switchboard chat --assistant NAME`).
 */
name: string, 
/**
 * An emoji shown beside the name (may be empty).
 */
icon: string, 
/**
 * The system prompt given to each conversation made from it (may be empty).
 */
systemPrompt: string, 
/**
 * The provider (id) its conversations use; the default provider when absent.
 */
providerId: string | null, 
/**
 * The model its conversations use; the provider's default when absent.
 */
model: string | null, 
/**
 * The conversation settings copied into each conversation (model settings, servers and
 * tools, tool mode).
 */
settings: ChatSettings, 
/**
 * Creation time, Unix milliseconds.
 */
createdAt: number, 
/**
 * Last change, Unix milliseconds.
 */
updatedAt: number, };

/**
 * What an assistant is made of, to create one or replace one's fields.
 */
export type AssistantDraft = { 
/**
 * Its name.
 */
name: string, 
/**
 * An emoji.
 */
icon: string, 
/**
 * The system prompt.
 */
systemPrompt: string, 
/**
 * The provider (id).
 */
providerId?: string, 
/**
 * The model.
 */
model?: string, 
/**
 * The conversation settings.
 */
settings: ChatSettings, };

/**
 * A ready-made assistant the user may add, in each language the app speaks.
 */
export type Starter = { 
/**
 * A stable key.
 */
key: string, 
/**
 * An emoji.
 */
icon: string, 
/**
 * Its name by language tag (`en`, `zh-CN`).
 */
name: { [key in string]: string }, 
/**
 * Its system prompt by language tag.
 */
systemPrompt: { [key in string]: string }, 
/**
 * The conversation settings it starts with.
 */
settings: ChatSettings, };

/**
 * What an import of assistants did.
 */
export type AssistantImport = { 
/**
 * Assistants added.
 */
added: number, 
/**
 * Assistants whose id a different assistant here has: added beside it as a copy under a
 * new id (the one here is kept as it was).
 */
copied: number, 
/**
 * Assistants already here exactly as in the file.
 */
unchanged: number, };

/**
 * A running Ollama and the models it has pulled.
 */
export type LocalOllama = { 
/**
 * Its base URL.
 */
baseUrl: string, 
/**
 * The names of its models (e.g. `llama3.2:1b`), as listed.
 */
models: Array<string>, };

/**
 * An image attached to a user message: its bytes live once in the blob store, keyed by the
 * SHA-256 of the (downscaled) bytes, however many messages show it.
 */
export type ImageRef = { 
/**
 * Lowercase hex SHA-256 of the stored bytes.
 */
hash: string, 
/**
 * MIME type of the stored bytes (`image/png`, `image/jpeg`, …).
 */
mimeType: string, 
/**
 * Width in pixels, as stored (after downscaling).
 */
width: number, 
/**
 * Height in pixels, as stored.
 */
height: number, 
/**
 * The file name it was attached as, if any.
 */
name: string | null, };

/**
 * How much of a PDF was extracted.
 */
export type PdfPages = { 
/**
 * Pages in the document.
 */
total: number, 
/**
 * Pages whose text was taken (the first ones, up to the page limit).
 */
extracted: number, };

/**
 * A text, code or PDF file attached to a user message, inlined for the model as a fenced block.
 */
export type FileText = { 
/**
 * The file name it was attached as.
 */
name: string, 
/**
 * The fence's language (from the extension), empty when unknown.
 */
language: string, 
/**
 * The file's text (for a PDF, the extracted text of its first pages).
 */
text: string, 
/**
 * The tokens the text costs, estimated when attached.
 */
tokens: number, 
/**
 * For a PDF: how many pages it has, and how many were extracted.
 */
pages: PdfPages | null, };

/**
 * An attachment ready to send: the part the message will hold, a thumbnail for an image
 * (a `data:` URL) and what it costs in tokens.
 */
export type PreparedFile = { 
/**
 * An `image_ref` or a `file` part.
 */
part: ContentPart, 
/**
 * A small version of an image, as a `data:` URL.
 */
thumbnail: string | null, 
/**
 * Estimated tokens it adds to the message.
 */
tokens: number, };

/**
 * The price of a model's tokens.
 */
export type ModelPrice = { 
/**
 * US dollars per million input (prompt) tokens.
 */
input: number, 
/**
 * US dollars per million output (completion) tokens.
 */
output: number, };

/**
 * The facts of one model file.
 */
export type GgufInfo = { 
/**
 * `general.architecture`, e.g. `llama`, `qwen2`.
 */
architecture: string | null, 
/**
 * `general.size_label`, e.g. `135M`, `7B`.
 */
sizeLabel: string | null, 
/**
 * The quantization, from `general.file_type`, e.g. `Q4_K_M`.
 */
quantization: string | null, 
/**
 * `<architecture>.context_length`: the context it was trained for.
 */
contextLength: number | null, 
/**
 * Whether `tokenizer.chat_template` renders tool definitions.
 */
supportsTools: boolean, 
/**
 * Whether the file has a chat template at all.
 */
hasTemplate: boolean, };

/**
 * One model file of the folder.
 */
export type LocalModel = { 
/**
 * The file name, which is the model's id.
 */
name: string, 
/**
 * The file's size in bytes.
 */
size: number, 
/**
 * What its header says (none when it cannot be read).
 */
info: GgufInfo | null, };

/**
 * How far a model download has come (sent to the UI about every 1%).
 */
export type ModelDownloadProgress = { 
/**
 * Bytes on disk.
 */
received: number, 
/**
 * The file's size, when the server said.
 */
total: number | null, };

/**
 * A model's expected generation speed on this machine.
 */
export type ExpectedSpeed = { 
/**
 * Generated tokens per second, rounded to one decimal.
 */
tokensPerSecond: number, 
/**
 * Whether it was scaled from a speed measured here (else estimated from the CPU).
 */
measured: boolean, };

/**
 * One model of the catalogue.
 */
export type CatalogueModel = { 
/**
 * A stable id.
 */
id: string, 
/**
 * The name shown.
 */
name: string, 
/**
 * The file name it is saved under in the models folder.
 */
file: string, 
/**
 * Where it is downloaded from (a Hugging Face `resolve/` link).
 */
url: string, 
/**
 * The file's size in bytes.
 */
size: number, 
/**
 * The file's SHA-256, checked after the download.
 */
sha256: string, 
/**
 * The parameter count, e.g. `4.0B`.
 */
parameters: string, 
/**
 * The quantization, e.g. `Q4_K_M`.
 */
quantization: string, 
/**
 * The context length it was trained for, in tokens.
 */
contextLength: number, 
/**
 * Its licence.
 */
license: string, 
/**
 * The memory (GiB) a machine should have to run it with the app.
 */
minMemoryGib: number, 
/**
 * Whether it is the one recommended for this machine (set by [`for_machine`]).
 */
recommended: boolean, 
/**
 * The speed it should generate at on this machine (set by [`for_machine`]).
 */
expectedSpeed?: ExpectedSpeed, };
