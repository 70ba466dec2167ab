-- Schema v6: a second view of the search index's vocabulary, one row per occurrence
-- ('instance') instead of one per term ('row'). A two-character term is searched as the OR of
-- the indexed trigrams it begins; listing those through the 'row' view counted every
-- document of every such trigram (hundreds of thousands for a common Chinese word at two
-- million messages), while the 'instance' view yields a term's first occurrence at once, so
-- the engine steps from one trigram to the next without reading their documents.
-- A view of the existing index: nothing is copied or backfilled, and it costs no space.

CREATE VIRTUAL TABLE messages_fts_instances USING fts5vocab(messages_fts, 'instance');
DROP TABLE messages_fts_vocab;
