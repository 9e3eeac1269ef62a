-- +goose Up
-- password_hash: the bcrypt hash set by `docsd user password`; '' means the
-- user cannot sign in to the dashboard (API keys keep working).
ALTER TABLE users ADD COLUMN password_hash TEXT NOT NULL DEFAULT '';
-- dashboard_sessions are the dashboard's browser sessions: the cookie's
-- value is kept only as its SHA-256 hash; a session dies with its user.
CREATE TABLE dashboard_sessions (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    hash    TEXT NOT NULL UNIQUE,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created TIMESTAMP NOT NULL,
    expires TIMESTAMP NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions(user_id);

-- +goose Down
DROP TABLE dashboard_sessions;
ALTER TABLE users DROP COLUMN password_hash;
