-- +goose Up
-- error_id is the notification message id of a failed build (api-2026.md
-- §A4.2), e.g. 'build:user:generic'; empty for builds that did not fail.
ALTER TABLE builds ADD COLUMN error_id TEXT NOT NULL DEFAULT '';
-- readthedocs_yaml_path is the project's custom configuration file path
-- (api-2026.md §A1.9); NULL means the era's discovery.
ALTER TABLE projects ADD COLUMN readthedocs_yaml_path TEXT;
-- builds.readthedocs_yaml_path is the configuration path a build used when
-- the project set one (v2 build key, api-2026.md §A1.6); NULL otherwise.
ALTER TABLE builds ADD COLUMN readthedocs_yaml_path TEXT;

-- +goose Down
ALTER TABLE builds DROP COLUMN readthedocs_yaml_path;
ALTER TABLE projects DROP COLUMN readthedocs_yaml_path;
ALTER TABLE builds DROP COLUMN error_id;
