-- +goose Up
-- error_id is the notification message id of a failed build, e.g.
-- 'build:user:generic'; empty for builds that did not fail.
ALTER TABLE builds ADD COLUMN error_id TEXT NOT NULL DEFAULT '';
-- readthedocs_yaml_path is the path of the project's configuration file,
-- relative to the repository; NULL means the usual file names are looked for.
ALTER TABLE projects ADD COLUMN readthedocs_yaml_path TEXT;
-- builds.readthedocs_yaml_path is the configuration path a build used when
-- the project set one (v2 shows it); NULL otherwise.
ALTER TABLE builds ADD COLUMN readthedocs_yaml_path TEXT;

-- +goose Down
ALTER TABLE builds DROP COLUMN readthedocs_yaml_path;
ALTER TABLE projects DROP COLUMN readthedocs_yaml_path;
ALTER TABLE builds DROP COLUMN error_id;
