-- +goose Up
-- hidden leaves a version out of reader-facing version listings (the
-- flyout, footer_html, search) while it stays served.
ALTER TABLE versions ADD COLUMN hidden BOOLEAN NOT NULL DEFAULT FALSE;
-- public environment variables are also given to pull-request builds.
ALTER TABLE environment_variables ADD COLUMN public BOOLEAN NOT NULL DEFAULT FALSE;
-- version_name and version_type are the version's verbose_name and type
-- when the build was created (v2 shows them); builds
-- made before take their version's current values.
ALTER TABLE builds ADD COLUMN version_name TEXT NOT NULL DEFAULT '';
ALTER TABLE builds ADD COLUMN version_type TEXT NOT NULL DEFAULT '';
UPDATE builds SET
    version_name = (SELECT v.verbose_name FROM versions v WHERE v.id = builds.version_id),
    version_type = (SELECT v.type FROM versions v WHERE v.id = builds.version_id);

-- +goose Down
ALTER TABLE builds DROP COLUMN version_type;
ALTER TABLE builds DROP COLUMN version_name;
ALTER TABLE environment_variables DROP COLUMN public;
ALTER TABLE versions DROP COLUMN hidden;
