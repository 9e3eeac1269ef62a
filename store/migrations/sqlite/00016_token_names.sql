-- +goose Up
-- name: what a token is for, as its owner wrote it when creating it in the
-- dashboard or through createApiToken ('' for tokens made before, or by
-- `docsd token create`).
ALTER TABLE tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tokens DROP COLUMN name;
