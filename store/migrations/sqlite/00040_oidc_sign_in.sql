-- +goose Up
-- email_verified: the email was set by an administrator, taken from an
-- identity provider that verified it, or confirmed by an emailed
-- invitation. Every look-up of a user by email reads verified emails only.
-- Emails already stored were set by administrators: they are verified.
ALTER TABLE users ADD COLUMN email_verified BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE users SET email_verified = TRUE WHERE email <> '';
CREATE INDEX users_email_lower ON users(lower(email));
-- user_identities link a user to the subject an OpenID Provider (issuer)
-- knows them by; a subject of an issuer belongs to one user at most.
CREATE TABLE user_identities (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    issuer  TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created TIMESTAMP NOT NULL,
    UNIQUE (issuer, subject)
);
CREATE INDEX user_identities_user ON user_identities(user_id);
-- oidc_flows are sign-ins started at the identity provider and not yet
-- back: state and the browser binding are kept only as SHA-256 hashes; a
-- flow is consumed once, and dies at expires.
CREATE TABLE oidc_flows (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    state_hash    TEXT NOT NULL UNIQUE,
    binding_hash  TEXT NOT NULL,
    nonce         TEXT NOT NULL,
    code_verifier TEXT NOT NULL,
    next          TEXT NOT NULL,
    created       TIMESTAMP NOT NULL,
    expires       TIMESTAMP NOT NULL
);
CREATE INDEX oidc_flows_expires ON oidc_flows(expires);
-- auth_backend says how a dashboard session was made (password, oidc);
-- id_token is the ID token of an oidc session, the hint of the identity
-- provider's sign-out ('' otherwise).
ALTER TABLE dashboard_sessions ADD COLUMN auth_backend TEXT NOT NULL DEFAULT 'password';
ALTER TABLE dashboard_sessions ADD COLUMN id_token TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE dashboard_sessions DROP COLUMN id_token;
ALTER TABLE dashboard_sessions DROP COLUMN auth_backend;
DROP TABLE oidc_flows;
DROP TABLE user_identities;
DROP INDEX users_email_lower;
ALTER TABLE users DROP COLUMN email_verified;
