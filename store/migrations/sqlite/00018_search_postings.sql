-- +goose Up
-- The impact-ordered index. search_words is each indexed version's
-- dictionary: its folded words and how many pages hold each (prefixes and
-- stems are looked up in it by range). search_postings holds, per version
-- and word, the pages that contain the word with the page's impact for it
-- (its score for that word alone, computed by docsd when indexing), so
-- that a query reads only a word's best pages. search_indexed lists the
-- versions indexed this way, with the format of their entries and their
-- number of pages: versions
-- indexed before are searched through the full-text tables until docsd
-- indexes them again, which it does in the background at start-up.
CREATE TABLE search_words (
    version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    word       TEXT NOT NULL,
    pages      INTEGER NOT NULL,
    PRIMARY KEY (version_id, word)
) WITHOUT ROWID;
CREATE TABLE search_postings (
    version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    word       TEXT NOT NULL,
    impact     INTEGER NOT NULL,
    page_id    INTEGER NOT NULL,
    PRIMARY KEY (version_id, word, impact, page_id)
) WITHOUT ROWID;
CREATE TABLE search_indexed (
    version_id INTEGER PRIMARY KEY REFERENCES versions(id) ON DELETE CASCADE,
    format     INTEGER NOT NULL,
    pages      INTEGER NOT NULL
);

-- +goose Down
DROP TABLE search_indexed;
DROP TABLE search_postings;
DROP TABLE search_words;
