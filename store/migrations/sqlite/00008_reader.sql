-- +goose Up
-- addons_enabled: whether served HTML pages of the project get the reader
-- client; `docsd project set SLUG addons_enabled=false` turns it off.
ALTER TABLE projects ADD COLUMN addons_enabled BOOLEAN NOT NULL DEFAULT TRUE;
-- docs_sessions are the browser sessions of docs subdomains: the cookie's
-- value is kept only as its SHA-256 hash; a session belongs to one docs
-- host and dies with the API key it was made from.
CREATE TABLE docs_sessions (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    hash     TEXT NOT NULL UNIQUE,
    token_id INTEGER NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
    host     TEXT NOT NULL,
    created  TIMESTAMP NOT NULL,
    expires  TIMESTAMP NOT NULL
);
CREATE INDEX docs_sessions_token ON docs_sessions(token_id);

-- +goose Down
DROP TABLE docs_sessions;
ALTER TABLE projects DROP COLUMN addons_enabled;
