-- +goose Up
-- page_views counts the docs pages served to readers: one row per project,
-- version, page and day (UTC), with the number of views. Only aggregate
-- counters are kept: no address, cookie or user agent of a reader. Writers
-- add to view_count (INSERT … ON CONFLICT … DO UPDATE), so several nodes
-- may write the same row. day is an ISO date (YYYY-MM-DD), compared as
-- text. Rows older than the retention setting are deleted.
CREATE TABLE page_views (
    project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version_slug TEXT NOT NULL,
    path         TEXT NOT NULL,
    day          TEXT NOT NULL,
    view_count   BIGINT NOT NULL,
    PRIMARY KEY (project_id, version_slug, path, day)
);
CREATE INDEX page_views_project_day ON page_views(project_id, day);
CREATE INDEX page_views_day ON page_views(day);

-- search_queries counts the searches made in a project's docs: one row
-- per project, version, query (trimmed, lower case) and day, with the
-- number of searches and the result count of the last one. Additive like
-- page_views.
CREATE TABLE search_queries (
    project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version_slug  TEXT NOT NULL,
    query         TEXT NOT NULL,
    day           TEXT NOT NULL,
    searches      BIGINT NOT NULL,
    total_results BIGINT NOT NULL,
    PRIMARY KEY (project_id, version_slug, query, day)
);
CREATE INDEX search_queries_project_day ON search_queries(project_id, day);
CREATE INDEX search_queries_day ON search_queries(day);

-- +goose Down
DROP TABLE search_queries;
DROP TABLE page_views;
