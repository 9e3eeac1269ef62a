-- +goose Up
-- sharing_methods let people without an account read a project's
-- non-public docs (docs/user-guide/sharing.md). token_hash is the SHA-256
-- of the token, for look-ups; token_sealed is the token itself, sealed
-- with --secret-key when one is set, so that admins can show it again.
-- password_hash is bcrypt (access_type password only). versions is a JSON
-- list of version slugs ([] when allow_all). expires is a UTC day,
-- YYYY-MM-DD, the last day the method works.
CREATE TABLE sharing_methods (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    access_type  TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    token_sealed TEXT NOT NULL,
    password_hash TEXT NOT NULL DEFAULT '',
    allow_all    BOOLEAN NOT NULL DEFAULT 1,
    versions     TEXT NOT NULL DEFAULT '[]',
    description  TEXT NOT NULL DEFAULT '',
    expires      TEXT NOT NULL,
    last_used_at TIMESTAMP,
    created      TIMESTAMP NOT NULL,
    modified     TIMESTAMP NOT NULL
);
CREATE INDEX sharing_methods_project ON sharing_methods(project_id);
-- sharing_grants are what a redeemed link or password gives one browser:
-- cookie_hash is the SHA-256 of the docsd_share cookie's value (one cookie
-- may carry grants of several methods); a grant dies with its method.
CREATE TABLE sharing_grants (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    cookie_hash TEXT NOT NULL,
    method_id   INTEGER NOT NULL REFERENCES sharing_methods(id) ON DELETE CASCADE,
    created     TIMESTAMP NOT NULL,
    expires     TIMESTAMP NOT NULL,
    UNIQUE (cookie_hash, method_id)
);
CREATE INDEX sharing_grants_method ON sharing_grants(method_id);
-- audit_log keeps one row per security event. The log_* columns copy the
-- user's, project's and organization's id and name so that the entry
-- survives their deletion; user_id and project_id are cleared then.
-- organization_id has no foreign key: organizations have their own table
-- elsewhere, and entries outlive them too.
CREATE TABLE audit_log (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    created               TIMESTAMP NOT NULL,
    user_id               INTEGER REFERENCES users(id) ON DELETE SET NULL,
    log_user_id           INTEGER,
    log_user_username     TEXT,
    project_id            INTEGER REFERENCES projects(id) ON DELETE SET NULL,
    log_project_id        INTEGER,
    log_project_slug      TEXT,
    organization_id       INTEGER,
    log_organization_id   INTEGER,
    log_organization_slug TEXT,
    action                TEXT NOT NULL,
    auth_backend          TEXT,
    ip                    TEXT NOT NULL DEFAULT '',
    browser               TEXT NOT NULL DEFAULT '',
    resource              TEXT NOT NULL DEFAULT '',
    data                  TEXT
);
CREATE INDEX audit_log_created ON audit_log(created);
CREATE INDEX audit_log_user ON audit_log(log_user_id);
CREATE INDEX audit_log_project ON audit_log(log_project_id);
CREATE INDEX audit_log_organization ON audit_log(log_organization_id);

-- +goose Down
DROP TABLE audit_log;
DROP TABLE sharing_grants;
DROP TABLE sharing_methods;
