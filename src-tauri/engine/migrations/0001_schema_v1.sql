-- Schema v1: conversations and their message trees, provider and MCP server configuration
-- (never secrets), per-tool approval policies and free-form settings.
-- Timestamps are Unix milliseconds; ids are UUIDv7 text (time-ordered).

CREATE TABLE conversations (
    id            TEXT PRIMARY KEY NOT NULL,
    title         TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    pinned        INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    archived      INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    provider_id   TEXT,
    model         TEXT,
    system_prompt TEXT,
    settings      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings))
) STRICT;

CREATE INDEX conversations_listing
    ON conversations (archived, pinned DESC, updated_at DESC, id DESC);

CREATE TABLE messages (
    id              TEXT PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    parent_id       TEXT REFERENCES messages (id) ON DELETE CASCADE,
    role            TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content         TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(content)),
    status          TEXT NOT NULL
                    CHECK (status IN ('streaming', 'complete', 'error', 'cancelled', 'interrupted')),
    model           TEXT,
    input_tokens    INTEGER,
    output_tokens   INTEGER,
    error           TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;

CREATE INDEX messages_by_conversation ON messages (conversation_id, created_at, id);
CREATE INDEX messages_by_parent ON messages (parent_id);
CREATE INDEX messages_streaming ON messages (status) WHERE status = 'streaming';

CREATE TABLE providers (
    id         TEXT PRIMARY KEY NOT NULL,
    name       TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL,
    base_url   TEXT,
    headers    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(headers)),
    settings   TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE mcp_servers (
    id         TEXT PRIMARY KEY NOT NULL,
    name       TEXT NOT NULL UNIQUE,
    transport  TEXT NOT NULL CHECK (transport IN ('stdio', 'http', 'sse', 'builtin')),
    config     TEXT NOT NULL CHECK (json_valid(config)),
    enabled    INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE tool_policies (
    server_id TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
    tool      TEXT NOT NULL,
    policy    TEXT NOT NULL CHECK (policy IN ('ask', 'allow', 'deny')),
    PRIMARY KEY (server_id, tool)
) STRICT;

CREATE TABLE settings (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL CHECK (json_valid(value))
) STRICT;
