-- +goose Up
-- A word's postings move into its dictionary row: postings holds the pages
-- that contain the word, best first (impact descending, then page id
-- descending), each as 12 bytes: the impact (4 bytes) and the page id (8
-- bytes), big-endian. A query reads the first bytes of a few rows instead
-- of many index entries, and indexing writes one row per word instead of
-- one per page and word. The column is stored uncompressed so that its
-- first bytes are read without the rest. Versions indexed before have no
-- lists: their entries are searched through the full-text tables until
-- docsd indexes them again, which it does in the background at start-up.
DROP TABLE search_postings;
DELETE FROM search_words;
DELETE FROM search_indexed;
ALTER TABLE search_words ADD COLUMN postings BYTEA NOT NULL DEFAULT '\x';
ALTER TABLE search_words ALTER COLUMN postings SET STORAGE EXTERNAL;
-- The GIN indexes of the full-text columns go: keeping them up to date was
-- most of the time indexing took, and only versions not indexed again
-- yet are searched through those columns, version by version.
DROP INDEX search_pages_words;
DROP INDEX search_sections_words;

-- +goose Down
CREATE INDEX search_pages_words ON search_pages USING GIN (words);
CREATE INDEX search_sections_words ON search_sections USING GIN (words);
ALTER TABLE search_words DROP COLUMN postings;
DELETE FROM search_words;
DELETE FROM search_indexed;
CREATE TABLE search_postings (
    version_id BIGINT NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    word       TEXT COLLATE "C" NOT NULL,
    impact     INTEGER NOT NULL,
    page_id    BIGINT NOT NULL,
    PRIMARY KEY (version_id, word, impact, page_id)
);
