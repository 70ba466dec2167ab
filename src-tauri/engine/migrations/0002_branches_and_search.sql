-- Schema v2: the branch a conversation shows (its head message) and full-text search over
-- message text with FTS5's trigram tokenizer (so Chinese, which has no spaces, is searchable).
-- FTS rows are keyed by `message_search_ids.n`, an explicit INTEGER PRIMARY KEY that VACUUM
-- keeps (messages' implicit rowids may change).

ALTER TABLE conversations ADD COLUMN head_id TEXT;

CREATE TABLE message_search_ids (
    n          INTEGER PRIMARY KEY,
    message_id TEXT NOT NULL UNIQUE
) STRICT;

CREATE VIRTUAL TABLE messages_fts USING fts5(body, tokenize = 'trigram');

CREATE TRIGGER messages_search_insert AFTER INSERT ON messages
WHEN new.role IN ('user', 'assistant')
BEGIN
    INSERT INTO message_search_ids (message_id) VALUES (new.id);
    INSERT INTO messages_fts (rowid, body)
    SELECT (SELECT n FROM message_search_ids WHERE message_id = new.id), body
    FROM (SELECT group_concat(json_extract(value, '$.text'), char(10)) AS body
          FROM json_each(new.content) WHERE json_extract(value, '$.type') = 'text');
END;

CREATE TRIGGER messages_search_update AFTER UPDATE OF content ON messages
WHEN new.role IN ('user', 'assistant')
BEGIN
    DELETE FROM messages_fts
    WHERE rowid = (SELECT n FROM message_search_ids WHERE message_id = new.id);
    INSERT INTO messages_fts (rowid, body)
    SELECT (SELECT n FROM message_search_ids WHERE message_id = new.id), body
    FROM (SELECT group_concat(json_extract(value, '$.text'), char(10)) AS body
          FROM json_each(new.content) WHERE json_extract(value, '$.type') = 'text');
END;

CREATE TRIGGER messages_search_delete AFTER DELETE ON messages
BEGIN
    DELETE FROM messages_fts
    WHERE rowid = (SELECT n FROM message_search_ids WHERE message_id = old.id);
    DELETE FROM message_search_ids WHERE message_id = old.id;
END;
