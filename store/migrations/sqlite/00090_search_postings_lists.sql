-- +goose Up
-- A word's postings move into its dictionary row: postings holds the pages
-- that contain the word, best first (impact descending, then page id
-- descending), each as 12 bytes: the impact (4 bytes) and the page id (8
-- bytes), big-endian. A query reads the first bytes of a few rows instead
-- of many index entries, and indexing writes one row per word instead of
-- one per page and word. Versions indexed before have no lists: their
-- entries are searched through the full-text tables until docsd indexes
-- them again, which it does in the background at start-up.
DROP TABLE search_postings;
DELETE FROM search_words;
DELETE FROM search_indexed;
ALTER TABLE search_words ADD COLUMN postings BLOB NOT NULL DEFAULT x'';

-- +goose Down
ALTER TABLE search_words DROP COLUMN postings;
DELETE FROM search_words;
DELETE FROM search_indexed;
CREATE TABLE search_postings (
    version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    word       TEXT NOT NULL,
    impact     INTEGER NOT NULL,
    page_id    INTEGER NOT NULL,
    PRIMARY KEY (version_id, word, impact, page_id)
) WITHOUT ROWID;
