-- +goose Up
-- domains are the custom domains a project's docs are served on, beside
-- its docs subdomain (docs/user-guide/custom-domains.md). A domain belongs
-- to one project; at most one of a project's domains is canonical.
-- validation_process_start: when the DNS checks (re)started; they stop
-- after the validation window. validated: when the domain's DNS was first
-- seen pointing at docsd (NULL: not yet). validation_next: when the next
-- check is due. validation_error: what the last check found wrong.
-- ssl_status: unknown, pending, valid or invalid (the certificate docsd
-- holds for the domain); ssl_error: why the last order failed.
CREATE TABLE domains (
    id                       INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id               INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    domain                   TEXT NOT NULL UNIQUE,
    canonical                BOOLEAN NOT NULL DEFAULT FALSE,
    https                    BOOLEAN NOT NULL DEFAULT TRUE,
    skip_validation          BOOLEAN NOT NULL DEFAULT FALSE,
    validation_process_start TIMESTAMP NOT NULL,
    validated                TIMESTAMP,
    validation_next          TIMESTAMP,
    validation_attempts      INTEGER NOT NULL DEFAULT 0,
    validation_error         TEXT NOT NULL DEFAULT '',
    ssl_status               TEXT NOT NULL DEFAULT 'unknown',
    ssl_error                TEXT NOT NULL DEFAULT '',
    hsts_max_age             INTEGER NOT NULL DEFAULT 0,
    hsts_include_subdomains  BOOLEAN NOT NULL DEFAULT FALSE,
    hsts_preload             BOOLEAN NOT NULL DEFAULT FALSE,
    created                  TIMESTAMP NOT NULL,
    modified                 TIMESTAMP NOT NULL
);
CREATE INDEX domains_project ON domains (project_id);
CREATE UNIQUE INDEX domains_one_canonical ON domains (project_id) WHERE canonical;

-- +goose Down
DROP TABLE domains;
