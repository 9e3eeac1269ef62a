-- +goose Up
-- cancel_requested is when a maintainer asked to cancel a running build;
-- the worker running it polls it and stops the build.
ALTER TABLE builds ADD COLUMN cancel_requested TIMESTAMP;

-- +goose Down
ALTER TABLE builds DROP COLUMN cancel_requested;
