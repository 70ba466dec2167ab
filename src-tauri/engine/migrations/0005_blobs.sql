-- Schema v5: attached images, stored once by the SHA-256 of their (downscaled) bytes, however
-- many messages show them (a message's `image_ref` part names the hash). `thumb` is a small
-- JPEG or PNG for lists; `data` is what a model is sent.

CREATE TABLE blobs (
    hash       TEXT PRIMARY KEY NOT NULL CHECK (length(hash) = 64),
    mime_type  TEXT NOT NULL,
    width      INTEGER NOT NULL,
    height     INTEGER NOT NULL,
    data       BLOB NOT NULL,
    thumb      BLOB NOT NULL,
    thumb_mime TEXT NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;
