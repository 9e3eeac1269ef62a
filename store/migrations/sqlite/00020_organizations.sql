-- +goose Up
-- organizations group projects under owners and teams. A project belongs to
-- at most one organization (projects.organization_id); projects outside
-- every organization keep their maintainers' rules alone.
CREATE TABLE organizations (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    slug        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    email       TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    url         TEXT NOT NULL DEFAULT '',
    created     TIMESTAMP NOT NULL,
    modified    TIMESTAMP NOT NULL
);
-- organization_owners: the owners, in the order added (id).
CREATE TABLE organization_owners (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id         INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    UNIQUE (organization_id, user_id)
);
CREATE INDEX organization_owners_user ON organization_owners(user_id);
-- teams: access is 'admin' or 'readonly'; the slug is made from the name
-- at creation and never changes.
CREATE TABLE teams (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id       INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    slug                  TEXT NOT NULL,
    name                  TEXT NOT NULL,
    access                TEXT NOT NULL DEFAULT 'readonly',
    auto_join_email_users BOOLEAN NOT NULL DEFAULT 0,
    created               TIMESTAMP NOT NULL,
    modified              TIMESTAMP NOT NULL,
    UNIQUE (organization_id, slug),
    UNIQUE (organization_id, name)
);
CREATE TABLE team_members (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    UNIQUE (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members(user_id);
-- team_projects: projects of the team's organization the team reaches.
CREATE TABLE team_projects (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id    INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    UNIQUE (team_id, project_id)
);
CREATE INDEX team_projects_project ON team_projects(project_id);
ALTER TABLE projects ADD COLUMN organization_id INTEGER REFERENCES organizations(id);
CREATE INDEX projects_organization ON projects(organization_id);

-- +goose Down
DROP INDEX projects_organization;
ALTER TABLE projects DROP COLUMN organization_id;
DROP TABLE team_projects;
DROP TABLE team_members;
DROP TABLE teams;
DROP TABLE organization_owners;
DROP TABLE organizations;
