-- +goose Up
-- A project's SSH deploy key: an ed25519 pair docsd made. private_key is
-- the OpenSSH private key sealed with the server's secret key (it is
-- never stored unencrypted); public_key is the authorized_keys line.
CREATE TABLE project_ssh_keys (
    project_id   INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    key_type     TEXT NOT NULL,
    public_key   TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    private_key  TEXT NOT NULL,
    created      TIMESTAMP NOT NULL
);

-- The host keys a project's git commands accept: lines of an OpenSSH
-- known_hosts file, in the order given. learned marks the lines docsd
-- stored after the first connection to a host (trust on first use);
-- the others were set by a maintainer.
CREATE TABLE project_known_hosts (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    hosts        TEXT NOT NULL,
    key_type     TEXT NOT NULL,
    line         TEXT NOT NULL,
    learned      BOOLEAN NOT NULL DEFAULT 0,
    created      TIMESTAMP NOT NULL
);
CREATE INDEX project_known_hosts_project ON project_known_hosts(project_id, position);

-- The HTTPS credentials of a project's repository: a username and a token
-- (password), both sealed with the server's secret key.
CREATE TABLE project_repository_credentials (
    project_id   INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    username     TEXT NOT NULL,
    password     TEXT NOT NULL,
    created      TIMESTAMP NOT NULL,
    modified     TIMESTAMP NOT NULL
);

-- +goose Down
DROP TABLE project_repository_credentials;
DROP TABLE project_known_hosts;
DROP TABLE project_ssh_keys;
