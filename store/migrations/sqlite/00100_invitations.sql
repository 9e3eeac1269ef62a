-- +goose Up
-- Invitations to become an organization's owner, a team's member or a
-- project's maintainer. object_type names the target ('organization',
-- 'team' or 'project') and exactly one of organization_id, team_id and
-- project_id is set (object_id repeats it, for the uniqueness rules). The
-- invitee is a user (to_user_id) or an email address (to_email, '' for a
-- user). Only the SHA-256 of the token is stored. One invitation per
-- target and user, and per target and email: inviting again renews it.
CREATE TABLE invitations (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    object_type     TEXT NOT NULL,
    object_id       INTEGER NOT NULL,
    organization_id INTEGER REFERENCES organizations(id) ON DELETE CASCADE,
    team_id         INTEGER REFERENCES teams(id) ON DELETE CASCADE,
    project_id      INTEGER REFERENCES projects(id) ON DELETE CASCADE,
    from_user_id    INTEGER REFERENCES users(id) ON DELETE SET NULL,
    to_user_id      INTEGER REFERENCES users(id) ON DELETE CASCADE,
    to_email        TEXT NOT NULL DEFAULT '',
    -- the invitation was mailed: signing up through it verifies to_email
    emailed         BOOLEAN NOT NULL DEFAULT 0,
    token_hash      TEXT NOT NULL UNIQUE,
    created         TIMESTAMP NOT NULL,
    expires         TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX invitations_target_user ON invitations(object_type, object_id, to_user_id) WHERE to_user_id IS NOT NULL;
CREATE UNIQUE INDEX invitations_target_email ON invitations(object_type, object_id, to_email) WHERE to_email <> '';
CREATE INDEX invitations_to_user ON invitations(to_user_id);

-- +goose Down
DROP TABLE invitations;
