-- +goose Up
-- webhook_deliveries remembers the GitHub delivery ids (X-GitHub-Delivery)
-- already processed for a project, so a signed delivery cannot be replayed.
-- Rows older than the retention bound are deleted when new ones arrive.
CREATE TABLE webhook_deliveries (
    project_id  BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    delivery_id TEXT NOT NULL,
    received    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (project_id, delivery_id)
);
CREATE INDEX webhook_deliveries_received ON webhook_deliveries(received);

-- uploads are the builds created by the upload API.
-- status 'pending': awaiting complete (workers never claim the build);
-- 'queued': complete succeeded, the archive waits for processing;
-- 'done': processed, failed or expired (kept so that a later complete is
-- told the build is already in process).
-- token_hash is the SHA-256 (hex) of the upload token; the token itself is
-- never stored.
CREATE TABLE uploads (
    build_id    BIGINT PRIMARY KEY REFERENCES builds(id) ON DELETE CASCADE,
    project_id  BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    token_hash  TEXT NOT NULL UNIQUE,
    storage_key TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending',
    created     TIMESTAMPTZ NOT NULL,
    expires     TIMESTAMPTZ NOT NULL
);
CREATE INDEX uploads_project ON uploads(project_id, status, expires);

-- +goose Down
DROP TABLE uploads;
DROP TABLE webhook_deliveries;
