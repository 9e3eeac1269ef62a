-- +goose Up
-- versioning_scheme is the URL layout of a project's docs; it replaces the
-- single_version flag, which is now derived from it (one stored value, two
-- views). Existing projects keep their layout: single-version ones get
-- single_version_without_translations.
ALTER TABLE projects ADD COLUMN versioning_scheme TEXT NOT NULL DEFAULT 'multiple_versions_with_translations';
UPDATE projects SET versioning_scheme = 'single_version_without_translations' WHERE single_version;
ALTER TABLE projects DROP COLUMN single_version;
-- external_builds_privacy_level is the privacy of the project's pull-request
-- versions, their builds and their _/external/ docs.
ALTER TABLE projects ADD COLUMN external_builds_privacy_level TEXT NOT NULL DEFAULT 'public';
-- analytics_disabled is stored and shown in the graph; docsd injects no
-- analytics, so it has no effect.
ALTER TABLE projects ADD COLUMN analytics_disabled BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE projects DROP COLUMN analytics_disabled;
ALTER TABLE projects DROP COLUMN external_builds_privacy_level;
ALTER TABLE projects ADD COLUMN single_version BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE projects SET single_version = (versioning_scheme = 'single_version_without_translations');
ALTER TABLE projects DROP COLUMN versioning_scheme;
