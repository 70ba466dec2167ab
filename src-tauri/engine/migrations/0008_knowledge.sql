-- Schema v8: knowledge bases. A base is a named set of folders (and single files) indexed by one
-- embedder; each file it holds is listed with what was last read of it (size, modification time,
-- SHA-256) and its error when it could not be indexed; each file's chunks carry their text, where
-- they start (line, page, headings) and their vector, quantized to int8 with one scale per vector.
-- knowledge_fts is the keyword index of the chunks (BM25 over words, Porter-stemmed; Chinese,
-- Japanese and Korean text is indexed one character per token, so a phrase of them matches in
-- order), contentless: its row id is the chunk's id and its text is the chunk's, written by the
-- engine, and a chunk's row leaves it with the chunk (trigger).

CREATE TABLE knowledge_bases (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    embedder    TEXT NOT NULL,
    dimensions  INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE TABLE knowledge_sources (
    base_id  INTEGER NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
    path     TEXT NOT NULL,
    PRIMARY KEY (base_id, path)
);

CREATE TABLE knowledge_files (
    id          INTEGER PRIMARY KEY,
    base_id     INTEGER NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
    path        TEXT NOT NULL,
    size        INTEGER NOT NULL,
    modified_ns INTEGER NOT NULL,
    sha256      TEXT,
    kind        TEXT,
    title       TEXT,
    chunks      INTEGER NOT NULL DEFAULT 0,
    error       TEXT,
    indexed_at  INTEGER NOT NULL,
    UNIQUE (base_id, path)
);

CREATE TABLE knowledge_chunks (
    id       INTEGER PRIMARY KEY,
    file_id  INTEGER NOT NULL REFERENCES knowledge_files(id) ON DELETE CASCADE,
    base_id  INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    text     TEXT NOT NULL,
    line     INTEGER,
    page     INTEGER,
    heading  TEXT,
    scale    REAL NOT NULL DEFAULT 0,
    vector   BLOB
);

CREATE INDEX knowledge_chunks_base ON knowledge_chunks(base_id);
CREATE INDEX knowledge_chunks_file ON knowledge_chunks(file_id);

CREATE VIRTUAL TABLE knowledge_fts USING fts5(
    body,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER knowledge_chunks_gone AFTER DELETE ON knowledge_chunks BEGIN
    DELETE FROM knowledge_fts WHERE rowid = old.id;
END;
