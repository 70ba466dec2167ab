-- Schema v4: assistants — named presets a new conversation starts from: an icon, a system
-- prompt, a provider and model, and the conversation settings (model settings, servers and
-- tools, tool mode) copied into each conversation made from it. The default assistant is the
-- setting `chat.default_assistant`.

CREATE TABLE assistants (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL CHECK (length(trim(name)) > 0),
    icon          TEXT NOT NULL DEFAULT '',
    system_prompt TEXT NOT NULL DEFAULT '',
    provider_id   TEXT,
    model         TEXT,
    settings      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX assistants_by_name ON assistants (name COLLATE NOCASE);
