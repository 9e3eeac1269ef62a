-- +goose Up
-- A word's postings move out of its dictionary row into blocks of growing
-- size: block 0 holds the word's 64 best pages, block b the next 64·4^b,
-- each posting 12 bytes as before (impact, page id), best first: impact
-- descending, then page id ascending (path order within a version). A query
-- reads the few blocks that hold as many pages as it needs, on both
-- databases alike, and a range read of the dictionary reads short rows.
-- The blocks are stored uncompressed: compressing page ids and impacts
-- gains little and costs every read. The entries of every version are
-- indexed again, in the background at start-up; until then they are
-- searched through the full-text tables.
DELETE FROM search_words;
DELETE FROM search_indexed;
ALTER TABLE search_words DROP COLUMN postings;
CREATE TABLE search_postings (
    version_id BIGINT NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    word       TEXT COLLATE "C" NOT NULL,
    block      INTEGER NOT NULL,
    postings   BYTEA NOT NULL,
    PRIMARY KEY (version_id, word, block)
);
ALTER TABLE search_postings ALTER COLUMN postings SET STORAGE EXTERNAL;
-- search_prefixes holds, for each prefix that more than 64 of a version's
-- words start with, the 64 of those words that most pages hold, most
-- first, as text: each word followed by its pages, separated by spaces. A
-- prefix being typed is looked up there instead of reading its words
-- from the dictionary; a prefix without a row starts at most 64 words.
CREATE TABLE search_prefixes (
    version_id BIGINT NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    prefix     TEXT COLLATE "C" NOT NULL,
    words      TEXT NOT NULL,
    PRIMARY KEY (version_id, prefix)
);

-- +goose Down
DROP TABLE search_prefixes;
DROP TABLE search_postings;
DELETE FROM search_words;
DELETE FROM search_indexed;
ALTER TABLE search_words ADD COLUMN postings BYTEA NOT NULL DEFAULT '\x';
ALTER TABLE search_words ALTER COLUMN postings SET STORAGE EXTERNAL;
