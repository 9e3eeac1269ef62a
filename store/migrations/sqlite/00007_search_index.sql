-- +goose Up
-- The search index: one row per indexed HTML page of a
-- version, its sections in page order, and two FTS5 tables over the pages'
-- and sections' words. The FTS tables hold docsd's own word lists (folded,
-- space-separated; package search computes them), so the `ascii` tokenizer
-- splits exactly where docsd did. They are contentless: the text shown in
-- results is read from search_pages and search_sections.
CREATE TABLE search_pages (
    id         INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version_id INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    doctype    TEXT NOT NULL,
    rank       INTEGER NOT NULL,
    title      TEXT NOT NULL,
    UNIQUE (version_id, path)
);
CREATE INDEX search_pages_project ON search_pages(project_id);

CREATE TABLE search_sections (
    id       INTEGER PRIMARY KEY,
    page_id  INTEGER NOT NULL REFERENCES search_pages(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    anchor   TEXT NOT NULL,
    title    TEXT NOT NULL,
    content  TEXT NOT NULL
);
CREATE INDEX search_sections_page ON search_sections(page_id, position);

CREATE VIRTUAL TABLE search_page_fts USING fts5(words, tokenize = 'ascii', content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE search_section_fts USING fts5(title, content, tokenize = 'ascii', content = '', contentless_delete = 1);

-- Rows deleted directly or by a cascade (version or project deleted) leave
-- the FTS tables with them.
-- +goose StatementBegin
CREATE TRIGGER search_pages_delete AFTER DELETE ON search_pages BEGIN
    DELETE FROM search_page_fts WHERE rowid = old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_sections_delete AFTER DELETE ON search_sections BEGIN
    DELETE FROM search_section_fts WHERE rowid = old.id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER search_sections_delete;
DROP TRIGGER search_pages_delete;
DROP TABLE search_section_fts;
DROP TABLE search_page_fts;
DROP TABLE search_sections;
DROP TABLE search_pages;
