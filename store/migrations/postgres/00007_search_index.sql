-- +goose Up
-- The search index: one row per indexed HTML page of a
-- version and its sections in page order. The tsvector columns hold
-- docsd's own folded words as lexemes (built from a tsvector literal, never
-- by a text search parser), so PostgreSQL matches exactly the words docsd
-- split; GIN indexes serve the @@ matches.
CREATE TABLE search_pages (
    id         BIGSERIAL PRIMARY KEY,
    project_id BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version_id BIGINT NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    doctype    TEXT NOT NULL,
    rank       INTEGER NOT NULL,
    title      TEXT NOT NULL,
    words      TSVECTOR NOT NULL,
    UNIQUE (version_id, path)
);
CREATE INDEX search_pages_project ON search_pages(project_id);
CREATE INDEX search_pages_words ON search_pages USING GIN (words);

CREATE TABLE search_sections (
    id       BIGSERIAL PRIMARY KEY,
    page_id  BIGINT NOT NULL REFERENCES search_pages(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    anchor   TEXT NOT NULL,
    title    TEXT NOT NULL,
    content  TEXT NOT NULL,
    words    TSVECTOR NOT NULL
);
CREATE INDEX search_sections_page ON search_sections(page_id, position);
CREATE INDEX search_sections_words ON search_sections USING GIN (words);

-- +goose Down
DROP TABLE search_sections;
DROP TABLE search_pages;
