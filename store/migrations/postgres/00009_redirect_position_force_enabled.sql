-- +goose Up
-- Redirects get an order and switches: position is the order of
-- evaluation, 0…N−1 per project; force redirects even when the page
-- exists; enabled=false keeps a redirect without serving it.
ALTER TABLE redirects ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
ALTER TABLE redirects ADD COLUMN force BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE redirects ADD COLUMN enabled BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE redirects ADD COLUMN description TEXT NOT NULL DEFAULT '';
-- Existing redirects keep the order they were served in (modified
-- descending, then id descending) as positions 0…N−1.
UPDATE redirects SET position = (
    SELECT COUNT(*) FROM redirects r
    WHERE r.project_id = redirects.project_id
      AND (r.modified > redirects.modified OR (r.modified = redirects.modified AND r.id > redirects.id))
);
CREATE INDEX redirects_project_position ON redirects(project_id, position);
-- At most one clean_url_to_html and one html_to_clean_url per project.
CREATE UNIQUE INDEX redirects_one_clean_url ON redirects(project_id, type)
    WHERE type IN ('clean_url_to_html', 'html_to_clean_url');

-- +goose Down
DROP INDEX redirects_one_clean_url;
DROP INDEX redirects_project_position;
ALTER TABLE redirects DROP COLUMN description;
ALTER TABLE redirects DROP COLUMN enabled;
ALTER TABLE redirects DROP COLUMN force;
ALTER TABLE redirects DROP COLUMN position;
