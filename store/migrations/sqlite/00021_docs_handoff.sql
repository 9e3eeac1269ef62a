-- +goose Up
-- docs_login_codes are the one-time codes of the dashboard's sign-in
-- hand-off to a docs host: the code's hash, the dashboard session it came
-- from, the docs host and the hash of the browser's state; valid for a
-- minute, used once.
CREATE TABLE docs_login_codes (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    hash       TEXT NOT NULL UNIQUE,
    session_id INTEGER NOT NULL REFERENCES dashboard_sessions(id) ON DELETE CASCADE,
    host       TEXT NOT NULL,
    state_hash TEXT NOT NULL,
    created    TIMESTAMP NOT NULL,
    expires    TIMESTAMP NOT NULL
);
CREATE INDEX docs_login_codes_session ON docs_login_codes(session_id);
-- docs_handoff_sessions are docs-host browser sessions made by the
-- hand-off: they end with the dashboard session they came from.
CREATE TABLE docs_handoff_sessions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    hash       TEXT NOT NULL UNIQUE,
    session_id INTEGER NOT NULL REFERENCES dashboard_sessions(id) ON DELETE CASCADE,
    host       TEXT NOT NULL,
    created    TIMESTAMP NOT NULL,
    expires    TIMESTAMP NOT NULL
);
CREATE INDEX docs_handoff_sessions_session ON docs_handoff_sessions(session_id);

-- +goose Down
DROP TABLE docs_handoff_sessions;
DROP TABLE docs_login_codes;
