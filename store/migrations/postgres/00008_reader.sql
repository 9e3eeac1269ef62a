-- +goose Up
-- addons_enabled: whether served HTML pages of the project get the reader
-- client (reader.md R.0, R.5.1); `docsd project set SLUG addons_enabled=false`.
ALTER TABLE projects ADD COLUMN addons_enabled BOOLEAN NOT NULL DEFAULT TRUE;

-- +goose Down
ALTER TABLE projects DROP COLUMN addons_enabled;
