-- +goose Up
-- storage_locks are leases on names, shared by every node: the node whose
-- holder id is in the row may work on the name (order a certificate)
-- until expires; after that any node may take it over.
CREATE TABLE storage_locks (
    name    TEXT PRIMARY KEY,
    holder  TEXT NOT NULL,
    expires TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE storage_locks;
