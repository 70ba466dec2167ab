-- Sync between machines (src/sync): per-record changes through a WebDAV server or a synced
-- folder. `sync_records` holds, for every synced record, the version (edit time in Unix ms)
-- and device of its last change, whether it changed here since the last push (dirty 1), and
-- tombstones of deleted records. `base` is the record as last synced, kept from its first
-- local change until it is pushed (the three-way merge of a record both sides changed), and
-- a deleted record's last content (a deletion here loses to an edit there, and the record
-- comes back). The triggers log local writes only while sync is on (sync_state.mode = 1);
-- a pull writes with mode 2, so what it applies is not logged back. Messages deleted with
-- their conversation are tombstones implied by the conversation's (dirty 2: kept to restore
-- the conversation, never pushed).

CREATE TABLE sync_state (
    one        INTEGER PRIMARY KEY CHECK (one = 1),
    mode       INTEGER NOT NULL DEFAULT 0 CHECK (mode IN (0, 1, 2)),
    device     TEXT NOT NULL,
    pushed     INTEGER NOT NULL DEFAULT 0,
    head       INTEGER NOT NULL DEFAULT 0,
    last_sync  INTEGER
) STRICT;

INSERT INTO sync_state (one, mode, device) VALUES (1, 0, lower(hex(randomblob(16))));

CREATE TABLE sync_records (
    kind    TEXT NOT NULL,
    id      TEXT NOT NULL,
    version INTEGER NOT NULL,
    device  TEXT NOT NULL,
    dirty   INTEGER NOT NULL DEFAULT 1 CHECK (dirty IN (0, 1, 2)),
    deleted INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    base    TEXT CHECK (base IS NULL OR json_valid(base)),
    PRIMARY KEY (kind, id)
) STRICT, WITHOUT ROWID;

CREATE INDEX sync_records_dirty ON sync_records (dirty) WHERE dirty <> 0;

-- How far this device has applied each other device's changes (their batch numbers).
CREATE TABLE sync_peers (
    device  TEXT PRIMARY KEY NOT NULL,
    applied INTEGER NOT NULL DEFAULT 0,
    name    TEXT
) STRICT;

-- Records a remote change could not be applied yet (its conversation or parent has not
-- arrived); retried after every pull.
CREATE TABLE sync_waiting (
    kind   TEXT NOT NULL,
    id     TEXT NOT NULL,
    record TEXT NOT NULL CHECK (json_valid(record)),
    PRIMARY KEY (kind, id)
) STRICT;

-- Attached images (blobs) this device knows are in the sync folder (`blobs/<hash>`): sent
-- before the first batch that shows them, fetched with the first batch that shows them.
CREATE TABLE sync_blobs (
    hash TEXT PRIMARY KEY NOT NULL
) STRICT;

-- Real conflicts: both sides changed the same fields of a record (or one deleted what the
-- other edited). The newer edit won; the other side's values are kept here, synced to every
-- device, until the user uses or dismisses them.
CREATE TABLE sync_conflicts (
    id           TEXT PRIMARY KEY NOT NULL,
    kind         TEXT NOT NULL,
    record_id    TEXT NOT NULL,
    label        TEXT NOT NULL,
    other        TEXT NOT NULL CHECK (json_valid(other)),
    other_device TEXT NOT NULL,
    deleted      INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    at           INTEGER NOT NULL
) STRICT;

CREATE TRIGGER sync_conversation_insert AFTER INSERT ON conversations
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('conversation', new.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 0, NULL)
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        dirty = 1, deleted = 0;
END;

CREATE TRIGGER sync_conversation_update AFTER UPDATE ON conversations
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('conversation', new.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 0,
            json_object('id', old.id, 'title', old.title, 'created_at', old.created_at, 'updated_at', old.updated_at, 'pinned', old.pinned, 'archived', old.archived, 'provider_id', old.provider_id, 'model', old.model, 'system_prompt', old.system_prompt, 'settings', json(old.settings), 'head_id', old.head_id, 'project_id', old.project_id))
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        deleted = 0, base = CASE WHEN dirty = 1 THEN base ELSE excluded.base END, dirty = 1;
END;

CREATE TRIGGER sync_conversation_delete AFTER DELETE ON conversations
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('conversation', old.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 1,
            json_object('id', old.id, 'title', old.title, 'created_at', old.created_at, 'updated_at', old.updated_at, 'pinned', old.pinned, 'archived', old.archived, 'provider_id', old.provider_id, 'model', old.model, 'system_prompt', old.system_prompt, 'settings', json(old.settings), 'head_id', old.head_id, 'project_id', old.project_id))
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        dirty = excluded.dirty, deleted = 1, base = excluded.base;
END;

CREATE TRIGGER sync_message_insert AFTER INSERT ON messages
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('message', new.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 0, NULL)
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        dirty = 1, deleted = 0;
END;

