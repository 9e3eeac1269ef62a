-- +goose Up
-- artifact_trees points each version at its current published HTML tree in
-- object storage (S3): trees are written under immutable per-publish
-- prefixes and become visible, on every node at once, when this pointer
-- changes. Local storage keeps its own symlinks and never writes here.
CREATE TABLE artifact_trees (
    project   TEXT NOT NULL,
    version   TEXT NOT NULL,
    tree      TEXT NOT NULL,
    published TIMESTAMP NOT NULL,
    PRIMARY KEY (project, version)
);
-- artifact_garbage lists replaced or removed trees; they are deleted from
-- the bucket after delete_after, so that readers which resolved them just
-- before the swap finish reading.
CREATE TABLE artifact_garbage (
    id           BIGSERIAL PRIMARY KEY,
    project      TEXT NOT NULL,
    version      TEXT NOT NULL,
    tree         TEXT NOT NULL,
    delete_after TIMESTAMP NOT NULL
);
CREATE INDEX artifact_garbage_due ON artifact_garbage(delete_after);

-- +goose Down
DROP TABLE artifact_garbage;
DROP TABLE artifact_trees;
