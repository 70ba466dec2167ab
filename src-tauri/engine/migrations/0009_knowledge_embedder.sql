-- Schema v9: the embedder the user chose for a knowledge base, as JSON — {"kind":"builtin"} or
-- {"kind":"provider","provider":"<provider id>","model":"<embedding model>"}. The `embedder`
-- column stays the identity of the embedder its stored vectors came from; when the two differ
-- the next run embeds every file again.
ALTER TABLE knowledge_bases ADD COLUMN embedder_choice TEXT NOT NULL DEFAULT '{"kind":"builtin"}';
