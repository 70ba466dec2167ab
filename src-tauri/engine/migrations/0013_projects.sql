-- Projects: named groups of conversations with their own default assistant, MCP servers and
-- instructions. A conversation belongs to at most one; deleting a project leaves its
-- conversations outside any project unless the caller deletes them first.
CREATE TABLE projects (
    id            TEXT PRIMARY KEY NOT NULL,
    name          TEXT NOT NULL,
    icon          TEXT NOT NULL DEFAULT '',
    instructions  TEXT NOT NULL DEFAULT '',
    assistant_id  TEXT,
    servers       TEXT CHECK (servers IS NULL OR json_valid(servers)),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX projects_name ON projects (name COLLATE NOCASE);

ALTER TABLE conversations ADD COLUMN project_id TEXT REFERENCES projects (id) ON DELETE SET NULL;

CREATE INDEX conversations_project_listing
    ON conversations (project_id, archived, pinned DESC, updated_at DESC, id DESC);
