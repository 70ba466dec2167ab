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
 * A stable, serializable classification of an error; the UI translates by kind.
 */
export type ErrorKind = "not_found" | "invalid_input" | "corrupt_database" | "database_locked" | "newer_schema" | "io" | "internal";

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
settings: JsonValue, };

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
systemPrompt?: string, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;
