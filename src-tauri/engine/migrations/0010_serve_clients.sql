-- Schema v10: the apps allowed to use Switchboard's local MCP endpoint (mcp/serve/http.rs), one
-- row each, with the SHA-256 of its bearer token (the token itself is shown once and never
-- stored) and the servers it may reach (NULL: all enabled servers); and the calls each made.

CREATE TABLE serve_clients (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,
    token_sha256 TEXT NOT NULL UNIQUE,
    servers      TEXT,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER
) STRICT;

CREATE TABLE serve_calls (
    id          INTEGER PRIMARY KEY,
    client_id   TEXT NOT NULL REFERENCES serve_clients (id) ON DELETE CASCADE,
    server      TEXT NOT NULL,
    tool        TEXT NOT NULL,
    outcome     TEXT NOT NULL CHECK (outcome IN ('done', 'failed', 'refused', 'unanswered')),
    duration_ms INTEGER NOT NULL,
    at          INTEGER NOT NULL
) STRICT;

CREATE INDEX serve_calls_by_client ON serve_calls (client_id, at);