CREATE TRIGGER sync_message_update AFTER UPDATE ON messages
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('message', new.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 0,
            json_object('id', old.id, 'conversation_id', old.conversation_id, 'parent_id', old.parent_id, 'role', old.role, 'content', json(old.content), 'status', old.status, 'model', old.model, 'input_tokens', old.input_tokens, 'output_tokens', old.output_tokens, 'error', old.error, 'created_at', old.created_at, 'updated_at', old.updated_at))
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        deleted = 0, base = CASE WHEN dirty = 1 THEN base ELSE excluded.base END, dirty = 1;
END;

CREATE TRIGGER sync_message_delete AFTER DELETE ON messages
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('message', old.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), CASE WHEN EXISTS (SELECT 1 FROM conversations WHERE id = old.conversation_id) THEN 1 ELSE 2 END, 1,
            json_object('id', old.id, 'conversation_id', old.conversation_id, 'parent_id', old.parent_id, 'role', old.role, 'content', json(old.content), 'status', old.status, 'model', old.model, 'input_tokens', old.input_tokens, 'output_tokens', old.output_tokens, 'error', old.error, 'created_at', old.created_at, 'updated_at', old.updated_at))
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        dirty = excluded.dirty, deleted = 1, base = excluded.base;
END;

CREATE TRIGGER sync_assistant_insert AFTER INSERT ON assistants
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('assistant', new.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 0, NULL)
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        dirty = 1, deleted = 0;
END;

CREATE TRIGGER sync_assistant_update AFTER UPDATE ON assistants
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('assistant', new.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 0,
            json_object('id', old.id, 'name', old.name, 'icon', old.icon, 'system_prompt', old.system_prompt, 'provider_id', old.provider_id, 'model', old.model, 'settings', json(old.settings), 'created_at', old.created_at, 'updated_at', old.updated_at))
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        deleted = 0, base = CASE WHEN dirty = 1 THEN base ELSE excluded.base END, dirty = 1;
END;

CREATE TRIGGER sync_assistant_delete AFTER DELETE ON assistants
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('assistant', old.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 1,
            json_object('id', old.id, 'name', old.name, 'icon', old.icon, 'system_prompt', old.system_prompt, 'provider_id', old.provider_id, 'model', old.model, 'settings', json(old.settings), 'created_at', old.created_at, 'updated_at', old.updated_at))
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        dirty = excluded.dirty, deleted = 1, base = excluded.base;
END;

CREATE TRIGGER sync_project_insert AFTER INSERT ON projects
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('project', new.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 0, NULL)
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        dirty = 1, deleted = 0;
END;

CREATE TRIGGER sync_project_update AFTER UPDATE ON projects
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('project', new.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 0,
            json_object('id', old.id, 'name', old.name, 'icon', old.icon, 'instructions', old.instructions, 'assistant_id', old.assistant_id, 'servers', json(old.servers), 'created_at', old.created_at, 'updated_at', old.updated_at))
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        deleted = 0, base = CASE WHEN dirty = 1 THEN base ELSE excluded.base END, dirty = 1;
END;

CREATE TRIGGER sync_project_delete AFTER DELETE ON projects
WHEN (SELECT mode FROM sync_state) = 1
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('project', old.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 1,
            json_object('id', old.id, 'name', old.name, 'icon', old.icon, 'instructions', old.instructions, 'assistant_id', old.assistant_id, 'servers', json(old.servers), 'created_at', old.created_at, 'updated_at', old.updated_at))
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        dirty = excluded.dirty, deleted = 1, base = excluded.base;
END;

CREATE TRIGGER sync_setting_insert AFTER INSERT ON settings
WHEN (SELECT mode FROM sync_state) = 1 AND new.key IN ('chat.auto_title', 'chat.default_assistant', 'chat.model_prices', 'chat.server_wait_seconds', 'tools.auto_allow_read_only')
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('setting', new.key, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 0, NULL)
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        dirty = 1, deleted = 0;
END;

CREATE TRIGGER sync_setting_update AFTER UPDATE ON settings
WHEN (SELECT mode FROM sync_state) = 1 AND new.key IN ('chat.auto_title', 'chat.default_assistant', 'chat.model_prices', 'chat.server_wait_seconds', 'tools.auto_allow_read_only')
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('setting', new.key, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 0,
            json_object('key', old.key, 'value', json(old.value)))
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        deleted = 0, base = CASE WHEN dirty = 1 THEN base ELSE excluded.base END, dirty = 1;
END;

CREATE TRIGGER sync_setting_delete AFTER DELETE ON settings
WHEN (SELECT mode FROM sync_state) = 1 AND old.key IN ('chat.auto_title', 'chat.default_assistant', 'chat.model_prices', 'chat.server_wait_seconds', 'tools.auto_allow_read_only')
BEGIN
    INSERT INTO sync_records (kind, id, version, device, dirty, deleted, base)
    VALUES ('setting', old.key, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), (SELECT device FROM sync_state), 1, 1,
            json_object('key', old.key, 'value', json(old.value)))
    ON CONFLICT (kind, id) DO UPDATE SET version = excluded.version, device = excluded.device,
        dirty = excluded.dirty, deleted = 1, base = excluded.base;
END;

