-- +goose Up
-- organization_sso_domains are the email domains of an organization's
-- people (lower case): single sign-on joins them to the organization's
-- auto-join teams, and sso_required keeps them off passwords. A domain
-- belongs to one organization at most.
CREATE TABLE organization_sso_domains (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    domain          TEXT NOT NULL UNIQUE,
    created         TIMESTAMP NOT NULL
);
CREATE INDEX organization_sso_domains_organization ON organization_sso_domains(organization_id);
-- sso_required: the people of the SSO domains (superusers excepted) must
-- sign in through the identity provider.
ALTER TABLE organizations ADD COLUMN sso_required BOOLEAN NOT NULL DEFAULT 0;
-- client is the address a pending sign-in came from: each address may
-- keep only a few sign-ins waiting for the identity provider.
ALTER TABLE oidc_flows ADD COLUMN client TEXT NOT NULL DEFAULT '';
CREATE INDEX oidc_flows_client ON oidc_flows(client);

-- +goose Down
DROP INDEX oidc_flows_client;
ALTER TABLE oidc_flows DROP COLUMN client;
ALTER TABLE organizations DROP COLUMN sso_required;
DROP TABLE organization_sso_domains;
